package turn_test

// What a run's recorded tool calls change at commit (recorded.go):
// session_status's model change, the message tool's reply already sent;
// and how the engine offers message and reports the policy's warnings.

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/chataction"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools/messaging"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
)

const (
	groupKey = "agent:main:telegram:group:-100"
	workKey  = "agent:work:main"
)

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

func TestMessageToolOffered(t *testing.T) {
	tests := []struct {
		name       string
		config     string
		messengers bool
		want       bool
	}{
		{name: "offered with messengers", config: rigConfig, messengers: true, want: true},
		{name: "no messengers", config: rigConfig},
		{name: "group:messaging denied", config: `{tools: {deny: ["group:messaging"]}}`, messengers: true},
		{name: "message denied for the agent's provider", config: `{tools: {byProvider: {zero: {deny: ["message"]}}}}`, messengers: true},
		{name: "messaging profile", config: `{tools: {profile: "messaging"}}`, messengers: true, want: true},
		{name: "minimal profile", config: `{tools: {profile: "minimal"}}`, messengers: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(tt.config)
			if tt.messengers {
				r.proc.Tools.Messengers = map[string]messaging.Messenger{"telegram": &tooltest.Messenger{}}
			}
			llm := &scriptModel{answers: []model.Response{final("ok")}}
			r.proc.Models["zero"] = llm
			r.handle(t, msg(1, "hi"))
			names := toolNames(llm.seen[0].Tools)
			if got := slices.Contains(names, "message"); got != tt.want {
				t.Errorf("message offered %v, want %v (%v)", got, tt.want, names)
			}
		})
	}
}

func TestMessageDuplicateSuppression(t *testing.T) {
	tests := []struct {
		name     string
		config   string
		args     string
		err      error
		reply    string
		wantSent []string
	}{
		{name: "same text is not sent again", args: `{"action":"send","text":"Booked for 8pm."}`, reply: "  Booked for 8pm.\n"},
		{name: "different text is sent", args: `{"action":"send","text":"Booked for 8pm."}`, reply: "All set.", wantSent: []string{"All set."}},
		{name: "a failed send does not count", args: `{"action":"send","text":"Booked."}`, err: fault.New(fault.Unavailable, "down"),
			reply: "Booked.", wantSent: []string{"Booked."}},
		{name: "a send to another chat does not count", config: `{tools: {message: {crossContext: true}}}`,
			args: `{"action":"send","target":"8","text":"Booked."}`, reply: "Booked.", wantSent: []string{"Booked."}},
		{name: "an edit does not count", args: `{"action":"edit","messageId":"3","text":"Booked."}`, reply: "Booked.", wantSent: []string{"Booked."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			if tt.config != "" {
				r.settings.set(tt.config)
			}
			r.proc.Tools.Messengers = map[string]messaging.Messenger{"telegram": &tooltest.Messenger{Res: chataction.Result{Did: "ok", MessageIDs: []string{"1"}}, Err: tt.err}}
			call := model.Response{StopReason: model.StopToolUse, ToolCalls: []model.ToolCall{{ID: "c1", Name: "message", Arguments: tt.args}}}
			r.proc.Models["zero"] = &scriptModel{answers: []model.Response{call, final(tt.reply)}}
			r.handle(t, msg(1, "book it"))
			var got []string
			for _, s := range r.sender.Sent {
				got = append(got, s.Text)
			}
			if diff := cmp.Diff(tt.wantSent, got); diff != "" {
				t.Errorf("replies sent (-want +got):\n%s", diff)
			}
			if snap, _ := r.store.Load(context.Background(), "agent:main:main", msg(1, "").ID); snap.Receipt == nil || snap.Receipt.State != receipt.Done {
				t.Errorf("record %+v; want the turn done", snap.Receipt)
			}
		})
	}
}
