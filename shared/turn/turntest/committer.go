package turntest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/run/runtest"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/stopmark"
	"github.com/zero-gateway/zero/shared/turn"
)

// stopMarker is how the suite writes a stop mark (both stores have it; it
// is the channel function's write, not part of turn.Stops).
type stopMarker interface {
	MarkStop(ctx context.Context, key string, s stopmark.Mark) error
}

// TestCommitter checks the turn.Committer contract: CommitWith writes the
// run outcome with the commit, all or nothing, and refuses a commit a
// pending /stop of another message stops. newStore returns a store and
// the run store its commits write to; keys and ids are unique per subtest.
func TestCommitter(t *testing.T, newStore func(t *testing.T) (turn.Store, runtest.Store)) {
	ctx := context.Background()
	ids := func(t *testing.T) (key, msg string) {
		n := strings.ReplaceAll(t.Name(), "/", "_")
		return "agent:main:suite:" + strings.ToLower(n), "suite:" + n
	}
	entry := session.Entry{SessionID: "s1", UpdatedAt: 1700000000000, AgentID: "main", Version: 1}
	const now = int64(1700000000000)
	outcome := func(msg string, events int) *run.Outcome {
		id := run.NewID(msg)
		o := &run.Outcome{Record: run.Record{RunID: id, SessionKey: "k", MessageID: msg, Status: run.StatusOK,
			StartedAt: now, EndedAt: now + 5, Usage: run.Usage{Input: 3, Output: 4, Total: 7}, Model: "zero/echo"}}
		for i := 1; i <= events; i++ {
			o.Events = append(o.Events, run.Event{RunID: id, Seq: int64(i), Stream: run.StreamAssistant, TS: now, Data: []byte(fmt.Sprintf(`{"text":"part %d"}`, i))})
		}
		return o
	}
	commit := func(s turn.Store, key, msg string, x sessionstate.Extra) error {
		return s.(turn.Committer).CommitWith(ctx, key, entry, sessionstate.ModelContext{SessionID: "s1"}, receipt.Receipt{MessageID: msg, SessionKey: key}, x)
	}
	checkRun := func(t *testing.T, runs runtest.Store, want *run.Outcome) {
		t.Helper()
		got, err := runs.Get(ctx, want.Record.RunID)
		if err != nil || !reflect.DeepEqual(got, want.Record) {
			t.Fatalf("run record = %+v, %v\nwant %+v", got, err, want.Record)
		}
		evs, err := runs.Events(ctx, want.Record.RunID, 0, run.MaxLimit)
		if err != nil || len(evs) != len(want.Events) || (len(evs) > 0 && !reflect.DeepEqual(evs, want.Events)) {
			t.Fatalf("events = %d, %v; want the %d committed", len(evs), err, len(want.Events))
		}
	}

	t.Run("runs of its own run store only", func(t *testing.T) {
		s, runs := newStore(t)
		c := s.(turn.Committer)
		if !c.CommitsRunsOf(runs) || c.CommitsRunsOf(runtest.NewMemStore()) {
			t.Fatalf("CommitsRunsOf: own %v, another %v; want true, false", c.CommitsRunsOf(runs), c.CommitsRunsOf(runtest.NewMemStore()))
		}
	})
	for _, n := range []int{0, 3, 150} {
		t.Run(fmt.Sprintf("outcome of a run without a record, %d events", n), func(t *testing.T) {
			s, runs := newStore(t)
			key, msg := ids(t)
			o := outcome(msg, n)
			if err := commit(s, key, msg, sessionstate.Extra{Run: o}); err != nil {
				t.Fatalf("CommitWith: %v", err)
			}
			checkRun(t, runs, o)
		})
	}
	t.Run("outcome over a running record keeps what Start wrote", func(t *testing.T) {
		s, runs := newStore(t)
		key, msg := ids(t)
		o := outcome(msg, 2)
		started := o.Record
		started.Status, started.StartedAt, started.EndedAt, started.Usage = run.StatusRunning, now-100, 0, run.Usage{}
		if err := runs.Start(ctx, started, o.Events[:1]); err != nil {
			t.Fatalf("Start: %v", err)
		}
		if err := commit(s, key, msg, sessionstate.Extra{Run: &run.Outcome{Record: o.Record, Events: o.Events[1:]}}); err != nil {
			t.Fatalf("CommitWith: %v", err)
		}
		o.Record.StartedAt = now - 100
		checkRun(t, runs, o)
	})
	t.Run("a refused commit writes no outcome", func(t *testing.T) {
		s, runs := newStore(t)
		key, msg := ids(t)
		if err := commit(s, key, msg+"-first", sessionstate.Extra{}); err != nil {
			t.Fatalf("CommitWith: %v", err)
		}
		o := outcome(msg, 2)
		if err := commit(s, key, msg, sessionstate.Extra{Run: o}); !fault.Is(err, fault.Conflict) {
			t.Fatalf("CommitWith at a taken version = %v; want fault.Conflict", err)
		}
		if _, err := runs.Get(ctx, o.Record.RunID); !fault.Is(err, fault.NotFound) {
			t.Fatalf("run of a refused commit: %v; want fault.NotFound", err)
		}
	})
	testStopCheck(t, newStore, ids, commit, outcome)
}

