package turntest

import (
	"context"
	"errors"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run/runtest"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/session/sessiontest"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/turn"
)

func TestMemStore(t *testing.T) {
	TestStore(t, func(*testing.T) turn.Store { return NewMemStore() })
}

func TestMemSessionStore(t *testing.T) {
	sessiontest.TestStore(t, func(*testing.T) sessiontest.Harness { return SessionHarness(NewMemStore()) })
}

// A CrashStore passes the conformance suite too (with no crash set), Move
// included.
func TestCrashStore(t *testing.T) {
	TestStore(t, func(*testing.T) turn.Store { return &CrashStore{Store: NewMemStore()} })
}

func TestCrashStoreMove(t *testing.T) {
	ctx := context.Background()
	e := session.Entry{SessionID: "s", Version: 1}
	r := receipt.Receipt{MessageID: "m", SessionKey: "to"}
	tests := []struct {
		name      string
		crash     func(*CrashStore)
		wantMoved bool
	}{
		{"commit before: nothing moved", func(c *CrashStore) { c.CommitBefore = 1 }, false},
		{"commit after: moved, then the crash", func(c *CrashStore) { c.CommitAfter = 1 }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := NewMemStore()
			if err := mem.Commit(ctx, "from", e, sessionstate.ModelContext{}, receipt.Receipt{MessageID: "first"}); err != nil {
				t.Fatal(err)
			}
			c := &CrashStore{Store: mem}
			tc.crash(c)
			if err := c.Move(ctx, "from", 1, "to", e, r); !errors.Is(err, ErrCrash) {
				t.Fatalf("Move = %v; want ErrCrash", err)
			}
			if _, err := mem.Get(ctx, "to"); (err == nil) != tc.wantMoved {
				t.Fatalf("after the crash Get(to) = %v; moved want %v", err, tc.wantMoved)
			}
			// The counter is spent: the retry goes through (or finds the
			// move done).
			err := c.Move(ctx, "from", 1, "to", e, r)
			if tc.wantMoved && !fault.Is(err, fault.Conflict) || !tc.wantMoved && err != nil {
				t.Fatalf("retried Move = %v", err)
			}
		})
	}
	t.Run("a store without Mover", func(t *testing.T) {
		c := &CrashStore{Store: struct{ turn.Store }{NewMemStore()}}
		if err := c.Move(ctx, "from", 1, "to", e, r); !fault.Is(err, fault.Internal) {
			t.Fatalf("Move = %v; want fault.Internal", err)
		}
	})
}

func TestMemCommitter(t *testing.T) {
	TestCommitter(t, func(*testing.T) (turn.Store, runtest.Store) {
		runs := runtest.NewMemStore()
		return NewMemStore().UseRuns(runs), runs
	})
}

// A CrashStore passes the Committer suite too (with no crash set).
func TestCrashStoreCommitter(t *testing.T) {
	TestCommitter(t, func(*testing.T) (turn.Store, runtest.Store) {
		runs := runtest.NewMemStore()
		return &CrashStore{Store: NewMemStore().UseRuns(runs)}, runs
	})
}

func TestMemStopMarks(t *testing.T) {
	TestStopMarks(t, func(*testing.T) StopStore { return NewMemStore() })
}
