package turn

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/stopmark"
)

func TestPlanTurn(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	cfg, err := config.Parse([]byte(`{session: {reset: {mode: "idle", idleMinutes: 60}}, agents: {defaults: {models: {"openai/gpt-4o": {alias: "fast"}, "anthropic/claude-opus-4": {}}}}, channels: {telegram: {owners: ["9"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	fresh := &session.Entry{SessionID: "s1", UpdatedAt: now.Add(-time.Minute).UnixMilli()}
	stale := &session.Entry{SessionID: "s1", UpdatedAt: now.Add(-2 * time.Hour).UnixMilli()}
	msgOf := func(text string) inbound.Message {
		return inbound.Message{ID: "m1", AgentID: "main", SessionKey: "agent:main:main", Channel: "telegram", ChatType: inbound.Direct, To: "7", Text: text}
	}
	fromOwner := func(text string) inbound.Message { m := msgOf(text); m.From = "9"; return m }
	newCmd := func(rest string) command { return command{name: "/new", rest: rest, reset: true} }
	otherStop := &stopmark.Mark{MessageID: "stop-1", At: now.UnixMilli() - 1000, Pending: true}
	ownInterrupt := &stopmark.Mark{MessageID: "m1", At: now.UnixMilli() - 1000, Pending: true}
	tests := []struct {
		name string
		snap sessionstate.Snapshot
		msg  inbound.Message
		want Plan
	}{
		{"a done record is a duplicate", sessionstate.Snapshot{Entry: fresh, Receipt: &receipt.Receipt{State: receipt.Done}}, msgOf("hi"), Plan{Step: StepDuplicate}},
		{"a committed record resumes delivery", sessionstate.Snapshot{Entry: fresh, Receipt: &receipt.Receipt{State: receipt.Committed}}, msgOf("hi"), Plan{Step: StepResume}},
		{"a migration", sessionstate.Snapshot{Entry: fresh}, inbound.Message{ID: "m1", Kind: inbound.KindMigrate}, Plan{Step: StepMigrate}},
		{"queued behind a pending /stop", sessionstate.Snapshot{Entry: fresh, Stop: otherStop}, msgOf("hi"), Plan{Step: StepDropStopped}},
		{"plain text runs", sessionstate.Snapshot{Entry: fresh}, msgOf("hi"), Plan{Step: StepRun, Prompt: "hi"}},
		{"a new key starts a session", sessionstate.Snapshot{}, msgOf("hi"), Plan{Step: StepRun, Prompt: "hi", Reset: ResetNewKey}},
		{"an idle session starts afresh", sessionstate.Snapshot{Entry: stale}, msgOf("hi"), Plan{Step: StepRun, Prompt: "hi", Reset: ResetStale}},
		{"a reset trigger with text", sessionstate.Snapshot{Entry: fresh}, msgOf("/new tell me a joke"),
			Plan{Step: StepRun, Prompt: "tell me a joke", Reset: ResetCommand, Command: command{name: "/new", rest: "tell me a joke", reset: true}}},
		{"a reset naming a model", sessionstate.Snapshot{Entry: fresh}, msgOf("/reset fast hello"),
			Plan{Step: StepRun, Prompt: "hello", Reset: ResetCommand, Model: model.Ref{Provider: "openai", Name: "gpt-4o"}, Command: command{name: "/reset", rest: "fast hello", reset: true}}},
		{"a reset alone greets", sessionstate.Snapshot{Entry: fresh}, msgOf("/new"),
			Plan{Step: StepRun, Prompt: greetingPrompt, Reset: ResetCommand, Command: command{name: "/new", reset: true}}},
		{"a reset naming a listed model", sessionstate.Snapshot{Entry: fresh}, msgOf("/new anthropic/claude-opus-4 hi"),
			Plan{Step: StepRun, Prompt: "hi", Reset: ResetCommand, Model: model.Ref{Provider: "anthropic", Name: "claude-opus-4"}, Command: newCmd("anthropic/claude-opus-4 hi")}},
		{"a reset naming a model alone greets with it", sessionstate.Snapshot{Entry: fresh}, msgOf("/new fast"),
			Plan{Step: StepRun, Prompt: greetingPrompt, Reset: ResetCommand, Model: model.Ref{Provider: "openai", Name: "gpt-4o"}, Command: newCmd("fast")}},
		{"a fraction is the start of the message", sessionstate.Snapshot{Entry: fresh}, msgOf("/new 1/2 cup of flour"),
			Plan{Step: StepRun, Prompt: "1/2 cup of flour", Reset: ResetCommand, Command: newCmd("1/2 cup of flour")}},
		{"a fraction is text for an owner too", sessionstate.Snapshot{Entry: fresh}, fromOwner("/new 1/2 cup of flour"),
			Plan{Step: StepRun, Prompt: "1/2 cup of flour", Reset: ResetCommand, Command: newCmd("1/2 cup of flour")}},
		{"an unlisted model is text for a non-owner", sessionstate.Snapshot{Entry: fresh}, msgOf("/new openai/gpt-4.1 hi"),
			Plan{Step: StepRun, Prompt: "openai/gpt-4.1 hi", Reset: ResetCommand, Command: newCmd("openai/gpt-4.1 hi")}},
		{"an owner may name an unlisted model", sessionstate.Snapshot{Entry: fresh}, fromOwner("/new openai/gpt-4.1 hi"),
			Plan{Step: StepRun, Prompt: "hi", Reset: ResetCommand, Model: model.Ref{Provider: "openai", Name: "gpt-4.1"}, Command: newCmd("openai/gpt-4.1 hi")}},
		{"a word that only resembles a provider is text", sessionstate.Snapshot{Entry: fresh}, msgOf("/new open the window"),
			Plan{Step: StepRun, Prompt: "open the window", Reset: ResetCommand, Command: newCmd("open the window")}},
		{"a model on its own line", sessionstate.Snapshot{Entry: fresh}, msgOf("/new fast\nhello"),
			Plan{Step: StepRun, Prompt: "hello", Reset: ResetCommand, Model: model.Ref{Provider: "openai", Name: "gpt-4o"}, Command: newCmd("fast\nhello")}},
		{"a command", sessionstate.Snapshot{Entry: fresh}, msgOf("/status"), Plan{Step: StepCommand, Prompt: "/status", Command: command{name: "/status"}}},
		{"a command in a stale session still resets it", sessionstate.Snapshot{Entry: stale}, msgOf("/status"),
			Plan{Step: StepCommand, Prompt: "/status", Reset: ResetStale, Command: command{name: "/status"}}},
		{"compact", sessionstate.Snapshot{Entry: fresh}, msgOf("/compact keep names"),
			Plan{Step: StepCompact, Prompt: "/compact keep names", Command: command{name: "/compact", rest: "keep names"}}},
		{"the interrupting message clears its mark", sessionstate.Snapshot{Entry: fresh, Stop: ownInterrupt}, msgOf("hi"),
			Plan{Step: StepRun, Prompt: "hi", ClearInterrupt: true}},
		{"a /stop keeps its own mark for its answer", sessionstate.Snapshot{Entry: fresh, Stop: ownInterrupt}, msgOf("/stop"),
			Plan{Step: StepCommand, Prompt: "/stop", Command: command{name: "/stop"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PlanTurn(tt.snap, tt.msg, cfg, now)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(command{}), cmpopts.IgnoreFields(command{}, "spec")); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
			if again := PlanTurn(tt.snap, tt.msg, cfg, now); !cmp.Equal(got, again, cmp.AllowUnexported(command{}), cmpopts.IgnoreFields(command{}, "spec")) {
				t.Errorf("a retry planned differently: %+v then %+v", got, again)
			}
		})
	}
}

// TestResetCronOnlyForFiredMessages: a cron session starts afresh for a
// job's run only; a sessions_send, a reply-back round, a chat.send or a
// webhook into the same session continues its history.
func TestResetCronOnlyForFiredMessages(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	cfg := config.Default()
	const key = "agent:main:cron:digest"
	job := cron.Job{ID: "digest", Name: "digest", AgentID: "main", SessionTarget: cron.TargetIsolated, Payload: cron.Payload{Message: "summarise"}}
	p := &Processor{Now: func() time.Time { return now }}
	caller := inbound.Message{ID: "telegram:42:1", AgentID: "main", SessionKey: "agent:main:main", Channel: "telegram"}
	// sessions_send's first round, as shared/tools/sessions queues it.
	send := inbound.Message{ID: "a2a:0", AgentID: "main", SessionKey: key, Channel: inbound.Internal, ChatType: inbound.Direct,
		To: inbound.FlowTo, Text: "what did you find?", ReceivedAt: now.UnixMilli(),
		Flow: &inbound.Flow{Kind: inbound.FlowSend, ID: "a2a:0", Round: 1, MaxTurns: 5, Requester: caller.SessionKey, RequesterAgent: "main",
			RequesterChannel: caller.Channel, Target: key, TargetAgent: "main", Request: "what did you find?"}}
	round := p.flowMessage(inbound.Flow{Kind: inbound.FlowReply, ID: "a2a:1", Round: 2, Requester: caller.SessionKey, Target: key}, key, "main", "and then?")
	chat := inbound.Message{ID: "api:k1", AgentID: "main", SessionKey: key, Channel: inbound.Internal, ChatType: inbound.Direct, To: "api", Text: "more detail"}
	hook := inbound.Message{ID: "hook:agent:1", AgentID: "main", SessionKey: key, Channel: inbound.Internal, ChatType: inbound.Direct, To: "hook", From: "hook", Text: "event"}
	delivered := job
	delivered.Payload.Deliver, delivered.Payload.Channel, delivered.Payload.To = true, "telegram", "7"
	impostor := chat
	impostor.ID = "cron:digest:forged" // an id alone does not make a fire
	mainFire := job
	mainFire.SessionTarget, mainFire.Payload.Text = cron.TargetMain, "tick"
	fresh := &session.Entry{SessionID: "s1", UpdatedAt: now.Add(-time.Minute).UnixMilli()}
	tests := []struct {
		name string
		msg  inbound.Message
		want ResetReason
	}{
		{"a scheduled fire", cron.Message(job, cfg, "1764072000000", now), ResetCron},
		{"cron.run", cron.Message(job, cfg, "manual-x1", now), ResetCron},
		{"a fire delivered to a chat", cron.Message(delivered, cfg, "1764072000000", now), ResetCron},
		{"sessions_send", send, ResetNone},
		{"an agent-to-agent reply-back round", round, ResetNone},
		{"chat.send", chat, ResetNone},
		{"a webhook agent message", hook, ResetNone},
		{"a forged cron id", impostor, ResetNone},
		{"a main-session job's fire", cron.Message(mainFire, cfg, "1764072000000", now), ResetNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PlanTurn(sessionstate.Snapshot{Entry: fresh}, tt.msg, cfg, now)
			if diff := cmp.Diff(tt.want, got.Reset); diff != "" {
				t.Errorf("reset of %s in %s (-want +got):\n%s", tt.msg.ID, tt.msg.SessionKey, diff)
			}
		})
	}
}
