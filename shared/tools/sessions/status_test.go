package sessions_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/sessions"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
)

// statusConfig lists two models; the caller (telegram:7) is no owner.
const statusConfig = `{
	agents: {defaults: {models: {"zero/echo": {alias: "fast"}, "zero/big": {}}}},
	channels: {telegram: {allowFrom: ["*"], owners: ["99"]}},
}`

// statusRig is a rig with the main session, a group session of the same
// agent and a session of agent "work".
func statusRig(t *testing.T) *rig {
	r := newRig(t, statusConfig)
	r.seed(t, groupKey, session.Entry{AgentID: "main", Channel: "telegram", ChatType: inbound.Group, GroupID: "-100"})
	r.seed(t, workKey, session.Entry{AgentID: "work", Channel: "telegram", ChatType: inbound.Direct})
	return r
}

// report stands for the engine's /status report: the session and its
// model.
func report(key string, e session.Entry, current bool) string {
	m := "zero/echo (default)"
	if e.ModelOverride != "" {
		m = e.ProviderOverride + "/" + e.ModelOverride + " (set for this session)"
	}
	return "Session: " + key + "\nModel: " + m + "\nCurrent: " + map[bool]string{true: "yes", false: "no"}[current]
}

// override is a session's model override as "provider/model", "" for none.
func override(e session.Entry) string {
	if e.ModelOverride == "" {
		return ""
	}
	return e.ProviderOverride + "/" + e.ModelOverride
}

// TestSessionStatusTool: the report of this session or another of the
// agent, and the model change: another session's at once, this session's
// when the engine replays the successful call at commit (ChosenModel).
func TestSessionStatusTool(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(t *testing.T, r *rig)
		args      func(r *rig) string
		wantText  string            // in the tool result
		wantError bool              // the result is an error
		want      map[string]string // model overrides after the turn, by key
	}{
		{name: "this session by default", args: fixed(`{}`), wantText: "Session: agent:main:main\nModel: zero/echo (default)\nCurrent: yes",
			want: map[string]string{mainKey: "", groupKey: ""}},
		{name: "this session's model by alias", args: fixed(`{"model": "fast"}`), wantText: "Model set to zero/echo",
			want: map[string]string{mainKey: "zero/echo", groupKey: ""}},
		{name: "main names this session", args: fixed(`{"sessionKey": "main", "model": "zero/big"}`), wantText: "Model: zero/big (set for this session)",
			want: map[string]string{mainKey: "zero/big"}},
		{name: "default clears the override", setup: setOverride(mainKey, "zero", "big"), args: fixed(`{"model": "default"}`),
			wantText: "Model override cleared", want: map[string]string{mainKey: ""}},
		{name: "a model the config does not list is refused", args: fixed(`{"model": "zero/other"}`), wantError: true,
			wantText: "not one the configuration lists", want: map[string]string{mainKey: ""}},
		{name: "another session of this agent", args: fixed(`{"sessionKey": "` + groupKey + `"}`), wantText: "Session: " + groupKey + "\nModel: zero/echo (default)\nCurrent: no",
			want: map[string]string{groupKey: ""}},
		{name: "another session's model", args: fixed(`{"sessionKey": "` + groupKey + `", "model": "zero/big"}`), wantText: "Model: zero/big (set for this session)",
			want: map[string]string{mainKey: "", groupKey: "zero/big"}},
		{name: "another session by sessionId", args: func(r *rig) string {
			return `{"sessionKey": "` + r.entry(t, groupKey).SessionID + `", "model": "default"}`
		},
			setup: setOverride(groupKey, "zero", "big"), wantText: "Session: " + groupKey, want: map[string]string{groupKey: ""}},
		{name: "another agent's session is not visible", args: fixed(`{"sessionKey": "` + workKey + `", "model": "fast"}`), wantError: true,
			wantText: `belongs to agent "work"`, want: map[string]string{workKey: ""}},
		{name: "a missing session", args: fixed(`{"sessionKey": "agent:main:telegram:group:-999"}`), wantError: true, wantText: "no session",
			want: map[string]string{mainKey: ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := statusRig(t)
			if tt.setup != nil {
				tt.setup(t, r)
			}
			run := r.run(t)
			run.Status = report
			args := tt.args(r)
			result := tooltest.Call(t, sessions.NewStatusTool(run, r.store), args)
			if result.IsError != tt.wantError || !strings.Contains(result.Content, tt.wantText) {
				t.Fatalf("tool result %+v; want error %v containing %q", result, tt.wantError, tt.wantText)
			}
			got := map[string]string{}
			for key := range tt.want {
				e := r.entry(t, key)
				if ref, ok := sessions.ChosenModel(run.Config, run.Message, e, args); ok && key == mainKey && !result.IsError {
					e.ProviderOverride, e.ModelOverride = ref.Provider, ref.Name // the engine's replay at commit
				}
				got[key] = override(e)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("model overrides (-want +got):\n%s", diff)
			}
		})
	}
}

func fixed(args string) func(*rig) string { return func(*rig) string { return args } }

func setOverride(key, provider, name string) func(t *testing.T, r *rig) {
	return func(t *testing.T, r *rig) {
		if _, err := r.store.Update(context.Background(), key, func(e *session.Entry) error {
			e.ProviderOverride, e.ModelOverride = provider, name
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSessionStatusWithoutUpdates: a store that cannot patch sessions
// leaves session_status to the run's own session.
func TestSessionStatusWithoutUpdates(t *testing.T) {
	r := statusRig(t)
	run := r.run(t)
	run.Status = report
	tl := sessions.NewStatusTool(run, nil)
	if res := tooltest.Call(t, tl, `{"sessionKey": "`+groupKey+`"}`); !res.IsError || !strings.Contains(res.Content, "sees only this session") {
		t.Errorf("another session: %+v; want the error", res)
	}
	if res := tooltest.Call(t, tl, `{}`); res.IsError {
		t.Errorf("this session: %s", res.Content)
	}
}

// TestChosenModel: the replay of a recorded call names this session (no
// key, its sessionId, "main" or its key) with a model that resolves; an
// owner may name any provider/model.
func TestChosenModel(t *testing.T) {
	r := statusRig(t)
	e := r.entry(t, mainKey)
	tests := []struct {
		name, args string
		from       string // the caller's sender; default telegram:7
		want       *model.Ref
	}{
		{name: "an alias", args: `{"model": "fast"}`, want: &model.Ref{Provider: "zero", Name: "echo"}},
		{name: "by sessionId", args: `{"sessionKey": "s-caller", "model": "zero/big"}`, want: &model.Ref{Provider: "zero", Name: "big"}},
		{name: "default clears", args: `{"sessionKey": "main", "model": "default"}`, want: &model.Ref{}},
		{name: "no model", args: `{}`},
		{name: "another session", args: `{"sessionKey": "` + groupKey + `", "model": "fast"}`},
		{name: "not listed", args: `{"model": "zero/other"}`},
		{name: "not listed, an owner", args: `{"model": "zero/other"}`, from: "telegram:99", want: &model.Ref{Provider: "zero", Name: "other"}},
		{name: "not JSON", args: `{`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caller := r.caller
			if tt.from != "" {
				caller.From = tt.from
			}
			ref, ok := sessions.ChosenModel(r.cfg, caller, e, tt.args)
			var got *model.Ref
			if ok {
				got = &ref
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("chosen (-want +got):\n%s", diff)
			}
		})
	}
}

var _ tools.StatusReport = report
