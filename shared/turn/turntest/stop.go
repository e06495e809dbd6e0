package turntest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/stopmark"
	"github.com/zero-gateway/zero/shared/turn"
)

var _ turn.Stops = (*MemStore)(nil)

// MarkStop writes key's stop mark, as a channel function does when a /stop
// arrives; it replaces an earlier mark of another message and leaves one
// of the same message as it is (see dynamo.Store.MarkStop).
func (m *MemStore) MarkStop(_ context.Context, key string, s stopmark.Mark) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	if old, ok := m.stops[key]; ok && old.MessageID == s.MessageID {
		return nil
	}
	m.stops[key] = s
	return nil
}

// StopMark implements turn.Stops.
func (m *MemStore) StopMark(_ context.Context, key string) (*stopmark.Mark, error) {
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
func (s *CrashStore) StopMark(ctx context.Context, key string) (*stopmark.Mark, error) {
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
func (s *CrashStore) MarkStop(ctx context.Context, key string, st stopmark.Mark) error {
	m, ok := s.Store.(interface {
		MarkStop(ctx context.Context, key string, s stopmark.Mark) error
	})
	if !ok {
		return fault.New(fault.Internal, "mark stop: %T cannot", s.Store)
	}
	return m.MarkStop(ctx, key, st)
}

// StopStore is what the stop-mark conformance suite needs: writing marks
// (the channel functions' side) and the runner's turn.Stops.
type StopStore interface {
	turn.Stops
	MarkStop(ctx context.Context, key string, s stopmark.Mark) error
}

// TestStopMarks is the conformance suite of stop marks: a new /stop
// replaces another's mark, and a redelivered /stop never re-arms its own
// mark once its turn cleared it.
func TestStopMarks(t *testing.T, newStore func(t *testing.T) StopStore) {
	ctx := context.Background()
	mark := func(id string) stopmark.Mark { return stopmark.Mark{MessageID: id, At: 1000, Pending: true} }
	tests := []struct {
		name  string
		steps func(s StopStore, key string) error
		want  *stopmark.Mark
	}{
		{"a mark is written", func(s StopStore, key string) error { return s.MarkStop(ctx, key, mark("stop-1")) }, &stopmark.Mark{MessageID: "stop-1", At: 1000, Pending: true}},
		{"a new /stop replaces another's mark", func(s StopStore, key string) error {
			if err := s.MarkStop(ctx, key, mark("stop-1")); err != nil {
				return err
			}
			if err := s.CountStop(ctx, key, "stop-1", true); err != nil {
				return err
			}
			return s.MarkStop(ctx, key, stopmark.Mark{MessageID: "stop-2", At: 2000, Pending: true})
		}, &stopmark.Mark{MessageID: "stop-2", At: 2000, Pending: true}},
		{"a redelivered /stop keeps its counts", func(s StopStore, key string) error {
			if err := s.MarkStop(ctx, key, mark("stop-1")); err != nil {
				return err
			}
			if err := s.CountStop(ctx, key, "stop-1", false); err != nil {
				return err
			}
			return s.MarkStop(ctx, key, stopmark.Mark{MessageID: "stop-1", At: 5000, Pending: true})
		}, &stopmark.Mark{MessageID: "stop-1", At: 1000, Pending: true, Dropped: 1}},
		{"a redelivered /stop does not re-arm its cleared mark", func(s StopStore, key string) error {
			if err := s.MarkStop(ctx, key, mark("stop-1")); err != nil {
				return err
			}
			if err := s.StopDone(ctx, key, "stop-1"); err != nil {
				return err
			}
			return s.MarkStop(ctx, key, stopmark.Mark{MessageID: "stop-1", At: 5000, Pending: true})
		}, &stopmark.Mark{MessageID: "stop-1", At: 1000}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			key := fmt.Sprintf("agent:main:stoptest-%d-%d", i, time.Now().UnixNano())
			if err := tt.steps(s, key); err != nil {
				t.Fatal(err)
			}
			got, err := s.StopMark(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("stop mark (-want +got):\n%s", diff)
			}
		})
	}
}
