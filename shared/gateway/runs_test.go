package gateway

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/run/runtest"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/transcript"
)

// pricedDoc prices openai/gpt-5 (USD per million tokens).
const pricedDoc = `{models: {providers: {openai: {models: [{id: "gpt-5", cost: {input: 1.25, output: 10}}]}}}}`

// runsKey is a session with three turns: the first's run record is gone,
// the second's ran ok on a priced model, the third's failed on an
// unpriced one.
const (
	runsKey = "agent:main:runs"
	runsSID = "r1"
)

var runsMsgs = []string{"api:runs-1", "api:runs-2", "api:runs-3"}

// assistantLine is an assistant message of provider/model with usage.
func assistantLine(id, source, provider, name string, in, out int64) transcript.Line {
	return transcript.Line{Type: "message", ID: id, SourceID: source, Timestamp: "2026-03-01T12:00:00.000Z",
		Message: &transcript.Message{Role: "assistant", Provider: provider, Model: name, Timestamp: 1,
			Content: []transcript.Content{{Type: "text", Text: "reply " + id}},
			Usage:   &transcript.Usage{Input: in, Output: out, TotalTokens: in + out}}}
}

// seedRuns stores the runsKey session, its transcript and its runs.
func seedRuns(f *fixture) {
	f.t.Helper()
	f.seed(runsKey, session.Entry{SessionID: runsSID, AgentID: "main", UpdatedAt: nowMS - 600*minuteMS, TranscriptSeq: 3})
	path := transcript.Path("main", runsSID, "")
	for i, src := range runsMsgs {
		user := textLine("u"+src[len(src)-1:], "user", "question")
		user.SourceID = src
		var reply transcript.Line
		switch i {
		case 0:
			reply = assistantLine("a1", src, "openai", "gpt-5", 0, 0)
			reply.Message.Usage = nil // no usage: no cost
		case 1:
			reply = assistantLine("a2", src, "openai", "gpt-5", 1000, 500)
		default:
			reply = assistantLine("a3", src, "anthropic", "claude-x", 2000, 100)
		}
		f.writeTranscript(path, int64(i+1), user, reply)
	}
	ctx := context.Background()
	for i, rec := range []run.Record{
		{RunID: run.NewID(runsMsgs[1]), Status: run.StatusOK, StartedAt: nowMS - 5000, EndedAt: nowMS - 3500, Model: "openai/gpt-5", Usage: run.Usage{Input: 1000, Output: 500, Total: 1500},
			InfraCostUSD: 0.00002},
		{RunID: run.NewID(runsMsgs[2]), Status: run.StatusError, StartedAt: nowMS - 3000, EndedAt: nowMS - 1000, Model: "anthropic/claude-x", Error: "model refused"},
	} {
		start := rec
		start.Status, start.EndedAt, start.SessionKey, start.MessageID = run.StatusRunning, 0, runsKey, runsMsgs[i+1]
		if err := f.runs.Start(ctx, start, nil); err != nil {
			f.t.Fatal(err)
		}
		if err := f.runs.Finish(ctx, rec, nil); err != nil {
			f.t.Fatal(err)
		}
	}
}

// batchRuns is a run store with GetMany, counting its calls.
type batchRuns struct {
	*runtest.MemStore
	calls int
	err   error
}

func (b *batchRuns) GetMany(ctx context.Context, ids []string) ([]run.Record, error) {
	b.calls++
	if b.err != nil {
		return nil, b.err
	}
	var out []run.Record
	for _, id := range ids {
		if r, err := b.Get(ctx, id); err == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

// TestSessionsRuns lists a session's runs from its transcript parts'
// sourceIds, newest first, with their records' state.
func TestSessionsRuns(t *testing.T) {
	all := []SessionRun{
		{RunID: run.NewID(runsMsgs[2]), MessageID: runsMsgs[2], Seq: 3, Status: run.StatusError, StartedAt: nowMS - 3000, EndedAt: nowMS - 1000, DurationMs: 2000, Model: "anthropic/claude-x", Error: "model refused"},
		{RunID: run.NewID(runsMsgs[1]), MessageID: runsMsgs[1], Seq: 2, Status: run.StatusOK, StartedAt: nowMS - 5000, EndedAt: nowMS - 3500, DurationMs: 1500, Model: "openai/gpt-5", Usage: run.Usage{Input: 1000, Output: 500, Total: 1500},
			ModelCostUSD: usdPtr(0.00625), InfraCostUSD: usdPtr(0.00002)},
		{RunID: run.NewID(runsMsgs[0]), MessageID: runsMsgs[0], Seq: 1, Status: RunStatusUnknown},
	}
	unpriced := slices.Clone(all)
	unpriced[1].ModelCostUSD = nil
	tests := []struct {
		name      string
		batch     bool // Runs has GetMany
		unpriced  bool // the config prices no model
		params    map[string]any
		want      []SessionRun
		wantCalls int // GetMany calls
	}{
		{name: "newest first, a gone record unknown", params: map[string]any{"sessionKey": runsKey}, want: all},
		{name: "limit reads the newest turns only", params: map[string]any{"sessionKey": runsKey, "limit": 1}, want: all[:1]},
		{name: "by sessionId", params: map[string]any{"sessionId": runsSID}, want: all},
		{name: "one batch read", batch: true, params: map[string]any{"sessionKey": runsKey, "limit": 1000}, want: all, wantCalls: 1},
		{name: "a session without turns", batch: true, params: map[string]any{"sessionId": "c1"}, want: []SessionRun{}},
		{name: "no model price: no model cost", unpriced: true, params: map[string]any{"sessionKey": runsKey}, want: unpriced},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			br := &batchRuns{}
			doc := pricedDoc
			if tc.unpriced {
				doc = ""
			}
			f := newFixture(t, doc, func(d *Deps) {
				if tc.batch {
					br.MemStore = d.Runs.(*runtest.MemStore)
					d.Runs = br
				}
			})
			seedSessions(f)
			seedRuns(f)
			var got SessionRunsResult
			f.call("sessions.runs", tc.params).decode(t, &got)
			if diff := cmp.Diff(tc.want, got.Runs); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			if br.calls != tc.wantCalls {
				t.Errorf("GetMany calls %d; want %d", br.calls, tc.wantCalls)
			}
		})
	}
}

