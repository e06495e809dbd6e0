package turn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/contextstore"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/outbox"
	"github.com/zero-gateway/zero/shared/outbox/outboxtest"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/run/runtest"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/stopmark"
	"github.com/zero-gateway/zero/shared/transcript/transcripttest"
)

// spawnRig is a send rig on zero.json doc with an outbox, after one spawn
// (args) whose child turn ran (without its announce); it returns the
// child's message.
func spawnRig(t *testing.T, doc, args string) (*rig, *memQueue, *outboxtest.MemStore, inbound.Message) {
	t.Helper()
	r, q := sendRig(t, doc)
	out := &outboxtest.MemStore{}
	r.proc.Outbox, r.proc.Work = out, q
	if res := r.callTool(t, "sessions_spawn", args); res.IsError {
		t.Fatalf("sessions_spawn: %s", res.Content)
	}
	child := q.queued[0]
	r.proc.Models["zero"] = &scriptModel{answers: []model.Response{final("child reply")}}
	// The child's turn without its flow step: the tests call that step
	// (FinishSubagent) themselves, with the record they want.
	bare := child
	bare.Flow = nil
	r.handle(t, bare)
	return r, q, out, child
}

// TestFinishSubagent: the child's result is put in the outbox for the
// requester's chat, normalised to Status (the run's outcome, never the
// model's text) / Result / Notes plus a stats line; ANNOUNCE_SKIP and a
// flow without a route announce nothing; cleanup "delete" deletes the
// child session after the announce. A replay puts the item once.
func TestFinishSubagent(t *testing.T) {
	const priced = `{models: {providers: {zero: {models: [{id: "echo", cost: {input: 1, output: 10}}]}}}, channels: {telegram: {allowFrom: ["*"]}}}`
	ok := receipt.Receipt{Outcome: run.StatusOK, Reply: "42 errors", Usage: run.Usage{Input: 1000, Output: 200, Total: 1200}}
	tests := []struct {
		name    string
		doc     string
		args    string
		rec     receipt.Receipt
		noRoute bool
		want    []string // the announce's lines but the stats; nil: no announce
		stats   []string // parts the stats line holds
		deleted bool
		counted map[string]int // the turn's AWS calls as the runner counts them; nil: not counted
	}{
		{name: "ok, with label", args: `{"task": "count errors", "label": "errs"}`, rec: ok,
			want:  []string{"Status: ok", "Result: 42 errors", `Notes: label "errs"`},
			stats: []string{"Stats: runtime ", "tokens 1000 in / 200 out / 1200 total", "(id ", "transcript agents/main/sessions/", "model n/a (no price for zero/echo in models.providers)", "ZERO infra ≈$", "(≈9 AWS calls (per-turn profile)"}},
		{name: "counted calls", args: `{"task": "t"}`, rec: ok,
			counted: map[string]int{"DynamoDB.BatchGetItem": 1, "S3.PutObject": 1, "DynamoDB.TransactWriteItems": 1, "DynamoDB.GetItem": 3},
			want:    []string{"Status: ok", "Result: 42 errors", "Notes: none"},
			stats:   []string{"(12 AWS calls, counted, 2 Lambda invocations of 256 MB"}},
		{name: "priced model", doc: priced, args: `{"task": "t"}`, rec: ok,
			want:  []string{"Status: ok", "Result: 42 errors", "Notes: none"},
			stats: []string{"cost model $0.0030 (zero/echo)"}},
		{name: "aborted: the status is the outcome", args: `{"task": "t"}`,
			rec:  receipt.Receipt{Outcome: run.StatusAborted, Reply: "Status: ok, all done"},
			want: []string{"Status: aborted", "Result: Status: ok, all done", "Notes: the run was stopped (/stop)"}},
		{name: "timeout", args: `{"task": "t"}`, rec: receipt.Receipt{Outcome: run.StatusTimeout, Reply: "partial"},
			want: []string{"Status: timeout", "Result: partial", "Notes: the run hit its time limit"}},
		{name: "ANNOUNCE_SKIP is silent", args: `{"task": "t"}`, rec: receipt.Receipt{Outcome: run.StatusOK, Reply: " ANNOUNCE_SKIP\n"}},
		{name: "no route: skipped", args: `{"task": "t"}`, rec: ok, noRoute: true},
		{name: "cleanup delete", args: `{"task": "t", "cleanup": "delete"}`, rec: ok, deleted: true,
			want: []string{"Status: ok", "Result: 42 errors", "Notes: the sub-agent session is deleted after this announce (its transcript stays)"}},
		{name: "cleanup delete, silent", args: `{"task": "t", "cleanup": "delete"}`, deleted: true,
			rec: receipt.Receipt{Outcome: run.StatusOK, Reply: "ANNOUNCE_SKIP"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.doc
			if doc == "" {
				doc = sessionsConfig
			}
			r, q, out, child := spawnRig(t, doc, tc.args)
			if tc.counted != nil {
				r.proc.CallsOf = func(context.Context) map[string]int { return tc.counted }
			}
			if tc.noRoute {
				f := *child.Flow
				f.Route = nil
				child.Flow = &f
			}
			tc.rec.MessageID, tc.rec.SessionKey = child.ID, child.SessionKey
			for range 2 { // the second call is a replay
				if err := r.proc.FinishSubagent(context.Background(), child, tc.rec); err != nil {
					t.Fatalf("FinishSubagent: %v", err)
				}
			}
			handleResults(t, r, q, "agent:main:main") // the requester did not yield: its runner announces
			items, err := out.List(context.Background(), "", 10)
			if err != nil {
				t.Fatal(err)
			}
			checkAnnounce(t, items, child, tc.want, tc.stats)
			if gone := r.entry(t, child.SessionKey) == nil; gone != tc.deleted {
				t.Errorf("child session deleted = %v; want %v", gone, tc.deleted)
			}
		})
	}
}

