package turn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/turn"
)

// TestHooks wires every turn hook and checks when each runs and what it
// can change.
func TestHooks(t *testing.T) {
	r := newRig()
	llm := &scriptModel{summary: "sum", answers: []model.Response{statusCall(), final("first answer"), final("second"), final("third"), final("fourth")}}
	r.proc.Models["zero"] = llm
	var log []string
	add := func(s string) { log = append(log, s) }
	r.proc.Hooks = turn.Hooks{
		Tools: agent.Hooks{ToolResultPersist: []func(agent.ToolCall, *agent.ToolResult){func(_ agent.ToolCall, res *agent.ToolResult) {
			res.Text = "[status recorded]"
		}}},
		MessageReceived: []func(context.Context, inbound.Message){func(_ context.Context, m inbound.Message) { add("received " + m.Text) }},
		SessionStart:    []func(context.Context, turn.SessionEvent){func(_ context.Context, s turn.SessionEvent) { add("start " + s.Reason) }},
		SessionEnd:      []func(context.Context, turn.SessionEvent){func(_ context.Context, s turn.SessionEvent) { add("end " + s.Reason) }},
		BeforeAgentStart: []func(context.Context, *turn.AgentStart){func(_ context.Context, s *turn.AgentStart) {
			s.System = "OVERRIDE"
			s.Context = append(s.Context, "The user likes tea.")
		}},
		AgentEnd: []func(context.Context, turn.AgentEnd){func(_ context.Context, e turn.AgentEnd) { add("agent end " + e.Reply) }},
		BeforeCompaction: []func(context.Context, turn.CompactionEvent){func(_ context.Context, c turn.CompactionEvent) {
			if c.Manual {
				add("before compaction")
			}
		}},
		AfterCompaction: []func(context.Context, turn.CompactionEvent){func(_ context.Context, c turn.CompactionEvent) { add("after compaction " + c.Summary) }},
		MessageSending: []func(context.Context, *turn.Outgoing){func(_ context.Context, o *turn.Outgoing) {
			if o.Text == "third" {
				o.Text = "" // cancelled
				return
			}
			o.Text = strings.ToUpper(o.Text)
		}},
		MessageSent: []func(context.Context, turn.Outgoing){func(_ context.Context, o turn.Outgoing) { add("sent " + o.Text) }},
	}
	ctx := context.Background()
	r.handle(t, msg(1, "hi"))
	if err := r.proc.Handle(ctx, msg(1, "hi"), 2); err != nil { // a duplicate: no hook runs
		t.Fatal(err)
	}
	r.handle(t, msg(2, "/new again"))
	r.handle(t, msg(3, "more"))
	r.handle(t, msg(4, "and more"))
	r.handle(t, msg(5, "/compact"))

	if got := llm.seen[0].System; got != "OVERRIDE\n\nThe user likes tea." {
		t.Fatalf("system prompt %q; want the override and the added context", got)
	}
	want := []string{
		"received hi", "start new-key", "agent end first answer", "sent FIRST ANSWER",
		"received /new again", "end new", "start new", "agent end second", "sent SECOND",
		"received more", "agent end third", // cancelled by message_sending: not sent
		"received and more", "agent end fourth", "sent FOURTH",
		"received /compact", "before compaction", "after compaction sum", "sent COMPACTED: 2 EARLIER MESSAGES ARE NOW A SUMMARY (ABOUT 87 TOKENS BEFORE); THE LAST 2 TURNS ARE KEPT AS THEY WERE.",
	}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Fatalf("hooks ran:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	for _, s := range r.sender.Sent {
		if strings.EqualFold(s.Text, "third") {
			t.Fatal("a reply message_sending cancelled was sent")
		}
	}
	// tool_result_persist changed what the transcript keeps, not what the
	// model saw during the run.
	if got := llm.seen[1].Messages[2].Content; !strings.Contains(got, "agent:main:main") {
		t.Fatalf("the model saw %q; want the real status", got)
	}
}
