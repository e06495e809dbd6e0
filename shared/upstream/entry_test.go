package upstream

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/session"
)

func TestDecodeEntry(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    session.Entry
		wantErr string
	}{
		{
			name: "plain",
			in:   `{"sessionId":"s1","updatedAt":5,"channel":"telegram","label":"x"}`,
			want: session.Entry{SessionID: "s1", UpdatedAt: 5, Channel: "telegram", Label: "x"},
		},
		{
			name: "legacy provider and lastProvider",
			in:   `{"sessionId":"s1","updatedAt":5,"provider":"discord","lastProvider":"telegram"}`,
			want: session.Entry{SessionID: "s1", UpdatedAt: 5, Channel: "discord", LastChannel: "telegram"},
		},
		{
			name: "legacy field does not override the new one",
			in:   `{"sessionId":"s1","updatedAt":5,"provider":"discord","channel":"slack"}`,
			want: session.Entry{SessionID: "s1", UpdatedAt: 5, Channel: "slack"},
		},
		{
			name: "unknown and ZERO-only fields are kept as extra",
			in:   `{"sessionId":"s1","updatedAt":5,"skillsSnapshot":{"a":[1,2]},"version":9,"sessionFile":"/x.jsonl"}`,
			want: session.Entry{SessionID: "s1", UpdatedAt: 5, Extra: map[string]json.RawMessage{
				"skillsSnapshot": json.RawMessage(`{"a":[1,2]}`), "version": json.RawMessage(`9`), "sessionFile": json.RawMessage(`"/x.jsonl"`),
			}},
		},
		{name: "no sessionId", in: `{"updatedAt":5}`, wantErr: "entry has no sessionId"},
		{name: "wrong type", in: `{"sessionId":"s1","updatedAt":"soon"}`, wantErr: "updatedAt"},
		{name: "not an object", in: `[1]`, wantErr: "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeEntry([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("entry (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEncodeEntry(t *testing.T) {
	tests := []struct {
		name string
		in   session.Entry
		want string
	}{
		{
			name: "ZERO bookkeeping and sessionFile left out, extra kept",
			in: session.Entry{SessionID: "s1", UpdatedAt: 5, AgentID: "main", TranscriptSeq: 3, LastEntryID: "ab", Version: 4,
				Extra: map[string]json.RawMessage{"skillsSnapshot": json.RawMessage(`{"a":1}`), "sessionFile": json.RawMessage(`"/x"`)}},
			want: `{"sessionId":"s1","skillsSnapshot":{"a":1},"updatedAt":5}`,
		},
		{
			name: "a known field wins over an extra of the same name",
			in:   session.Entry{SessionID: "s1", UpdatedAt: 5, Label: "real", Extra: map[string]json.RawMessage{"label": json.RawMessage(`"stale"`)}},
			want: `{"label":"real","sessionId":"s1","updatedAt":5}`,
		},
		{
			name: "no HTML escaping",
			in:   session.Entry{SessionID: "s1", Subject: "a<b>&c"},
			want: `{"sessionId":"s1","subject":"a<b>&c","updatedAt":0}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EncodeEntry(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("encoded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStoreRoundTrip(t *testing.T) {
	in := map[string]session.Entry{
		"agent:main:main": {SessionID: "s1", UpdatedAt: 5, Origin: session.Origin{Label: "Alice"},
			Extra: map[string]json.RawMessage{"skillsSnapshot": json.RawMessage(`{"a":[1,2]}`)}},
		"cron:x": {SessionID: "s2", UpdatedAt: 6},
	}
	var buf bytes.Buffer
	if err := WriteStore(&buf, in); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "{\n  \"agent:main:main\": {\n    \"origin\"") {
		t.Errorf("not 2-space JSON:\n%s", buf.String())
	}
	got, problems := DecodeStore("sessions.json", buf.Bytes())
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	out := map[string]session.Entry{}
	for _, se := range got {
		out[se.Key] = se.Entry
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestDecodeStoreProblems(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Problem
	}{
		{
			name: "syntax error with its line",
			in:   "{\n  \"a\": {sessionId: \"s\"},\n  \"b\": {,\n}",
			want: []Problem{{Path: "p.json", Line: 3, Err: "unexpected ','"}},
		},
		{name: "not an object", in: "[]", want: []Problem{{Path: "p.json", Line: 1, Err: "the store is not a JSON object"}}},
		{
			name: "bad entry reported with its line, good ones kept",
			in:   "{\n  \"a\": {sessionId: \"s\"},\n  \"b\": {updatedAt: 1},\n}",
			want: []Problem{{Path: "p.json", Line: 3, Key: "b", Err: "entry has no sessionId"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := DecodeStore("p.json", []byte(tt.in))
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b string) bool { return a == b || strings.Contains(a, b) || strings.Contains(b, a) })); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
