package turntest

import (
	"context"
	"slices"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/steer"
	"github.com/zero-gateway/zero/shared/turn"
)

var (
	_ turn.Steering = (*MemStore)(nil)
	_ turn.Steering = (*CrashStore)(nil)
)

// RecordSteer records a pending steer message of key (the ingest door's
// write for a steer-mode session); recording the same message again
// changes nothing.
func (m *MemStore) RecordSteer(_ context.Context, key string, p steer.Pending) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	if m.steers == nil {
		m.steers = map[string][]steer.Pending{}
	}
	if !slices.ContainsFunc(m.steers[key], func(q steer.Pending) bool { return q.MessageID == p.MessageID }) {
		m.steers[key] = append(m.steers[key], p)
	}
	return nil
}

// PendingSteer implements turn.Steering.
func (m *MemStore) PendingSteer(_ context.Context, key string) ([]steer.Pending, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	return slices.Clone(m.steers[key]), nil
}

// Recorded implements turn.Steering.
func (m *MemStore) Recorded(_ context.Context, ids []string) (map[string]bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	out := map[string]bool{}
	for _, id := range ids {
		if _, ok := m.records[id]; ok {
			out[id] = true
		}
	}
	return out, nil
}

// DropSteer implements turn.Steering.
func (m *MemStore) DropSteer(_ context.Context, key string, ids []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	if len(m.steers[key]) == 0 {
		return nil
	}
	m.steers[key] = slices.DeleteFunc(m.steers[key], func(p steer.Pending) bool { return slices.Contains(ids, p.MessageID) })
	return nil
}

// The CrashStore steers through its Store when that can.

func (s *CrashStore) steering() (turn.Steering, error) {
	st, ok := s.Store.(turn.Steering)
	if !ok {
		return nil, fault.New(fault.Internal, "the crash store's store cannot steer")
	}
	return st, nil
}

// PendingSteer implements turn.Steering.
func (s *CrashStore) PendingSteer(ctx context.Context, key string) ([]steer.Pending, error) {
	st, err := s.steering()
	if err != nil {
		return nil, err
	}
	return st.PendingSteer(ctx, key)
}

// Recorded implements turn.Steering.
func (s *CrashStore) Recorded(ctx context.Context, ids []string) (map[string]bool, error) {
	st, err := s.steering()
	if err != nil {
		return nil, err
	}
	return st.Recorded(ctx, ids)
}

// DropSteer implements turn.Steering.
func (s *CrashStore) DropSteer(ctx context.Context, key string, ids []string) error {
	st, err := s.steering()
	if err != nil {
		return err
	}
	return st.DropSteer(ctx, key, ids)
}
