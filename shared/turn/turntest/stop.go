package turntest

import (
	"context"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/turn"
)

var _ turn.Stops = (*MemStore)(nil)

// MarkStop writes key's stop mark, as a channel function does when a /stop
// arrives; it replaces any earlier mark.
func (m *MemStore) MarkStop(_ context.Context, key string, s turn.Stop) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	m.stops[key] = s
	return nil
}

// StopMark implements turn.Stops.
func (m *MemStore) StopMark(_ context.Context, key string) (*turn.Stop, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	s, ok := m.stops[key]
	if !ok {
		return nil, nil
	}
	return &s, nil
}

// CountStop implements turn.Stops.
func (m *MemStore) CountStop(_ context.Context, key, stopMessageID string, aborted bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	s, ok := m.stops[key]
	if !ok || s.MessageID != stopMessageID {
		return nil
	}
	if aborted {
		s.Aborted++
	} else {
		s.Dropped++
	}
	m.stops[key] = s
	return nil
}

// StopDone implements turn.Stops.
func (m *MemStore) StopDone(_ context.Context, key, stopMessageID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	if s, ok := m.stops[key]; ok && s.MessageID == stopMessageID {
		s.Pending = false
		m.stops[key] = s
	}
	return nil
}

// StopMark passes through to the wrapped store's turn.Stops (nil mark when
// it has none), so the runner's /stop path runs under crash tests too.
func (s *CrashStore) StopMark(ctx context.Context, key string) (*turn.Stop, error) {
	if st, ok := s.Store.(turn.Stops); ok {
		return st.StopMark(ctx, key)
	}
	return nil, nil
}

// CountStop passes through to the wrapped store's turn.Stops.
func (s *CrashStore) CountStop(ctx context.Context, key, stopMessageID string, aborted bool) error {
	if st, ok := s.Store.(turn.Stops); ok {
		return st.CountStop(ctx, key, stopMessageID, aborted)
	}
	return nil
}

// StopDone passes through to the wrapped store's turn.Stops.
func (s *CrashStore) StopDone(ctx context.Context, key, stopMessageID string) error {
	if st, ok := s.Store.(turn.Stops); ok {
		return st.StopDone(ctx, key, stopMessageID)
	}
	return nil
}

// MarkStop passes through to the wrapped store's MarkStop, as a channel
// function writes the mark; a store without it returns fault.Internal.
func (s *CrashStore) MarkStop(ctx context.Context, key string, st turn.Stop) error {
	m, ok := s.Store.(interface {
		MarkStop(ctx context.Context, key string, s turn.Stop) error
	})
	if !ok {
		return fault.New(fault.Internal, "mark stop: %T cannot", s.Store)
	}
	return m.MarkStop(ctx, key, st)
}
