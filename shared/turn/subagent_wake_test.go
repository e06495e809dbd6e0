package turn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/outbox/outboxtest"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run"
)

// TestSubagentWake: a requester that spawned a child and then yielded
// (sessions_yield) ends its turn without a reply, and the child's result
// comes back as the requester's next message (untrusted, on the
// requester's chat) instead of an announce; without the yield the
// announce goes to the outbox as before. A replayed step queues the
// result once.
func TestSubagentWake(t *testing.T) {
	spawn := toolCall("c1", "sessions_spawn", `{"task": "count the errors", "label": "errs"}`)
	for _, tc := range []struct {
		name     string
		script   []model.Response
		wantWake bool
	}{
		{name: "spawn then yield", script: []model.Response{spawn, toolCall("c2", "sessions_yield", `{}`)}, wantWake: true},
		{name: "spawn, no yield", script: []model.Response{spawn, final("started")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, q := sendRig(t, sessionsConfig)
			out := &outboxtest.MemStore{}
			r.proc.Outbox, r.proc.Work = out, q
			llm := &scriptModel{answers: tc.script}
			r.proc.Models["zero"] = llm
			sent := len(r.sender.Sent)
			r.handle(t, msg(1001, "count the errors, then tell me"))
			if len(llm.seen) != 2 {
				t.Fatalf("%d model calls; want 2 (a yield ends the run)", len(llm.seen))
			}
			if tc.wantWake && len(r.sender.Sent) != sent {
				t.Fatalf("the yielding turn replied %q; want silence", r.lastSent(t))
			}
			child := q.queued[0]
			r.proc.Models["zero"] = &scriptModel{answers: []model.Response{final("42 errors")}}
			bare := child
			bare.Flow = nil
			r.handle(t, bare)
			rec := receipt.Receipt{Outcome: run.StatusOK, Reply: "42 errors", MessageID: child.ID, SessionKey: child.SessionKey}
			for range 2 { // the second is a replay
				if err := r.proc.FinishSubagent(context.Background(), child, rec); err != nil {
					t.Fatal(err)
				}
			}
			var wakes []inbound.Message
			for _, m := range q.queued {
				if m.SessionKey == "agent:main:main" {
					wakes = append(wakes, m)
				}
			}
			items, err := out.List(context.Background(), "", 10)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.wantWake {
				if len(wakes) != 0 || len(items) != 1 {
					t.Fatalf("%d wakes, %d announces; want the announce alone", len(wakes), len(items))
				}
				return
			}
			if len(items) != 0 || len(wakes) != 1 {
				t.Fatalf("%d announces, %d wakes; want one wake and no announce", len(items), len(wakes))
			}
			w := wakes[0]
			if !strings.Contains(w.Text, "Result: 42 errors") || !strings.HasPrefix(w.Text, "[sub-agent result]") ||
				w.Provenance != inbound.Untrusted || w.Channel != "telegram" || w.To != "7" || w.Flow != nil {
				t.Errorf("wake message %+v", w)
			}
		})
	}
}