// testStopCheck checks Extra.Stop: which marks refuse a commit, and that a
// refused one writes nothing.
func testStopCheck(t *testing.T, newStore func(t *testing.T) (turn.Store, runtest.Store), ids func(*testing.T) (string, string),
	commit func(turn.Store, string, string, sessionstate.Extra) error, outcome func(string, int) *run.Outcome) {
	ctx := context.Background()
	const now = int64(1700000000000)
	tests := []struct {
		name    string
		mark    func(msg string) *stopmark.Mark // nil: no mark
		stopped bool
	}{
		{"no mark", func(string) *stopmark.Mark { return nil }, false},
		{"pending for another message", func(string) *stopmark.Mark {
			return &stopmark.Mark{MessageID: "stop-1", At: now - 1000, Pending: true}
		}, true},
		{"the message's own mark", func(msg string) *stopmark.Mark { return &stopmark.Mark{MessageID: msg, At: now - 1000, Pending: true} }, false},
		{"no longer pending", func(string) *stopmark.Mark { return &stopmark.Mark{MessageID: "stop-1", At: now - 1000, Aborted: 1} }, false},
		{"expired", func(string) *stopmark.Mark {
			return &stopmark.Mark{MessageID: "stop-1", At: now - stopmark.Expiry, Pending: true}
		}, false},
	}
	for _, tc := range tests {
		t.Run("stop check: "+tc.name, func(t *testing.T) {
			s, runs := newStore(t)
			key, msg := ids(t)
			if m := tc.mark(msg); m != nil {
				if err := s.(stopMarker).MarkStop(ctx, key, *m); err != nil {
					t.Fatalf("MarkStop: %v", err)
				}
			}
			o := outcome(msg, 1)
			err := commit(s, key, msg, sessionstate.Extra{Run: o, Stop: &stopmark.Check{MessageID: msg, NowMS: now}})
			if !tc.stopped {
				if err != nil {
					t.Fatalf("CommitWith: %v", err)
				}
				return
			}
			if !errors.Is(err, stopmark.ErrPending) || !fault.Is(err, fault.Conflict) {
				t.Fatalf("CommitWith = %v; want stopmark.ErrPending, fault.Conflict", err)
			}
			snap, _ := s.Load(ctx, key, msg)
			if snap.Entry != nil || snap.Receipt != nil {
				t.Fatalf("a stopped commit wrote %+v", snap)
			}
			if _, err := runs.Get(ctx, o.Record.RunID); !fault.Is(err, fault.NotFound) {
				t.Fatalf("run of a stopped commit: %v; want fault.NotFound", err)
			}
		})
	}
}
