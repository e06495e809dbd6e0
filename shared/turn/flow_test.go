package turn_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/outbox"
	"github.com/zero-gateway/zero/shared/outbox/outboxtest"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/run/runtest"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
	"github.com/zero-gateway/zero/shared/turn/turntest"
	"github.com/zero-gateway/zero/shared/untrusted"
)

// flowOutbox is the in-memory outbox, counting Puts.
type flowOutbox struct {
	outboxtest.MemStore
	puts int
}

func (o *flowOutbox) Put(ctx context.Context, it outbox.Item) error {
	o.puts++
	return o.MemStore.Put(ctx, it)
}

// items is what the outbox holds.
func (o *flowOutbox) items(t *testing.T) []outbox.Item {
	t.Helper()
	items, err := o.List(context.Background(), "", 100)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// flowRig is a send rig whose outbox and work queue are kept: flows run
// to the end by draining the queue.
type flowRig struct {
	*rig
	queue  *memQueue
	outbox *flowOutbox
	done   int // queued messages already handled
}

func newFlowRig(t *testing.T, doc string) *flowRig {
	r, q := sendRig(t, doc)
	f := &flowRig{rig: r, queue: q, outbox: &flowOutbox{}}
	r.proc.Outbox, r.proc.Work = f.outbox, q
	return f
}

// flowStep is one queued flow message as the test reads it.
type flowStep struct {
	Kind, Session string
	Round         int
	Text          string
}

// drain handles every queued flow message in order (KindDeliver messages
// are left: the outbox's own delivery is another test's), answering each
// with the next of answers, and returns the steps it ran.
func (f *flowRig) drain(t *testing.T, answers ...string) []flowStep {
	t.Helper()
	script := &scriptModel{}
	for _, a := range answers {
		script.answers = append(script.answers, final(a))
	}
	f.proc.Models["zero"] = script
	var steps []flowStep
	for ; f.done < len(f.queue.queued); f.done++ {
		m := f.queue.queued[f.done]
		if m.Kind == inbound.KindDeliver {
			continue
		}
		steps = append(steps, flowStep{Kind: m.Flow.Kind, Session: m.SessionKey, Round: m.Flow.Round, Text: m.Text})
		f.handle(t, m)
	}
	if len(script.seen) != len(answers) {
		t.Errorf("%d model calls; want %d (one per step)", len(script.seen), len(answers))
	}
	return steps
}

// send runs a caller turn (agent:main:main on Telegram) whose model sends
// text to key without waiting.
func (f *flowRig) send(t *testing.T, key, text string) {
	t.Helper()
	res := f.callTool(t, "sessions_send", `{"sessionKey": "`+key+`", "message": "`+text+`", "timeoutSeconds": 0}`)
	if res.IsError {
		t.Fatalf("sessions_send: %s", res.Content)
	}
}

const caller = "agent:main:main"

// TestFlowPingPongAndAnnounce: after the target's run, rounds 2+ alternate
// between requester and target up to maxPingPongTurns, an exact
// REPLY_SKIP ends them, and the target's announce step puts its reply in
// the outbox for the target's channel; ANNOUNCE_SKIP stays silent.
func TestFlowPingPongAndAnnounce(t *testing.T) {
	ask := func(round int, session string) flowStep {
		return flowStep{Kind: "reply", Session: session, Round: round}
	}
	tests := []struct {
		name     string
		maxTurns string
		answers  []string
		steps    []flowStep
		announce string // "": none
	}{
		{
			name:    "two rounds then REPLY_SKIP, announced",
			answers: []string{"R1 all green", "R2 and the disk?", "REPLY_SKIP", "Disk fine, told main."},
			steps: []flowStep{
				{Kind: "send", Session: groupKey, Round: 1, Text: "status please"},
				ask(2, caller), ask(3, groupKey),
				{Kind: "announce", Session: groupKey},
			},
			announce: "Disk fine, told main.",
		},
		{
			name:    "ANNOUNCE_SKIP stays silent",
			answers: []string{"R1", "REPLY_SKIP", "ANNOUNCE_SKIP"},
			steps: []flowStep{
				{Kind: "send", Session: groupKey, Round: 1, Text: "status please"},
				ask(2, caller), {Kind: "announce", Session: groupKey},
			},
		},
		{
			name:     "maxPingPongTurns 0: straight to the announce",
			maxTurns: "0",
			answers:  []string{"R1", "posted"},
			steps:    []flowStep{{Kind: "send", Session: groupKey, Round: 1, Text: "status please"}, {Kind: "announce", Session: groupKey}},
			announce: "posted",
		},
		{
			name:     "maxPingPongTurns 2: rounds 2 and 3, then the announce",
			maxTurns: "2",
			answers:  []string{"R1", "R2", "R3", "done"},
			steps: []flowStep{
				{Kind: "send", Session: groupKey, Round: 1, Text: "status please"},
				ask(2, caller), ask(3, groupKey), {Kind: "announce", Session: groupKey},
			},
			announce: "done",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := sessionsConfig
			if tc.maxTurns != "" {
				doc = strings.Replace(doc, `channels:`, `session: {agentToAgent: {maxPingPongTurns: `+tc.maxTurns+`}}, channels:`, 1)
			}
			f := newFlowRig(t, doc)
			f.send(t, groupKey, "status please")
			steps := f.drain(t, tc.answers...)
			for i := range steps {
				if steps[i].Kind == "reply" || steps[i].Kind == "announce" {
					steps[i].Text = "" // prompts, checked below
				}
			}
			if diff := cmp.Diff(tc.steps, steps); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			var got []string
			for _, it := range f.outbox.items(t) {
				got = append(got, it.Kind+" "+it.Delivery.Channel+":"+it.Delivery.To+" "+it.Text)
			}
			var want []string
			if tc.announce != "" {
				want = []string{"a2a telegram:-100 " + tc.announce}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("outbox (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFlowRoundPrompts: a ping-pong round gets the other agent's reply as
// its message with the reply-step context; the announce step gets the
// original request, the round-1 reply and the latest reply.
func TestFlowRoundPrompts(t *testing.T) {
	f := newFlowRig(t, sessionsConfig)
	f.send(t, groupKey, "status please")
	f.drain(t, "R1 all green", "R2 thanks", "REPLY_SKIP", "posted")
	q := f.queue.queued
	round2, announce := q[1], q[3]
	if !strings.Contains(round2.Text, untrusted.BeginMarker+"\nOriginal request: status please\n\nLatest reply:\nR1 all green\n"+untrusted.EndMarker) ||
		!strings.Contains(round2.ExtraSystemPrompt, "Current agent: Agent 1 (requester).") ||
		!strings.Contains(round2.ExtraSystemPrompt, "reply exactly REPLY_SKIP") {
		t.Errorf("round 2 = %q with context %q; want the request and the target's reply as untrusted content, and the reply-step context", round2.Text, round2.ExtraSystemPrompt)
	}
	// Agent-written text never reaches a system prompt.
	if strings.Contains(round2.ExtraSystemPrompt, "status please") || strings.Contains(round2.ExtraSystemPrompt, "R1 all green") {
		t.Errorf("round 2's system prompt %q carries an agent's words", round2.ExtraSystemPrompt)
	}
	if got := tools.ProvenanceOf(config.Default(), round2); got != inbound.Untrusted {
		t.Errorf("round 2's provenance = %q; want untrusted", got)
	}
	for _, want := range []string{"Original request: status please", "Round 1 reply: R1 all green", "Latest reply: R2 thanks", "reply exactly ANNOUNCE_SKIP"} {
		if !strings.Contains(announce.Text, want) {
			t.Errorf("announce prompt %q lacks %q", announce.Text, want)
		}
	}
}

// finishCrash is the rig's store, whose Finish fails while crashes
// is > 0: the runner killed after a step's commit and its flow's next
// step, before its record was finished.
type finishCrash struct {
	*turntest.MemStore
	crashes int
}

func (s *finishCrash) Finish(ctx context.Context, key, id string) error {
	if s.crashes > 0 {
		s.crashes--
		return turntest.ErrCrash
	}
	return s.MemStore.Finish(ctx, key, id)
}

// TestFlowReplayedStep: every step of a flow dies once after queueing
// its successor (or putting the announce) and before its record is
// finished; redelivered, it resumes from its committed record and does
// that again. Each step still runs its model once, each successor is
// queued once, and the announce is put once.
func TestFlowReplayedStep(t *testing.T) {
	f := newFlowRig(t, sessionsConfig)
	crash := &finishCrash{MemStore: f.store}
	f.proc.Store = crash
	f.send(t, groupKey, "status please")
	script := &scriptModel{answers: []model.Response{final("R1"), final("R2"), final("REPLY_SKIP"), final("posted")}}
	f.proc.Models["zero"] = script
	for ; f.done < len(f.queue.queued); f.done++ {
		m := f.queue.queued[f.done]
		if m.Kind == inbound.KindDeliver {
			continue
		}
		crash.crashes = 1
		if err := f.proc.Handle(context.Background(), m, 1); err == nil {
			t.Fatalf("%s: want the crash", m.ID)
		}
		if err := f.proc.Handle(context.Background(), m, 2); err != nil {
			t.Fatalf("redelivery of %s: %v", m.ID, err)
		}
	}
	var kinds []string
	for _, m := range f.queue.queued {
		kinds = append(kinds, m.Kind+"/"+flowKind(m))
	}
	want := []string{"/send", "/reply", "/reply", "/announce", "deliver/"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("queued (-want +got):\n%s", diff)
	}
	if len(f.queue.enqueued) != 2*len(want)-1 {
		t.Errorf("enqueued %d times; want every successor twice (%d)", len(f.queue.enqueued), 2*len(want)-1)
	}
	if len(script.seen) != 4 || len(f.outbox.items(t)) != 1 || f.outbox.puts != 2 {
		t.Errorf("%d model calls (want 4), %d outbox items (want 1) from %d puts (want 2)", len(script.seen), len(f.outbox.items(t)), f.outbox.puts)
	}
}

func flowKind(m inbound.Message) string {
	if m.Flow == nil {
		return ""
	}
	return m.Flow.Kind
}

// TestFlowTargetFails: a target run that fails ends the flow: no rounds,
// no announce.
func TestFlowTargetFails(t *testing.T) {
	f := newFlowRig(t, sessionsConfig)
	f.send(t, groupKey, "status please")
	f.proc.Models["zero"] = &scriptModel{fail: []error{fault.New(fault.Invalid, "bad request")}}
	f.handle(t, f.queue.queued[0])
	if len(f.queue.queued) != 1 || len(f.outbox.items(t)) != 0 {
		t.Errorf("queued %d, outbox %d; want the flow ended", len(f.queue.queued), len(f.outbox.items(t)))
	}
}

// TestSessionsSendWait: with timeoutSeconds > 0 the tool follows the
// target's run record: a finished run answers {status: "ok", reply}, a
// failed one {status: "error"}, one still running {status: "timeout"}
// once the wait is over, with the note that the flow goes on.
func TestSessionsSendWait(t *testing.T) {
	tests := []struct {
		name string
		rec  *run.Record // the target's run as stored; nil: never started
		want tooltest.SendOut
	}{
		{name: "finished", rec: &run.Record{Status: run.StatusOK, StartedAt: 1, EndedAt: 2, Reply: "all green"},
			want: tooltest.SendOut{Status: "ok", Reply: "all green"}},
		{name: "failed", rec: &run.Record{Status: run.StatusError, StartedAt: 1, EndedAt: 2, Error: "model down"},
			want: tooltest.SendOut{Status: "error", Error: "model down"}},
		{name: "still running", rec: &run.Record{Status: run.StatusRunning, StartedAt: 1},
			want: tooltest.SendOut{Status: "timeout", Error: "no reply within 1s", Note: waitNote}},
		{name: "not started", want: tooltest.SendOut{Status: "timeout", Error: "no reply within 1s", Note: waitNote}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFlowRig(t, sessionsConfig)
			runs := runtest.NewMemStore()
			f.proc.Runs = runs
			runID := run.NewID(idOf(groupKey))
			if tc.rec != nil {
				rec := *tc.rec
				rec.RunID, rec.SessionKey = runID, groupKey
				write := func() error { return runs.Settle(rec, nil) }
				if rec.Status == run.StatusRunning {
					write = func() error { return runs.Start(context.Background(), rec, nil) }
				}
				if err := write(); err != nil {
					t.Fatal(err)
				}
			}
			res := f.callTool(t, "sessions_send", `{"sessionKey": "`+groupKey+`", "message": "status please", "timeoutSeconds": 1}`)
			var got tooltest.SendOut
			if res.IsError || json.Unmarshal([]byte(res.Content), &got) != nil {
				t.Fatalf("result = %+v", res)
			}
			tc.want.RunID, tc.want.SessionKey = runID, groupKey
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

const waitNote = "the target's run goes on; its reply comes back to this session in a reply-back round, or read it later with sessions_history"

// TestSpawnAnnouncesOnCompletion: a spawned child's turn ends its flow
// with the announce in the outbox for the requester's chat, queued for
// delivery on the outbox's own group; the child's reply itself goes
// nowhere.
func TestSpawnAnnouncesOnCompletion(t *testing.T) {
	f := newFlowRig(t, sessionsConfig)
	if res := f.callTool(t, "sessions_spawn", `{"task": "count the errors", "label": "errs"}`); res.IsError {
		t.Fatalf("sessions_spawn: %s", res.Content)
	}
	sent := len(f.sender.Sent)
	f.drain(t, "42 errors")
	items := f.outbox.items(t)
	if len(items) != 1 || items[0].Kind != outbox.KindSubagent || items[0].Delivery.To != "7" ||
		!strings.HasPrefix(items[0].Text, "Status: ok\nResult: 42 errors\n") {
		t.Fatalf("outbox = %+v; want the child's announce for telegram 7", items)
	}
	last := f.queue.queued[len(f.queue.queued)-1]
	if last.Kind != inbound.KindDeliver || last.OutboxID != items[0].ID || last.QueueGroup() == last.SessionKey {
		t.Errorf("last queued = %+v; want the delivery of %s on its own group", last, items[0].ID)
	}
	if len(f.sender.Sent) != sent {
		t.Errorf("the child's turn sent %+v; want nothing", f.sender.Sent[sent:])
	}
}
