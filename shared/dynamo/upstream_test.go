package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
)

func TestPutImported(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, freshTable(t))
	const key = "agent:main:main"
	e := session.Entry{SessionID: "s1", UpdatedAt: 10, AgentID: "main", TranscriptSeq: 1, LastEntryID: "ab", Version: 1,
		Extra: map[string]json.RawMessage{"skillsSnapshot": json.RawMessage(`{"a":[1,"x"]}`), "n": json.RawMessage(`7`)}}
	c := sessionstate.ModelContext{SessionID: "s1", Messages: []model.Message{{Role: model.User, Content: "hi", EntryID: "ab"}}}
	tests := []struct {
		name    string
		prev    *session.Entry
		e       session.Entry
		wantErr fault.Code
	}{
		{name: "new key", e: e},
		{name: "absent expected but present", e: e, wantErr: fault.Conflict},
		{name: "wrong version", prev: &session.Entry{Version: 5}, e: session.Entry{SessionID: "s1", Version: 6}, wantErr: fault.Conflict},
		{name: "version not one up", prev: &e, e: e, wantErr: fault.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.PutImported(ctx, key, tt.prev, tt.e, c)
			if tt.wantErr != "" {
				if !fault.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
	got, err := s.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(e, got); diff != "" {
		t.Errorf("entry with extra fields (-want +got):\n%s", diff)
	}
	snap, err := s.Load(ctx, key, "m1")
	if err != nil || snap.Context == nil {
		t.Fatalf("Load: %v, context %v", err, snap.Context)
	}
	if diff := cmp.Diff(c, *snap.Context); diff != "" {
		t.Errorf("context (-want +got):\n%s", diff)
	}
	// An Update by the runner's side keeps the extra fields.
	updated, err := s.Update(ctx, key, func(e *session.Entry) error { e.Label = "x"; return nil })
	if err != nil || string(updated.Extra["n"]) != "7" {
		t.Errorf("Update: %v, extra %v", err, updated.Extra)
	}
}

func TestEntries(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, freshTable(t))
	const n = 7
	for i := range n {
		e := session.Entry{SessionID: fmt.Sprintf("s%d", i), UpdatedAt: int64(100 + i), AgentID: "main", Version: 1}
		if err := s.PutImported(ctx, fmt.Sprintf("cron:job%d", i), nil, e, sessionstate.ModelContext{SessionID: e.SessionID}); err != nil {
			t.Fatal(err)
		}
	}
	other := session.Entry{SessionID: "o", UpdatedAt: 500, AgentID: "other", Version: 1}
	if err := s.PutImported(ctx, "agent:other:main", nil, other, sessionstate.ModelContext{SessionID: "o"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		since int64
		want  []string
	}{
		{name: "all, newest first", want: []string{"cron:job6", "cron:job5", "cron:job4", "cron:job3", "cron:job2", "cron:job1", "cron:job0"}},
		{name: "since", since: 105, want: []string{"cron:job6", "cron:job5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			eventually(t, func() error {
				got = nil
				err := s.Entries(ctx, "main", tt.since, func(key string, _ session.Entry) error {
					got = append(got, key)
					return nil
				})
				if err == nil && len(got) != len(tt.want) {
					return fmt.Errorf("%d rows, want %d", len(got), len(tt.want))
				}
				return err
			})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
		})
	}
}
