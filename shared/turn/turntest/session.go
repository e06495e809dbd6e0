package turntest

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/session/sessiontest"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/turn"
)

var (
	_ session.Store   = (*MemStore)(nil)
	_ session.Deleter = (*MemStore)(nil)
	_ turn.Mover      = (*MemStore)(nil)
)

// Get implements session.Store.
func (m *MemStore) Get(_ context.Context, key string) (session.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	e, ok := m.entries[key]
	if !ok {
		return session.Entry{}, fault.New(fault.NotFound, "no session %s", key)
	}
	return e, nil
}

// Lookup implements session.Store (by a linear search: it is a test store).
func (m *MemStore) Lookup(_ context.Context, sessionID string) (string, session.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	if sessionID == "" {
		return "", session.Entry{}, fault.New(fault.Invalid, "look up session: session id is required")
	}
	for key, e := range m.entries {
		if e.SessionID == sessionID {
			return key, e, nil
		}
	}
	return "", session.Entry{}, fault.New(fault.NotFound, "no session has id %s", sessionID)
}

// List implements session.Store. Entries with equal updatedAt come in key
// order.
func (m *MemStore) List(_ context.Context, q session.ListQuery) ([]session.Listed, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	if q.AgentID == "" {
		return nil, fault.New(fault.Invalid, "list sessions: agent id is required")
	}
	limit := q.Limit
	if limit <= 0 {
		limit = session.DefaultListLimit
	}
	limit = min(limit, session.MaxListLimit)
	var rows []session.Listed
	for key, e := range m.entries {
		if e.AgentID == q.AgentID && e.UpdatedAt >= q.ActiveSince && key != session.KeyGlobal && key != session.KeyUnknown {
			rows = append(rows, session.Listed{Key: key, Entry: e})
		}
	}
	slices.SortFunc(rows, func(a, b session.Listed) int {
		return cmp.Or(cmp.Compare(b.Entry.UpdatedAt, a.Entry.UpdatedAt), cmp.Compare(a.Key, b.Key))
	})
	return rows[:min(len(rows), limit)], nil
}

// Update implements session.Store. It holds the lock while fn runs, so it
// never loses a race; fn must not call the store.
func (m *MemStore) Update(_ context.Context, key string, fn func(*session.Entry) error) (session.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	stored, ok := m.entries[key]
	if !ok {
		return session.Entry{}, fault.New(fault.NotFound, "no session %s", key)
	}
	next, err := session.Apply(stored, fn)
	if err != nil {
		return session.Entry{}, err
	}
	m.entries[key] = next
	return next, nil
}

// Delete implements session.Deleter: it removes the entry and context of
// key; records stay. Deleting a missing key succeeds.
func (m *MemStore) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	delete(m.entries, key)
	delete(m.contexts, key)
	return nil
}

// Move implements turn.Mover.
func (m *MemStore) Move(_ context.Context, from string, fromVersion int64, to string, e session.Entry, r receipt.Receipt) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	old, exists := m.entries[from]
	_, taken := m.entries[to]
	_, recorded := m.records[r.MessageID]
	switch {
	case from == to || e.Version != 1:
		return fault.New(fault.Invalid, "move session %s to %s at version %d", from, to, e.Version)
	case taken:
		return fault.New(fault.Conflict, "session %s exists", to)
	case !exists || old.Version != fromVersion:
		return fault.New(fault.Conflict, "session %s is not at version %d", from, fromVersion)
	case recorded:
		return fault.New(fault.Conflict, "message %s already committed", r.MessageID)
	}
	r.State = receipt.Committed
	m.entries[to] = e
	delete(m.entries, from)
	delete(m.contexts, from)
	m.records[r.MessageID] = r
	return nil
}

// SessionStore is a store that serves both the runner and the session API,
// as MemStore and shared/dynamo's Store do.
type SessionStore interface {
	turn.Store
	session.Store
}

// seeds numbers the message ids of SessionHarness's commits; seedRun keeps
// them apart from an earlier run's on a kept table.
var (
	seeds   atomic.Int64
	seedRun = rand.Text()[:8]
)

// SessionHarness adapts s to sessiontest.TestStore: it seeds an entry with
// a turn Commit (with a one-message context and a record under a fresh
// message id) and reads the context back with Load.
func SessionHarness(s SessionStore) sessiontest.Harness {
	return sessiontest.Harness{
		Store: s,
		Seed: func(ctx context.Context, key string, e session.Entry) error {
			msg := fmt.Sprintf("sessiontest:%s:%s:%d", seedRun, key, seeds.Add(1))
			c := sessionstate.ModelContext{SessionID: e.SessionID, Messages: []model.Message{{Role: model.User, Content: "hi"}}}
			return s.Commit(ctx, key, e, c, receipt.Receipt{MessageID: msg, SessionKey: key, State: receipt.Committed})
		},
		HasContext: func(ctx context.Context, key string) (bool, error) {
			snap, err := s.Load(ctx, key, "sessiontest:probe")
			return snap.Context != nil, err
		},
	}
}
