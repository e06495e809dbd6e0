package run_test

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/zero-gateway/zero/shared/run"
)

func TestNewID(t *testing.T) {
	format := regexp.MustCompile(`^run_[0-9a-f]{20}$`)
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"a retried message keeps its run id", "telegram:1:100", "telegram:1:100", true},
		{"another message gets another id", "telegram:1:100", "telegram:1:101", false},
		{"runs without a message get random ids", "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := run.NewID(tc.a), run.NewID(tc.b)
			if !format.MatchString(a) || !format.MatchString(b) {
				t.Fatalf("ids %q, %q do not match %s", a, b, format)
			}
			if (a == b) != tc.same {
				t.Fatalf("NewID(%q) = %s, NewID(%q) = %s; same = %v, want %v", tc.a, a, tc.b, b, a == b, tc.same)
			}
		})
	}
	// Pinned: a turn retried across a deploy must find its run again.
	if got, want := run.NewID("telegram:1:100"), "run_b81b936f569f75ed94f8"; got != want {
		t.Fatalf("NewID(telegram:1:100) = %s; want %s: the derivation changed", got, want)
	}
}

func TestTerminal(t *testing.T) {
	for status, want := range map[string]bool{
		run.StatusRunning: false, "": false, "done": false,
		run.StatusOK: true, run.StatusError: true, run.StatusTimeout: true, run.StatusAborted: true,
	} {
		if got := run.Terminal(status); got != want {
			t.Errorf("Terminal(%q) = %v; want %v", status, got, want)
		}
	}
}

func TestClampLimit(t *testing.T) {
	for limit, want := range map[int]int{-1: run.DefaultLimit, 0: run.DefaultLimit, 1: 1, 500: 500, run.MaxLimit + 1: run.MaxLimit} {
		if got := run.ClampLimit(limit); got != want {
			t.Errorf("ClampLimit(%d) = %d; want %d", limit, got, want)
		}
	}
}

// The JSON shapes are what a CLI or UI reads: lowerCamel, as upstream.
func TestJSONShape(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"running record", run.Record{RunID: "run_1", SessionKey: "agent:main:main", SessionID: "s", MessageID: "m", Status: run.StatusRunning, StartedAt: 5, Model: "zero/echo"},
			`{"runId":"run_1","sessionKey":"agent:main:main","sessionId":"s","messageId":"m","status":"running","startedAt":5,"model":"zero/echo"}`},
		{"finished record", run.Record{RunID: "run_1", Status: run.StatusError, StartedAt: 5, EndedAt: 9, Error: "boom", Usage: run.Usage{Input: 1, Output: 2, Total: 3}},
			`{"runId":"run_1","status":"error","startedAt":5,"endedAt":9,"error":"boom","usage":{"input":1,"output":2,"total":3}}`},
		{"event", run.Event{RunID: "run_1", Seq: 1, Stream: run.StreamLifecycle, TS: 5, Data: json.RawMessage(`{"phase":"start"}`)},
			`{"runId":"run_1","seq":1,"stream":"lifecycle","ts":5,"data":{"phase":"start"}}`},
		{"event without data", run.Event{RunID: "run_1", Seq: 2, Stream: run.StreamCompaction, TS: 6},
			`{"runId":"run_1","seq":2,"stream":"compaction","ts":6}`},
		{"wait result", run.Result{Status: run.StatusOK, StartedAt: 5, EndedAt: 9},
			`{"status":"ok","startedAt":5,"endedAt":9}`},
	}
	for _, tc := range tests {
		b, err := json.Marshal(tc.v)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: %s, %v\nwant %s", tc.name, b, err, tc.want)
		}
	}
}
