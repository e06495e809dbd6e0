package turn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/stopmark"
)

func group(texts ...string) ([]inbound.Message, []int) {
	var msgs []inbound.Message
	var attempts []int
	for i, text := range texts {
		msgs = append(msgs, msg(10+i, text))
		attempts = append(attempts, 1)
	}
	return msgs, attempts
}

func TestQueueModes(t *testing.T) {
	tests := []struct {
		name       string
		config     string // messages.queue
		before     string // a message sent first, e.g. /queue followup
		texts      []string
		wantCalls  int
		wantPrompt string // in the first call's last message
	}{
		{"collect by default: one turn", `{}`, "", []string{"one", "two", "three"}, 1,
			"[Queued messages while agent was busy]\n\n---\nQueued #1\none\n\n---\nQueued #2\ntwo\n\n---\nQueued #3\nthree"},
		{"steer runs as collect", `{mode: "steer"}`, "", []string{"one", "two"}, 1, "Queued #2\ntwo"},
		{"followup: one turn each", `{mode: "followup"}`, "", []string{"one", "two", "three"}, 3, "one"},
		{"followup for the channel", `{byChannel: {telegram: "followup"}}`, "", []string{"one", "two"}, 2, "one"},
		{"the session's /queue wins", `{}`, "/queue followup", []string{"one", "two"}, 2, "one"},
		{"a command among them: one turn each", `{}`, "", []string{"one", "/status"}, 1, "one"},
		{"cap with summarize", `{cap: 2}`, "", []string{"one", "two", "three"}, 1,
			"[Queued messages while agent was busy]\n\n[1 earlier queued messages were dropped:\n- one]\n\n---\nQueued #1\ntwo\n\n---\nQueued #2\nthree"},
		{"cap dropping the newest", `{cap: 2, drop: "new"}`, "", []string{"one", "two", "three"}, 1, "Queued #2\ntwo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(`{messages: {queue: ` + tt.config + `}, channels: {telegram: {allowFrom: ["*"], owners: ["7"]}}}`)
			if tt.before != "" {
				r.handle(t, msg(1, tt.before))
			}
			msgs, attempts := group(tt.texts...)
			done, err := r.proc.HandleGroup(context.Background(), msgs, attempts)
			if err != nil || done != len(msgs) {
				t.Fatalf("HandleGroup = %d, %v", done, err)
			}
			if r.model.calls != tt.wantCalls {
				t.Fatalf("model calls %d; want %d", r.model.calls, tt.wantCalls)
			}
			seen := r.model.seen[0]
			if got := seen[len(seen)-1].Content; !strings.Contains(got, tt.wantPrompt) {
				t.Fatalf("prompt %q; want it to contain %q", got, tt.wantPrompt)
			}
			// Every message is done: a redelivery of the group changes nothing.
			sent := len(r.sender.Sent)
			if _, err := r.proc.HandleGroup(context.Background(), msgs, []int{2, 2, 2}[:len(msgs)]); err != nil {
				t.Fatal(err)
			}
			if r.model.calls != tt.wantCalls || len(r.sender.Sent) != sent {
				t.Fatalf("redelivery: %d model calls, %d sends; want no more", r.model.calls, len(r.sender.Sent)-sent)
			}
		})
	}
}

// TestCollectedTurnRetried: a collected turn killed after its commit is
// finished by the retry: one model call, one reply, nothing run twice.
func TestCollectedTurnRetried(t *testing.T) {
	r := newRig()
	r.crash.CommitAfter = 1
	msgs, attempts := group("one", "two", "three")
	if done, err := r.proc.HandleGroup(context.Background(), msgs, attempts); err == nil || done != 0 {
		t.Fatalf("HandleGroup = %d, %v; want the injected crash", done, err)
	}
	if done, err := r.proc.HandleGroup(context.Background(), msgs, []int{2, 2, 2}); err != nil || done != 3 {
		t.Fatalf("retry = %d, %v", done, err)
	}
	if r.model.calls != 1 || len(r.sender.Sent) != 1 {
		t.Fatalf("%d model calls, %d replies; want one of each", r.model.calls, len(r.sender.Sent))
	}
	if e := r.entry(t, "agent:main:main"); e.TranscriptSeq != 1 {
		t.Fatalf("transcript seq %d; want one turn", e.TranscriptSeq)
	}
}

func TestQueueCommand(t *testing.T) {
	r := newRig()
	r.handle(t, msg(1, "/queue"))
	if got := r.lastSent(t); !strings.Contains(got, "Queue mode: collect (from zero.json)") {
		t.Fatalf("reply %q", got)
	}
	r.handle(t, msg(2, "/queue interrupt"))
	if e := r.entry(t, "agent:main:main"); e.QueueMode != "interrupt" {
		t.Fatalf("queueMode %q", e.QueueMode)
	}
	r.handle(t, msg(3, "/queue default"))
	if e := r.entry(t, "agent:main:main"); e.QueueMode != "" {
		t.Fatalf("queueMode %q after default", e.QueueMode)
	}
	r.handle(t, msg(4, "/queue sometimes"))
	if got := r.lastSent(t); !strings.HasPrefix(got, "Usage: /queue") {
		t.Fatalf("reply %q", got)
	}
}

// TestInterruptMarkIsCleared: the message that interrupted a run (its
// stop mark, written by the channel function) runs, and clears the mark so
// later messages are not dropped.
func TestInterruptMarkIsCleared(t *testing.T) {
	r := newRig()
	ctx := context.Background()
	m := msg(1, "new question")
	r.store.MarkStop(ctx, "agent:main:main", stopmark.Mark{MessageID: m.ID, At: r.clock.UnixMilli(), Pending: true})
	r.handle(t, m)
	r.handle(t, msg(2, "and another"))
	if r.model.calls != 2 {
		t.Fatalf("model calls %d; want both messages to run", r.model.calls)
	}
}

// TestInterruptAbortsTheRunningTurn: in queue mode interrupt the channel
// function marks every new message; the running turn sees the mark at its
// next step and stops, and the new message runs next.
func TestInterruptAbortsTheRunningTurn(t *testing.T) {
	r := newRig()
	r.settings.set(`{messages: {queue: {mode: "interrupt"}}, channels: {telegram: {allowFrom: ["*"]}}}`)
	llm := &stoppingModel{r: r}
	r.proc.Models["zero"] = llm
	// The stopping model marks the session for message 9 while turn 1 runs,
	// as the webhook does when message 9 arrives in interrupt mode.
	r.handle(t, msg(1, "a long task"))
	r.proc.Models["zero"] = &scriptModel{answers: []model.Response{final("on the new question")}}
	r.handle(t, msg(9, "never mind, this instead"))
	r.handle(t, msg(10, "and this"))
	var sent []string
	for _, s := range r.sender.Sent {
		sent = append(sent, s.Text)
	}
	if got := strings.Join(sent, " | "); got != "⏹️ Stopped. | on the new question | out of script" {
		t.Fatalf("sent %q", got)
	}
}
