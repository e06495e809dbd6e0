package turntest

import (
	"context"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/run/runtest"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/stopmark"
	"github.com/zero-gateway/zero/shared/turn"
)

var _ turn.Committer = (*MemStore)(nil)

// UseRuns makes CommitWith write run outcomes into runs (the run store a
// Processor's Runs field names), as the DynamoDB store writes them into
// its own table; without it CommitsRunsOf is false for every run store.
func (m *MemStore) UseRuns(runs *runtest.MemStore) *MemStore {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.runs = runs
	return m
}

// CommitsRunsOf implements turn.Committer.
func (m *MemStore) CommitsRunsOf(rs run.Store) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := rs.(*runtest.MemStore)
	return ok && m.runs != nil && r == m.runs
}

// CommitWith implements turn.Committer: the stop check, the commit and
// the run's outcome happen under the store's lock, so the whole is atomic
// (the run store is only ever written after the checks passed).
func (m *MemStore) CommitWith(_ context.Context, key string, e session.Entry, c sessionstate.ModelContext, r receipt.Receipt, x sessionstate.Extra) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	if x.Run != nil {
		if m.runs == nil {
			return fault.New(fault.Internal, "commit turn %s: this store has no run store (UseRuns)", r.MessageID)
		}
		if err := x.Run.Record.CheckFinish(); err != nil {
			return err
		}
		if err := run.CheckEvents(x.Run.Record.RunID, x.Run.Events); err != nil {
			return err
		}
	}
	if s := x.Stop; s != nil {
		if st, ok := m.stops[key]; ok && st.Active(s.MessageID, s.NowMS) {
			return fault.Wrap(fault.Conflict, stopmark.ErrPending, "commit turn %s: stopped by %s", r.MessageID, st.MessageID)
		}
	}
	if err := m.commit(key, e, c, r); err != nil {
		return err
	}
	if x.Run != nil {
		return m.runs.Settle(x.Run.Record, x.Run.Events) // checked above: cannot fail
	}
	return nil
}

// CommitsRunsOf implements turn.Committer for the wrapped store.
func (s *CrashStore) CommitsRunsOf(rs run.Store) bool {
	c, ok := s.Store.(turn.Committer)
	return ok && c.CommitsRunsOf(rs)
}

// CommitWith implements turn.Committer, failing like Commit (the two share
// the Commit counters). A wrapped store without the capability commits
// with Commit when x asks for nothing.
func (s *CrashStore) CommitWith(ctx context.Context, key string, e session.Entry, c sessionstate.ModelContext, r receipt.Receipt, x sessionstate.Extra) error {
	return s.around(&s.CommitBefore, &s.CommitAfter, func() error {
		if cm, ok := s.Store.(turn.Committer); ok {
			return cm.CommitWith(ctx, key, e, c, r, x)
		}
		if x.Run != nil || x.Stop != nil {
			return fault.New(fault.Internal, "commit turn %s: %T does not implement turn.Committer", r.MessageID, s.Store)
		}
		return s.Store.Commit(ctx, key, e, c, r)
	})
}
