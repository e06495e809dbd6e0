package turn_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/transcript"
)

// handle runs m to completion on its first delivery.
func (r *rig) handle(t *testing.T, m inbound.Message) {
	t.Helper()
	if err := r.proc.Handle(context.Background(), m, 1); err != nil {
		t.Fatalf("Handle(%s %q): %v", m.ID, m.Text, err)
	}
}

// entry returns the stored entry of key, or nil.
func (r *rig) entry(t testing.TB, key string) *session.Entry {
	t.Helper()
	snap, err := r.store.Load(context.Background(), key, "-")
	if err != nil {
		t.Fatal(err)
	}
	return snap.Entry
}

// lastSent is the text of the newest delivered message.
func (r *rig) lastSent(t *testing.T) string {
	t.Helper()
	if len(r.sender.Sent) == 0 {
		t.Fatal("nothing was sent")
	}
	return r.sender.Sent[len(r.sender.Sent)-1].Text
}

func TestLifecycleResets(t *testing.T) {
	tests := []struct {
		name    string
		session string        // the session.* object of zero.json
		advance time.Duration // between the two messages
		wantNew bool
	}{
		{"daily: same day keeps the session", `{}`, 10 * time.Hour, false},
		{"daily: past 4 AM the next day starts a new one", `{}`, 17 * time.Hour, true},
		{"daily at another hour", `{reset: {atHour: 13}}`, 2 * time.Hour, true},
		{"daily in the gateway's time zone", `{timeZone: "America/Sao_Paulo", reset: {atHour: 10}}`, 2 * time.Hour, true},
		{"idle window not yet passed", `{reset: {mode: "idle", idleMinutes: 30}}`, 29 * time.Minute, false},
		{"idle window passed", `{reset: {mode: "idle", idleMinutes: 30}}`, 31 * time.Minute, true},
		{"legacy idle-only", `{idleMinutes: 30}`, 31 * time.Minute, true},
		{"legacy idle-only ignores the daily hour", `{idleMinutes: 3000}`, 20 * time.Hour, false},
		{"daily and idle: idle expires first", `{reset: {mode: "daily", idleMinutes: 60}}`, 61 * time.Minute, true},
		{"per-type override for direct chats", `{resetByType: {dm: {mode: "idle", idleMinutes: 5}}}`, 6 * time.Minute, true},
		{"per-channel override wins", `{resetByType: {dm: {mode: "idle", idleMinutes: 5}}, resetByChannel: {telegram: {mode: "off"}}}`, 48 * time.Hour, false},
		{"mode off never resets", `{reset: {mode: "off"}}`, 30 * 24 * time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			// The rig's clock starts at 12:00 UTC.
			r.settings.set(`{session: ` + tt.session + `, channels: {telegram: {allowFrom: ["*"]}}}`)
			r.handle(t, msg(1, "first"))
			first := r.entry(t, "agent:main:main").SessionID
			r.clock = r.clock.Add(tt.advance)
			r.handle(t, msg(2, "second"))
			e := r.entry(t, "agent:main:main")
			if gotNew := e.SessionID != first; gotNew != tt.wantNew {
				t.Fatalf("new session = %v; want %v", gotNew, tt.wantNew)
			}
			// Either way the model saw only the current session's history.
			wantSeen := 3
			if tt.wantNew {
				wantSeen = 1
			}
			if got := len(r.model.seen[1]); got != wantSeen {
				t.Fatalf("second turn saw %d messages; want %d", got, wantSeen)
			}
		})
	}
}

