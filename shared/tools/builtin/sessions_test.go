package builtin_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/chataction"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tool"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/builtin"
	"github.com/zero-gateway/zero/shared/tools/messaging"
)

// noSessions is a session store with none.
type noSessions struct{}

func (noSessions) Get(context.Context, string) (session.Entry, error) {
	return session.Entry{}, fault.New(fault.NotFound, "none")
}
func (noSessions) Lookup(context.Context, string) (string, session.Entry, error) {
	return "", session.Entry{}, fault.New(fault.NotFound, "none")
}
func (noSessions) List(context.Context, session.ListQuery) ([]session.Listed, error) { return nil, nil }

// nopIngress queues nothing.
type nopIngress struct{}

func (nopIngress) Queue(context.Context, inbound.Message) (string, error) { return "run-1", nil }

// nopMessenger supports every action and does nothing.
type nopMessenger struct{}

func (nopMessenger) Supports(string) bool { return true }
func (nopMessenger) Do(context.Context, chataction.Action) (chataction.Result, error) {
	return chataction.Result{}, nil
}

// TestSessionAndMessageToolsOffered: the session tools and message are
// built from what the run and the deployment have: session_status with
// the engine's /status report, sessions_list and sessions_history with a
// store that reads sessions, sessions_send with that and an ingest door,
// sessions_spawn with a door, message with channel messengers;
// sessions_yield and subagents with a door; agents_list always.
func TestSessionAndMessageToolsOffered(t *testing.T) {
	reads := builtin.Deps{Sessions: noSessions{}}
	tests := []struct {
		name         string
		deps         builtin.Deps
		status, door bool
		want         []string
	}{
		{name: "nothing", want: []string{"agents_list"}},
		{name: "a status report", status: true, want: []string{"session_status", "agents_list"}},
		{name: "a store that reads sessions", deps: reads, status: true,
			want: []string{"session_status", "sessions_list", "sessions_history", "agents_list"}},
		{name: "a door", door: true, want: []string{"sessions_spawn", "sessions_yield", "subagents", "agents_list"}},
		{name: "a store and a door", deps: reads, status: true, door: true,
			want: []string{"session_status", "sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "sessions_yield", "subagents", "agents_list"}},
		{name: "messengers", deps: builtin.Deps{Messengers: map[string]messaging.Messenger{"telegram": nopMessenger{}}},
			want: []string{"agents_list", "message"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := tools.Run{Config: config.Default(), AgentID: "main", Model: echo, Now: time.Now,
				Message: inbound.Message{ID: "m1", SessionKey: "agent:main:main", Channel: "telegram"}}
			if tt.status {
				run.Status = func(string, session.Entry, bool) string { return "ok" }
			}
			if tt.door {
				run.Ingress = nopIngress{}
			}
			names := []string{}
			for _, tl := range builtin.Registry(tt.deps).Build(run, tool.Decide(run.Config, tool.Request{Model: echo}).Allowed) {
				names = append(names, tl.Spec().Name)
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("offered (-want +got):\n%s", diff)
			}
		})
	}
}
