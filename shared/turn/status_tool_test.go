package turn_test

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

const (
	groupKey = "agent:main:telegram:group:-100"
	workKey  = "agent:work:main"
)

// statusRig is a rig whose store serves other sessions (turn.Sessions),
// with the main session, a group session of the same agent and a session
// of agent "work" already there. Its sender (telegram:7) is no owner.
func statusRig(t *testing.T) *rig {
	r := newRig()
	r.proc.Store = r.store
	r.settings.set(`{
		agents: {defaults: {models: {"zero/echo": {alias: "fast"}, "zero/big": {}}}},
		channels: {telegram: {allowFrom: ["*"], owners: ["99"]}},
	}`)
	r.handle(t, msg(1, "hi"))
	group := msg(2, "hi all")
	group.SessionKey, group.ChatType, group.GroupID, group.To = groupKey, inbound.Group, "-100", "-100"
	r.handle(t, group)
	work := msg(3, "hi work")
	work.SessionKey, work.AgentID = workKey, "work"
	r.handle(t, work)
	return r
}

func statusCallWith(args string) model.Response {
	return model.Response{StopReason: model.StopToolUse, ToolCalls: []model.ToolCall{{ID: "call-1", Name: "session_status", Arguments: args}}}
}

// override is a session's model override as "provider/model", "" for none.
func override(e *session.Entry) string {
	if e == nil || e.ModelOverride == "" {
		return ""
	}
	return e.ProviderOverride + "/" + e.ModelOverride
}

func TestSessionStatusTool(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(t *testing.T, r *rig)
		args      func(r *rig) string
		wantText  string            // in the tool result
		wantError bool              // the result is an error
		want      map[string]string // model overrides after the turn, by key
	}{
		{name: "this session by default", args: fixed(`{}`), wantText: "Session: agent:main:main",
			want: map[string]string{"agent:main:main": "", groupKey: ""}},
		{name: "this session's model by alias", args: fixed(`{"model": "fast"}`), wantText: "Model set to zero/echo",
			want: map[string]string{"agent:main:main": "zero/echo", groupKey: ""}},
		{name: "main names this session", args: fixed(`{"sessionKey": "main", "model": "zero/big"}`), wantText: "Model: zero/big (set for this session)",
			want: map[string]string{"agent:main:main": "zero/big"}},
		{name: "default clears the override", setup: setOverride("agent:main:main", "zero", "big"), args: fixed(`{"model": "default"}`),
			wantText: "Model override cleared", want: map[string]string{"agent:main:main": ""}},
		{name: "a model the config does not list is refused", args: fixed(`{"model": "zero/other"}`), wantError: true,
			wantText: "not one the configuration lists", want: map[string]string{"agent:main:main": ""}},
		{name: "another session of this agent", args: fixed(`{"sessionKey": "` + groupKey + `"}`), wantText: "Session: " + groupKey,
			want: map[string]string{groupKey: ""}},
		{name: "another session's model", args: fixed(`{"sessionKey": "` + groupKey + `", "model": "zero/big"}`), wantText: "Model: zero/big (set for this session)",
			want: map[string]string{"agent:main:main": "", groupKey: "zero/big"}},
		{name: "another session by sessionId", args: func(r *rig) string {
			return `{"sessionKey": "` + r.entry(t, groupKey).SessionID + `", "model": "default"}`
		},
			setup: setOverride(groupKey, "zero", "big"), wantText: "Session: " + groupKey, want: map[string]string{groupKey: ""}},
		{name: "another agent's session is not visible", args: fixed(`{"sessionKey": "` + workKey + `", "model": "fast"}`), wantError: true,
			wantText: `belongs to agent "work"`, want: map[string]string{workKey: ""}},
		{name: "a missing session", args: fixed(`{"sessionKey": "agent:main:telegram:group:-999"}`), wantError: true, wantText: "no session",
			want: map[string]string{"agent:main:main": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := statusRig(t)
			if tt.setup != nil {
				tt.setup(t, r)
			}
			llm := &scriptModel{answers: []model.Response{statusCallWith(tt.args(r)), final("ok")}}
			r.proc.Models["zero"] = llm
			r.handle(t, msg(4, "status?"))
			msgs := llm.seen[1].Messages
			result := msgs[len(msgs)-1]
			if result.Role != model.ToolResult || result.IsError != tt.wantError || !strings.Contains(result.Content, tt.wantText) {
				t.Fatalf("tool result %+v; want error %v containing %q", result, tt.wantError, tt.wantText)
			}
			got := map[string]string{}
			for key := range tt.want {
				got[key] = override(r.entry(t, key))
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

// TestSessionStatusModelSurvivesARetry: the turn's own model change rides
// in the recorded run, so a retry that adopts the run (no second model
// call) changes the entry too; the next turn runs on the chosen model.
func TestSessionStatusModelSurvivesARetry(t *testing.T) {
	r := newRig()
	r.settings.set(`{agents: {defaults: {models: {"other/big": {alias: "big"}}}}, channels: {telegram: {allowFrom: ["*"]}}}`)
	llm := &scriptModel{answers: []model.Response{statusCallWith(`{"model": "big"}`), final("switched")}}
	r.proc.Models["zero"] = llm
	other := &scriptModel{answers: []model.Response{final("from the big model")}}
	r.proc.Models["other"] = other
	r.crash.CommitBefore = 1
	m := msg(1, "use the big model")
	if err := r.proc.Handle(context.Background(), m, 1); err == nil {
		t.Fatal("crash not injected")
	}
	if err := r.proc.Handle(context.Background(), m, 2); err != nil {
		t.Fatal(err)
	}
	if got := override(r.entry(t, "agent:main:main")); got != "other/big" || len(llm.seen) != 2 {
		t.Fatalf("override %q after %d model calls; want other/big with the run adopted", got, len(llm.seen))
	}
	r.handle(t, msg(2, "hello"))
	if got := r.lastSent(t); got != "from the big model" {
		t.Fatalf("next reply %q; want it from the chosen model", got)
	}
}

// TestToolPolicyWarningsReachTheRunLog: an allowlist naming only unknown
// tools is ignored with a warning, and the warning is in the runner's log.
func TestToolPolicyWarningsReachTheRunLog(t *testing.T) {
	r := newRig()
	var logs bytes.Buffer
	r.proc.Log = slog.New(slog.NewTextHandler(&logs, nil))
	r.settings.set(`{tools: {allow: ["slack"]}, channels: {telegram: {allowFrom: ["*"]}}}`)
	llm := &scriptModel{answers: []model.Response{final("ok")}}
	r.proc.Models["zero"] = llm
	r.handle(t, msg(1, "hi"))
	if want := `tools.allow names only unknown tools (\"slack\"): ignored`; !strings.Contains(logs.String(), want) {
		t.Fatalf("log lacks %q:\n%s", want, logs.String())
	}
	if !strings.Contains(logs.String(), "level=WARN") || !slices.Contains(toolNames(llm.seen[0].Tools), "session_status") {
		t.Fatalf("want a warning and session_status still offered; tools %+v, log:\n%s", llm.seen[0].Tools, logs.String())
	}
}