// checkAnnounce checks the outbox holds one sub-agent item for the
// requester's chat with want's lines and a stats line holding stats, or
// nothing when want is nil.
func checkAnnounce(t *testing.T, items []outbox.Item, child inbound.Message, want, stats []string) {
	t.Helper()
	if want == nil {
		if len(items) != 0 {
			t.Errorf("outbox = %+v; want nothing", items)
		}
		return
	}
	if len(items) != 1 {
		t.Fatalf("outbox = %+v; want one item", items)
	}
	it := items[0]
	if it.Kind != outbox.KindSubagent || it.SessionKey != child.SessionKey || it.Delivery != (session.DeliveryContext{Channel: "telegram", To: "7"}) {
		t.Errorf("item = %+v; want a sub-agent item of %s for telegram 7", it, child.SessionKey)
	}
	lines := strings.Split(it.Text, "\n")
	if diff := cmp.Diff(want, lines[:len(lines)-1]); diff != "" {
		t.Errorf("announce (-want +got):\n%s", diff)
	}
	last := lines[len(lines)-1]
	for _, s := range append([]string{"Stats: ", "session " + child.SessionKey}, stats...) {
		if !strings.Contains(last, s) {
			t.Errorf("stats line %q lacks %q", last, s)
		}
	}
}

// TestStopStopsSubagents: /stop in the requester writes its mark on each
// sub-agent it spawned whose run has not ended (running, or still
// queued) and says how many; a finished one is left alone, and with none
// running the reply is as before.
func TestStopStopsSubagents(t *testing.T) {
	tests := []struct {
		name     string
		statuses []string // the spawned runs' statuses; "" not started
		want     string
		marked   []bool
		folded   bool // the context is past its inline budget: the spawns are in its base object
	}{
		{name: "one running, one queued, one done", statuses: []string{run.StatusRunning, "", run.StatusOK},
			want: "⏹️ Stopped. 2 sub-agent(s) stopped.", marked: []bool{true, true, false}},
		{name: "spawns folded into the context's base object are found", statuses: []string{run.StatusRunning, ""}, folded: true,
			want: "⏹️ Stopped. 2 sub-agent(s) stopped.", marked: []bool{true, true}},
		{name: "all done", statuses: []string{run.StatusOK, run.StatusAborted},
			want: "Nothing was running.", marked: []bool{false, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, q := sendRig(t, sessionsConfig)
			runs := runtest.NewMemStore()
			r.proc.Runs = runs
			if tc.folded {
				r.proc.Contexts = contextstore.New(transcripttest.NewMemBucket()).WithInline(64)
			}
			var calls []model.Response
			for i := range tc.statuses {
				calls = append(calls, model.Response{StopReason: model.StopToolUse, ToolCalls: []model.ToolCall{{ID: "c" + string(rune('a'+i)), Name: "sessions_spawn", Arguments: `{"task": "t"}`}}})
			}
			r.proc.Models["zero"] = &scriptModel{answers: append(calls, final("spawned"))}
			r.handle(t, msg(2000, "spawn them"))
			for i, st := range tc.statuses {
				if st == "" {
					continue
				}
				m := q.queued[i]
				rec := run.Record{RunID: run.NewID(m.ID), SessionKey: m.SessionKey, Status: st, StartedAt: 1}
				var err error
				if run.Terminal(st) {
					rec.EndedAt = 2
					err = runs.Settle(rec, nil)
				} else {
					err = runs.Start(context.Background(), rec, nil)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			stop := msg(2001, "/stop")
			if err := r.store.MarkStop(context.Background(), stop.SessionKey, stopmark.Mark{MessageID: stop.ID, At: r.clock.UnixMilli(), Pending: true}); err != nil {
				t.Fatal(err)
			}
			r.handle(t, stop)
			if got := r.lastSent(t); got != tc.want {
				t.Errorf("/stop reply = %q; want %q", got, tc.want)
			}
			for i, want := range tc.marked {
				s, err := r.store.StopMark(context.Background(), q.queued[i].SessionKey)
				if err != nil {
					t.Fatal(err)
				}
				if got := s != nil && s.MessageID == stop.ID && s.Pending; got != want {
					t.Errorf("sub-agent %d marked = %v (%+v); want %v", i, got, s, want)
				}
			}
		})
	}
}

// TestFailedSubagentIsAnnounced: a sub-agent's message that fails on its
// last attempt (it goes to the dead-letter queue next) ends its run in
// error and tells the requester (its result, then the outbox), with Status error
// and the reason — once, however often the failure is reported; an
// attempt that is not the last announces nothing yet.
func TestFailedSubagentIsAnnounced(t *testing.T) {
	r, q, out, child := spawnRig(t, sessionsConfig, `{"task": "count errors"}`)
	runs := runtest.NewMemStore()
	r.proc.Runs = runs
	cause := fault.New(fault.Unavailable, "the model provider is down")
	r.proc.Failed(context.Background(), []inbound.Message{child}, []int{4}, false, cause)
	if items, _ := out.List(context.Background(), "", 10); len(items) != 0 {
		t.Fatalf("an attempt that is not the last announced %+v", items)
	}
	for range 2 { // the second report is a replay
		r.proc.Failed(context.Background(), []inbound.Message{child}, []int{5}, true, cause)
	}
	handleResults(t, r, q, "agent:main:main")
	items, err := out.List(context.Background(), "", 10)
	if err != nil {
		t.Fatal(err)
	}
	checkAnnounce(t, items, child, []string{"Status: error",
		"Result: The sub-agent's run failed on every attempt and was set aside for the operator: the model provider is down",
		"Notes: none"}, nil)
	rec, err := runs.Get(context.Background(), run.NewID(child.ID))
	if err != nil || rec.Status != run.StatusError || !strings.Contains(rec.Error, "provider is down") {
		t.Errorf("run record = %+v, %v; want ended in error with the reason", rec, err)
	}
}
