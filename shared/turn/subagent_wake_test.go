package turn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/outbox/outboxtest"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run"
)

// resultsFor are the queued sub-agent results (FlowResult messages) for
// the requester key.
func resultsFor(q *memQueue, key string) []inbound.Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []inbound.Message
	for _, m := range q.queued {
		if m.SessionKey == key && m.Flow != nil && m.Flow.Kind == inbound.FlowResult {
			out = append(out, m)
		}
	}
	return out
}

// handleResults runs the queued sub-agent results for key as the
// requester's runner would, each twice: the second is a replay (a
// redelivery after a crash before the queue deleted it).
func handleResults(t *testing.T, r *rig, q *memQueue, key string) {
	t.Helper()
	for _, m := range resultsFor(q, key) {
		for attempt := 1; attempt <= 2; attempt++ {
			if err := r.proc.Handle(context.Background(), m, attempt); err != nil {
				t.Fatalf("Handle(%s) attempt %d: %v", m.ID, attempt, err)
			}
		}
	}
}

// TestSubagentWake: a requester that spawned a child and then yielded
// (sessions_yield) ends its turn without a reply, and the child's result
// comes back as the requester's next turn (untrusted, on the requester's
// chat) instead of an announce, whether the child finished after the
// yielding turn committed or before (between the sessions_yield call and
// the commit: the race the result's detour through the requester's FIFO
// group closes). Without the yield the announce goes to the outbox.
// Every step is replayed: the child's finish step and the result
// message each run twice, and there is exactly one wake or one announce.
func TestSubagentWake(t *testing.T) {
	const main = "agent:main:main"
	spawn := toolCall("c1", "sessions_spawn", `{"task": "count the errors", "label": "errs"}`)
	yield := toolCall("c2", "sessions_yield", `{}`)
	for _, tc := range []struct {
		name       string
		script     []model.Response
		childFirst bool // the child finishes before the requester's turn commits
		wantWake   bool
	}{
		{name: "spawn, yield, child finishes after the commit", script: []model.Response{spawn, yield}, wantWake: true},
		{name: "spawn, yield, child finishes before the commit", script: []model.Response{spawn, yield}, childFirst: true, wantWake: true},
		{name: "spawn, no yield, child after", script: []model.Response{spawn, final("started")}},
		{name: "spawn, no yield, child before", script: []model.Response{spawn, final("started")}, childFirst: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, q := sendRig(t, sessionsConfig)
			out := &outboxtest.MemStore{}
			r.proc.Outbox, r.proc.Work = out, q
			r.proc.Models["zero"] = &scriptModel{answers: append(tc.script, final("You have 42 errors."))}
			finish := func() {
				child := q.queued[0]
				rec := receipt.Receipt{Outcome: run.StatusOK, Reply: "42 errors", MessageID: child.ID, SessionKey: child.SessionKey}
				for range 2 { // the second is a replay
					if err := r.proc.FinishSubagent(context.Background(), child, rec); err != nil {
						t.Fatal(err)
					}
				}
			}
			finished := false
			if tc.childFirst {
				// After the requester's last tool call (the yield, or the
				// spawn when it does not yield) and before its commit.
				last := tc.script[len(tc.script)-1]
				if len(last.ToolCalls) == 0 {
					last = tc.script[0]
				}
				r.proc.Hooks.Tools.AfterToolCall = append(r.proc.Hooks.Tools.AfterToolCall,
					func(_ context.Context, c agent.ToolCall, _ *agent.ToolResult) {
						if c.ID == last.ToolCalls[0].ID && !finished {
							finished = true
							finish()
						}
					})
			}
			sent := len(r.sender.Sent)
			r.handle(t, msg(1001, "count the errors, then tell me"))
			if tc.wantWake && len(r.sender.Sent) != sent {
				t.Fatalf("the yielding turn replied %q; want silence", r.lastSent(t))
			}
			if tc.childFirst != finished {
				t.Fatalf("the child finished during the requester's turn: %v; want %v", finished, tc.childFirst)
			}
			if !tc.childFirst {
				finish()
			}
			results := resultsFor(q, main)
			if len(results) != 1 {
				t.Fatalf("%d results queued for the requester; want 1", len(results))
			}
			sent = len(r.sender.Sent)
			handleResults(t, r, q, main)
			items, err := out.List(context.Background(), "", 10)
			if err != nil {
				t.Fatal(err)
			}
			woke := r.sender.Sent[sent:]
			if !tc.wantWake {
				if len(woke) != 0 || len(items) != 1 || !strings.Contains(items[0].Text, "Result: 42 errors") {
					t.Fatalf("%d wake replies, announces %+v; want the announce alone", len(woke), items)
				}
				return
			}
			if len(items) != 0 || len(woke) != 1 || woke[0].Text != "You have 42 errors." {
				t.Fatalf("announces %+v, wake replies %+v; want one wake reply and no announce", items, woke)
			}
			llm := r.proc.Models["zero"].(*scriptModel)
			if len(llm.seen) != len(tc.script)+1 {
				t.Fatalf("%d model calls; want %d (a yield ends the run, the wake asks once)", len(llm.seen), len(tc.script)+1)
			}
			wake := llm.seen[len(llm.seen)-1].Messages
			last := wake[len(wake)-1].Content
			if !strings.HasPrefix(last, "[sub-agent result]") || !strings.Contains(last, "Result: 42 errors") {
				t.Errorf("the wake turn's prompt = %q; want the result under the wake note", last)
			}
			w := results[0]
			if w.Provenance != inbound.Untrusted || w.Channel != "telegram" || w.To != "7" {
				t.Errorf("result message %+v; want untrusted, on the requester's chat", w)
			}
		})
	}
}

// TestFailedWakeIsAnnounced: a result message whose wake turn fails on
// its last attempt (the requester's model is down) puts the announce in
// the outbox, once however often the failure is reported, so the result
// is not lost with the message; an attempt that is not the last does not.
func TestFailedWakeIsAnnounced(t *testing.T) {
	r, q := sendRig(t, sessionsConfig)
	out := &outboxtest.MemStore{}
	r.proc.Outbox, r.proc.Work = out, q
	r.proc.Models["zero"] = &scriptModel{answers: []model.Response{
		toolCall("c1", "sessions_spawn", `{"task": "count the errors"}`), toolCall("c2", "sessions_yield", `{}`)}}
	r.handle(t, msg(1001, "count the errors, then tell me"))
	child := q.queued[0]
	rec := receipt.Receipt{Outcome: run.StatusOK, Reply: "42 errors", MessageID: child.ID, SessionKey: child.SessionKey}
	if err := r.proc.FinishSubagent(context.Background(), child, rec); err != nil {
		t.Fatal(err)
	}
	results := resultsFor(q, "agent:main:main")
	if len(results) != 1 {
		t.Fatalf("%d results queued; want 1", len(results))
	}
	cause := fault.New(fault.Unavailable, "the model provider is down")
	r.proc.Failed(context.Background(), results, []int{4}, false, cause)
	if items, _ := out.List(context.Background(), "", 10); len(items) != 0 {
		t.Fatalf("an attempt that is not the last announced %+v", items)
	}
	for range 2 { // the second report is a replay
		r.proc.Failed(context.Background(), results, []int{5}, true, cause)
	}
	items, err := out.List(context.Background(), "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].SessionKey != child.SessionKey || !strings.Contains(items[0].Text, "Result: 42 errors") {
		t.Fatalf("outbox = %+v; want the child's announce once", items)
	}
}