// TestSessionsRunsErrors: bad params, a missing session, a failed read.
func TestSessionsRunsErrors(t *testing.T) {
	tests := []struct {
		name     string
		batchErr error
		params   map[string]any
		status   int
		code     fault.Code
		msg      string
	}{
		{name: "zero limit", params: map[string]any{"limit": 0}, status: http.StatusBadRequest, code: fault.Invalid, msg: "params.limit: must be >= 1, got 0"},
		{name: "key and id", params: map[string]any{"sessionKey": runsKey, "sessionId": runsSID}, status: http.StatusBadRequest, code: fault.Invalid, msg: "params: give sessionKey or sessionId, not both"},
		{name: "no such session", params: map[string]any{"sessionKey": "nobody"}, status: http.StatusNotFound, code: fault.NotFound, msg: `no session "nobody"`},
		{name: "the run store fails", batchErr: fault.Wrap(fault.Unavailable, errors.New("throttled"), "read runs"), params: map[string]any{"sessionKey": runsKey},
			status: http.StatusServiceUnavailable, code: fault.Unavailable, msg: "read runs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", func(d *Deps) { d.Runs = &batchRuns{MemStore: d.Runs.(*runtest.MemStore), err: tc.batchErr} })
			seedRuns(f)
			f.call("sessions.runs", tc.params).wantError(t, tc.status, tc.code, tc.msg)
		})
	}
}

// TestTranscriptCost prices assistant messages with usage whose model has
// a configured price, and only those.
func TestTranscriptCost(t *testing.T) {
	f := newFixture(t, pricedDoc)
	seedRuns(f)
	var got TranscriptResult
	f.call("chat.transcript", map[string]any{"sessionKey": runsKey}).decode(t, &got)
	costs := map[string]*float64{}
	for _, p := range got.Parts {
		for _, l := range p.Lines {
			costs[l.ID] = l.CostUSD
		}
	}
	usd := func(v float64) *float64 { return &v }
	want := map[string]*float64{
		"u1": nil, "u2": nil, "u3": nil, // user messages
		"a1": nil,          // no usage
		"a2": usd(0.00625), // 1000 in at 1.25/M + 500 out at 10/M
		"a3": nil,          // anthropic/claude-x has no price
	}
	if diff := cmp.Diff(want, costs); diff != "" {
		t.Errorf("costs by line (-want +got):\n%s", diff)
	}
}

// fakeDLQ is a dead-letter queue of fixed counts, or failing.
type fakeDLQ struct {
	visible, inFlight int
	err               error
}

func (q fakeDLQ) Counts(context.Context) (int, int, error) { return q.visible, q.inFlight, q.err }

// TestStatusDeadLetters reports each dead-letter queue's depth; one that
// cannot be read is reported with its error and status still answers.
func TestStatusDeadLetters(t *testing.T) {
	tests := []struct {
		name   string
		queues []DeadLetterQueue
		want   []DeadLetterDepth
	}{
		{name: "none configured", want: nil},
		{name: "both lanes", queues: []DeadLetterQueue{{"work", fakeDLQ{visible: 3, inFlight: 1}}, {"subagent", fakeDLQ{}}},
			want: []DeadLetterDepth{{Name: "work", Visible: 3, InFlight: 1}, {Name: "subagent"}}},
		{name: "one unreadable", queues: []DeadLetterQueue{{"work", fakeDLQ{err: fault.New(fault.Unavailable, "read the depth of q")}}, {"subagent", fakeDLQ{visible: 2}}},
			want: []DeadLetterDepth{{Name: "work", Error: "read the depth of q"}, {Name: "subagent", Visible: 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", func(d *Deps) { d.DeadLetters = tc.queues })
			var got StatusResult
			f.call("status", map[string]any{}).decode(t, &got)
			if diff := cmp.Diff(tc.want, got.DeadLetters); diff != "" {
				t.Errorf("deadLetters (-want +got):\n%s", diff)
			}
		})
	}
}

func usdPtr(v float64) *float64 { return &v }