func TestResetTriggers(t *testing.T) {
	tests := []struct {
		name       string
		text       string
		wantPrompt string // what the model is asked in the new session
		wantModel  string // the session's model override, "" for none
	}{
		{"new alone runs a greeting turn", "/new", "A new session was just started. Greet the user in one short sentence.", ""},
		{"reset alone", "/reset", "A new session was just started. Greet the user in one short sentence.", ""},
		{"the rest of the message is passed on", "/new what is 2+2?", "what is 2+2?", ""},
		{"a provider/model sets the model", "/new zero/echo hi", "hi", "zero/echo"},
		{"an alias sets the model", "/new fast hi", "hi", "zero/echo"},
		{"a provider's name", "/new Zero hi", "hi", "zero/echo"},
		{"a provider's prefix is text", "/new Zer hi", "Zer hi", ""},
		{"an owner may name an unlisted model", "/new zero/other hi", "hi", "zero/other"},
		{"a fraction is the start of the message", "/new 1/2 cup of flour", "1/2 cup of flour", ""},
		{"a configured trigger", "/fresh", "A new session was just started. Greet the user in one short sentence.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(`{
				session: {resetTriggers: ["/fresh"]},
				agents: {defaults: {models: {"zero/echo": {alias: "fast"}}}},
				channels: {telegram: {allowFrom: ["*"], owners: ["7"]}},
			}`)
			r.handle(t, msg(1, "first"))
			first := r.entry(t, "agent:main:main").SessionID
			r.handle(t, msg(2, tt.text))
			e := r.entry(t, "agent:main:main")
			if e.SessionID == first || e.SessionID != session.NewID("telegram:42:2") {
				t.Fatalf("session id %s after %q; want a new one derived from the message", e.SessionID, tt.text)
			}
			seen := r.model.seen[len(r.model.seen)-1]
			if len(seen) != 1 || seen[0].Content != tt.wantPrompt {
				t.Fatalf("model was asked %+v; want only %q", seen, tt.wantPrompt)
			}
			if got := strings.TrimPrefix(e.ProviderOverride+"/"+e.ModelOverride, "/"); got != tt.wantModel {
				t.Fatalf("model override = %q; want %q", got, tt.wantModel)
			}
			if len(r.sender.Sent) != 2 {
				t.Fatalf("sent %d replies; want 2 (one per turn)", len(r.sender.Sent))
			}
			// The new session has its own transcript, starting with a header.
			stream, err := r.proc.Transcript.Read(context.Background(), transcript.Path("main", e.SessionID, ""))
			if err != nil || !strings.HasPrefix(string(stream), `{"type":"session"`) || e.TranscriptSeq != 1 {
				t.Fatalf("new transcript %q (seq %d, err %v); want its own header and one turn", stream, e.TranscriptSeq, err)
			}
		})
	}
}

// TestResetCarriesOver: a reset clears the per-session choices and keeps
// what describes the session.
func TestResetCarriesOver(t *testing.T) {
	r := newRig()
	ctx := context.Background()
	r.handle(t, msg(1, "/new zero/echo hello"))
	_, err := r.store.Update(ctx, "agent:main:main", func(e *session.Entry) error {
		e.Label, e.SpawnedBy = "kitchen", "agent:main:main"
		e.ThinkingLevel, e.VerboseLevel, e.ReasoningLevel, e.SendPolicy = "high", "on", "on", session.SendDeny
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	before := *r.entry(t, "agent:main:main")
	r.handle(t, msg(2, "/reset"))
	e := r.entry(t, "agent:main:main")
	cleared := map[string]string{
		"modelOverride": e.ModelOverride, "providerOverride": e.ProviderOverride, "thinkingLevel": e.ThinkingLevel,
		"verboseLevel": e.VerboseLevel, "reasoningLevel": e.ReasoningLevel, "sendPolicy": e.SendPolicy,
	}
	for field, v := range cleared {
		if v != "" {
			t.Errorf("%s = %q after reset; want it cleared", field, v)
		}
	}
	if e.Label != "kitchen" || e.SpawnedBy != "agent:main:main" || e.Origin.Label != "Ana" || e.DeliveryContext.To != "7" {
		t.Errorf("label/spawnedBy/origin/delivery not carried over: %+v", e)
	}
	if e.InputTokens < before.InputTokens || e.Version != before.Version+1 || e.TranscriptSeq != 1 {
		t.Errorf("usage, version or transcript not as expected: before %+v after %+v", before, e)
	}
	// The old session's choice (deny) no longer applies: the greeting went
	// out after the first reply.
	if len(r.sender.Sent) != 2 {
		t.Errorf("sent %d; want the first reply and the greeting", len(r.sender.Sent))
	}
}

// TestResetRetryLandsInOneSession: a reset turn killed before its commit is
// retried into the same new session, with no second model call.
func TestResetRetryLandsInOneSession(t *testing.T) {
	r := newRig()
	ctx := context.Background()
	r.handle(t, msg(1, "first"))
	r.crash.CommitBefore = 1
	m := msg(2, "/new again")
	if err := r.proc.Handle(ctx, m, 1); err == nil {
		t.Fatal("crash not injected")
	}
	if err := r.proc.Handle(ctx, m, 2); err != nil {
		t.Fatal(err)
	}
	e := r.entry(t, "agent:main:main")
	if e.SessionID != session.NewID(m.ID) || e.TranscriptSeq != 1 || r.model.calls != 2 {
		t.Fatalf("entry %+v after %d model calls; want the new session at seq 1 and 2 calls", e, r.model.calls)
	}
}

// TestCronRunsAreIsolated: every run of a job starts a new session in
// its cron key; a chat.send into the key between runs continues the
// current one.
func TestCronRunsAreIsolated(t *testing.T) {
	r := newRig()
	const key = "cron:daily-digest"
	fire := func(i int) inbound.Message {
		m := msg(i, "run")
		m.ID, m.SessionKey, m.Channel, m.From, m.To = fmt.Sprintf("cron:daily-digest:%d", i), key, inbound.Internal, "cron", "cron"
		return m
	}
	ids := map[string]bool{}
	for i := 1; i <= 3; i++ {
		r.handle(t, fire(i))
		ids[r.entry(t, key).SessionID] = true
	}
	if len(ids) != 3 {
		t.Fatalf("3 cron runs used %d session ids; want a new one per run", len(ids))
	}
	before := r.entry(t, key).SessionID
	chat := msg(4, "more detail")
	chat.ID, chat.SessionKey, chat.Channel, chat.From, chat.To = "api:k4", key, inbound.Internal, "", "api"
	r.handle(t, chat)
	if got := r.entry(t, key).SessionID; got != before {
		t.Fatalf("a chat.send into the cron session started %s; want it to continue %s", got, before)
	}
}

func TestStatusCommand(t *testing.T) {
	r := newRig()
	r.handle(t, msg(1, "hello"))
	e := r.entry(t, "agent:main:main")
	r.handle(t, msg(2, "/status"))
	if r.model.calls != 1 {
		t.Fatalf("model calls = %d; /status must not reach the model", r.model.calls)
	}
	got := r.lastSent(t)
	for _, want := range []string{"reachable", "agent:main:main", e.SessionID, "zero/echo", "context: ", "Thinking: off", "Verbose: off", "Sending: on"} {
		if !strings.Contains(got, want) {
			t.Errorf("status %q lacks %q", got, want)
		}
	}
	after := r.entry(t, "agent:main:main")
	if after.TranscriptSeq != 1 || after.SessionID != e.SessionID {
		t.Fatalf("/status changed the conversation: %+v", after)
	}
}

// TestStatusShowsContextWindow: /status reports the tokens the last call
// held (estimated from the context when the provider reported none)
// against the window in force, "context: used / window (percent)".
func TestStatusShowsContextWindow(t *testing.T) {
	tests := []struct {
		name   string
		answer model.Response
		want   string
	}{
		{"reported by the provider", used("a1", 123), "context: 123 / 1k (12%)"},
		// "hello" and the 400-byte answer: 405 bytes, about 101 tokens.
		{"estimated without usage", model.Response{Text: strings.Repeat("x", 400), StopReason: model.StopEnd}, "context: ~101 / 1k (10%)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(`{agents: {defaults: {contextTokens: 1000}}, channels: {telegram: {allowFrom: ["*"]}}}`)
			r.proc.Models["zero"] = &scriptModel{answers: []model.Response{tt.answer}}
			r.handle(t, msg(1, "hello"))
			r.handle(t, msg(2, "/status"))
			if !strings.Contains(r.lastSent(t), tt.want) {
				t.Fatalf("status %q; want %q", r.lastSent(t), tt.want)
			}
		})
	}
}

func TestStatusShowsMainForGlobalScope(t *testing.T) {
	r := newRig()
	r.settings.set(`{session: {scope: "global"}, channels: {telegram: {allowFrom: ["*"]}}}`)
	m := msg(1, "/status")
	m.SessionKey = "global"
	r.handle(t, m)
	if got := r.lastSent(t); !strings.Contains(got, "Session: main") || strings.Contains(got, "global") {
		t.Fatalf("status %q; callers see main, never global", got)
	}
}

func TestSendCommand(t *testing.T) {
	r := newRig()
	owner, stranger := msg(1, "/send off"), msg(2, "/send on")
	stranger.From = "telegram:8"
	r.handle(t, owner)
	if e := r.entry(t, "agent:main:main"); e.SendPolicy != session.SendDeny {
		t.Fatalf("sendPolicy = %q after /send off; want deny", e.SendPolicy)
	}
	if !strings.Contains(r.lastSent(t), "off") {
		t.Fatalf("reply %q does not confirm", r.lastSent(t))
	}
	r.handle(t, stranger)
	if got := r.lastSent(t); !strings.Contains(got, "channels.telegram.owners") {
		t.Fatalf("refusal %q does not say how owners are configured", got)
	}
	if e := r.entry(t, "agent:main:main"); e.SendPolicy != session.SendDeny {
		t.Fatalf("a non-owner changed the policy to %q", e.SendPolicy)
	}
	sent := len(r.sender.Sent)
	r.handle(t, msg(3, "are you there?"))
	if len(r.sender.Sent) != sent || r.model.calls != 1 {
		t.Fatalf("denied session: sent %d (want %d), model calls %d (want 1: the turn still runs)", len(r.sender.Sent), sent, r.model.calls)
	}
	if e := r.entry(t, "agent:main:main"); e.TranscriptSeq != 1 {
		t.Fatalf("the withheld turn was not recorded: seq %d", e.TranscriptSeq)
	}
	r.handle(t, msg(4, "/send inherit"))
	r.handle(t, msg(5, "now?"))
	if got := r.lastSent(t); got != "echo: now? (call 2)" {
		t.Fatalf("after /send inherit the reply is %q; want it delivered", got)
	}
}

func TestSendPolicyRules(t *testing.T) {
	tests := []struct {
		name     string
		policy   string
		override string
		wantSent bool
	}{
		{"no rules", `{}`, "", true},
		{"deny direct chats", `{rules: [{action: "deny", match: {chatType: "direct"}}]}`, "", false},
		{"deny another channel", `{rules: [{action: "deny", match: {channel: "discord"}}]}`, "", true},
		{"deny wins over an earlier allow", `{rules: [{action: "allow", match: {channel: "telegram"}}, {action: "deny", match: {keyPrefix: "main"}}]}`, "", false},
		{"default deny", `{default: "deny"}`, "", false},
		{"default deny, allowed by a rule", `{default: "deny", rules: [{action: "allow", match: {channel: "telegram"}}]}`, "", true},
		{"session override allow beats the rules", `{default: "deny"}`, session.SendAllow, true},
		{"session override deny beats the rules", `{}`, session.SendDeny, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(`{session: {sendPolicy: ` + tt.policy + `}, channels: {telegram: {allowFrom: ["*"], owners: ["7"]}}}`)
			r.handle(t, msg(1, "first"))
			if _, err := r.store.Update(context.Background(), "agent:main:main", func(e *session.Entry) error { e.SendPolicy = tt.override; return nil }); err != nil {
				t.Fatal(err)
			}
			sent := len(r.sender.Sent)
			r.handle(t, msg(2, "second"))
			if got := len(r.sender.Sent) > sent; got != tt.wantSent {
				t.Fatalf("sent = %v; want %v", got, tt.wantSent)
			}
			if e := r.entry(t, "agent:main:main"); e.TranscriptSeq != 2 {
				t.Fatalf("transcript seq %d; the turn runs and is recorded either way", e.TranscriptSeq)
			}
		})
	}
}

func TestMigrationKeepsTheSession(t *testing.T) {
	r := newRig()
	oldKey, newKey := "agent:main:telegram:group:-400", "agent:main:telegram:group:-100400"
	group := func(update int, key, chat, text string) inbound.Message {
		m := msg(update, text)
		m.SessionKey, m.ChatType, m.To, m.GroupID, m.Subject = key, inbound.Group, chat, chat, "Compilers"
		return m
	}
	r.handle(t, group(1, oldKey, "-400", "hello group"))
	before := r.entry(t, oldKey)
	move := inbound.Message{ID: "telegram:42:migrate:-400:-100400", Kind: inbound.KindMigrate, AgentID: "main",
		SessionKey: newKey, MigrateFrom: oldKey, Channel: "telegram", ChatType: inbound.Group, To: "-100400", GroupID: "-100400"}
	r.handle(t, move)
	r.handle(t, move) // Telegram reports the upgrade in both chats
	if r.entry(t, oldKey) != nil {
		t.Fatal("the old key still has an entry")
	}
	moved := r.entry(t, newKey)
	if moved == nil || moved.SessionID != before.SessionID || moved.GroupID != "-100400" || moved.DeliveryContext.To != "-100400" {
		t.Fatalf("moved entry = %+v; want session %s delivering to the supergroup", moved, before.SessionID)
	}
	r.handle(t, group(3, newKey, "-100400", "still there?"))
	if got := len(r.model.seen[1]); got != 3 {
		t.Fatalf("the supergroup's first turn saw %d messages; want the group's history (3)", got)
	}
	if e := r.entry(t, newKey); e.SessionID != before.SessionID || e.TranscriptSeq != 2 {
		t.Fatalf("entry after the move = %+v; want the same transcript at seq 2", e)
	}
}

// TestAPIRunKeepsRouting: a run requested through the gateway without
// delivery (channel internal) leaves the session's channel routing alone.
func TestAPIRunKeepsRouting(t *testing.T) {
	r := newRig()
	r.handle(t, msg(1, "from telegram"))
	api := msg(2, "from the API")
	api.ID, api.Channel, api.To, api.From = "api:k1", inbound.Internal, "api", ""
	r.handle(t, api)
	e := r.entry(t, "agent:main:main")
	if e.LastChannel != "telegram" || e.DeliveryContext.To != "7" || e.Channel != "telegram" || e.TranscriptSeq != 2 {
		t.Fatalf("entry after an API run %+v; want telegram routing kept and the turn recorded", e)
	}
	if len(r.sender.Sent) != 1 {
		t.Fatalf("sent %d; the API run delivers nothing", len(r.sender.Sent))
	}
	// A run the API requests for a new session sets its label.
	fresh := api
	fresh.ID, fresh.SessionKey, fresh.Label, fresh.SpawnedBy = "api:k2", "agent:main:subagent:x", "research", "agent:main:main"
	r.handle(t, fresh)
	if e := r.entry(t, "agent:main:subagent:x"); e.Label != "research" || e.SpawnedBy != "agent:main:main" {
		t.Fatalf("new session %+v; want label and spawnedBy from the request", e)
	}
}
