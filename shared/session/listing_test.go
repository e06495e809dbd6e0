package session_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
)

// lister serves listed per agent (as given: newest first) and reserved
// by key, failing with listErr or getErr when set; it records the limits
// List was asked for.
type lister struct {
	listed   map[string][]session.Listed
	reserved map[string]session.Entry
	listErr  error
	getErr   error
	mu       sync.Mutex
	limits   []int
}

func (l *lister) Get(_ context.Context, key string) (session.Entry, error) {
	if l.getErr != nil {
		return session.Entry{}, l.getErr
	}
	e, ok := l.reserved[key]
	if !ok {
		return session.Entry{}, fault.New(fault.NotFound, "no session %s", key)
	}
	return e, nil
}

func (l *lister) List(_ context.Context, q session.ListQuery) ([]session.Listed, error) {
	l.mu.Lock()
	l.limits = append(l.limits, q.Limit)
	l.mu.Unlock()
	if l.listErr != nil {
		return nil, l.listErr
	}
	var out []session.Listed
	for _, s := range l.listed[q.AgentID] {
		if s.Entry.UpdatedAt >= q.ActiveSince {
			out = append(out, s)
		}
	}
	return out, nil
}

func at(key string, updated, parts int64) session.Listed {
	return session.Listed{Key: key, Entry: session.Entry{AgentID: session.AgentOf(key), SessionID: "s-" + strings.ReplaceAll(key, ":", "-"), UpdatedAt: updated, TranscriptSeq: parts}}
}

// TestListSessions: one query for sessions.list and sessions_list: every
// agent's sessions and the reserved ones, newest first (ties in key
// order), filtered by kind and Keep, cut to Limit, with their messages.
func TestListSessions(t *testing.T) {
	store := &lister{
		listed: map[string][]session.Listed{
			"main": {at("agent:main:main", 50, 1), at("agent:main:telegram:group:-1", 40, 0), at("cron:b", 30, 0), at("cron:a", 30, 0), at("global", 99, 0)},
			"work": {at("agent:work:main", 45, 2)},
		},
		reserved: map[string]session.Entry{"global": {SessionID: "s-global", UpdatedAt: 60}},
	}
	read := func(_ context.Context, path string, parts int64, n int) ([]json.RawMessage, error) {
		return []json.RawMessage{json.RawMessage(`"` + path + `"`)}, nil
	}
	tests := []struct {
		name       string
		l          session.Listing
		want       []string
		wantLimits []int
	}{
		{name: "every agent, reserved from Get only, ties in key order", l: session.Listing{Agents: []string{"main", "work"}, Reserved: []string{"global", "unknown"}, Limit: 50},
			want:       []string{"global", "agent:main:main", "agent:work:main", "agent:main:telegram:group:-1", "cron:a", "cron:b"},
			wantLimits: []int{50, 50}},
		{name: "limit", l: session.Listing{Agents: []string{"main"}, Limit: 2}, want: []string{"agent:main:main", "agent:main:telegram:group:-1"}, wantLimits: []int{2}},
		{name: "kinds ask for the most", l: session.Listing{Agents: []string{"main"}, Kinds: []string{session.KindCron}, Limit: 1},
			want: []string{"cron:a"}, wantLimits: []int{session.MaxListLimit}},
		{name: "keep asks for the most", l: session.Listing{Agents: []string{"main", "work"}, Limit: 5, Keep: func(key string, _ session.Entry) bool { return strings.HasSuffix(key, ":main") }},
			want: []string{"agent:main:main", "agent:work:main"}, wantLimits: []int{session.MaxListLimit, session.MaxListLimit}},
		{name: "activeSince applies to reserved ones too", l: session.Listing{Agents: []string{"main"}, Reserved: []string{"global"}, ActiveSince: 45, Limit: 9},
			want: []string{"global", "agent:main:main"}, wantLimits: []int{9}},
		{name: "activeSince past the reserved one", l: session.Listing{Agents: []string{"main"}, Reserved: []string{"global"}, ActiveSince: 61, Limit: 9},
			want: []string{}, wantLimits: []int{9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store.limits = nil
			found, err := session.ListSessions(context.Background(), store, tt.l)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, f := range found {
				got = append(got, f.Key)
				if f.Messages != nil {
					t.Errorf("%s: messages %s without Messages", f.Key, f.Messages)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLimits, store.limits); diff != "" {
				t.Errorf("List limits (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("messages", func(t *testing.T) {
		found, err := session.ListSessions(context.Background(), store, session.Listing{Agents: []string{"work", "main"}, Limit: 3, Messages: 2, Read: read})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, f := range found {
			raw, _ := json.Marshal(f.Messages)
			got[f.Key] = string(raw)
		}
		want := map[string]string{"agent:main:main": `["agents/main/sessions/s-agent-main-main.jsonl"]`,
			"agent:work:main": `["agents/work/sessions/s-agent-work-main.jsonl"]`, "agent:main:telegram:group:-1": `[]`}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}
	})
}

// TestListSessionsErrors: the one error rule. A failed List or Get fails
// the listing (a missing reserved session does not); every transcript
// is read and the failures are joined; the fault codes stay readable.
func TestListSessionsErrors(t *testing.T) {
	down := fault.New(fault.Unavailable, "the table is down")
	listed := map[string][]session.Listed{"main": {at("agent:main:main", 50, 1), at("agent:main:x", 40, 1), at("agent:main:y", 30, 1)}}
	failing := func(_ context.Context, path string, _ int64, _ int) ([]json.RawMessage, error) {
		if strings.Contains(path, "-x") {
			return []json.RawMessage{}, nil
		}
		return nil, fault.New(fault.NotFound, "gone: %s", path)
	}
	tests := []struct {
		name     string
		store    *lister
		l        session.Listing
		wantCode fault.Code
		wantText []string
	}{
		{name: "a List fails", store: &lister{listErr: down}, l: session.Listing{Agents: []string{"main"}, Limit: 5},
			wantCode: fault.Unavailable, wantText: []string{`list the sessions of agent "main"`, "the table is down"}},
		{name: "a reserved Get fails", store: &lister{getErr: down}, l: session.Listing{Agents: []string{"main"}, Reserved: []string{"global"}, Limit: 5},
			wantCode: fault.Unavailable, wantText: []string{`read session "global"`}},
		{name: "messages without a reader", store: &lister{listed: listed}, l: session.Listing{Agents: []string{"main"}, Limit: 5, Messages: 1},
			wantCode: fault.Invalid, wantText: []string{"messageLimit cannot be served"}},
		{name: "failed reads joined", store: &lister{listed: listed}, l: session.Listing{Agents: []string{"main"}, Limit: 5, Messages: 1, Read: failing},
			wantCode: fault.NotFound, wantText: []string{"read the sessions' messages", "s-agent-main-main.jsonl: ", "s-agent-main-y.jsonl: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := session.ListSessions(context.Background(), tt.store, tt.l)
			if err == nil || fault.CodeOf(err) != tt.wantCode {
				t.Fatalf("err = %v (%v); want code %v", err, fault.CodeOf(err), tt.wantCode)
			}
			for _, w := range tt.wantText {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err %q lacks %q", err, w)
				}
			}
		})
	}
}
