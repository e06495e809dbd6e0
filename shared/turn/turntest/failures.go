package turntest

import (
	"context"
	"testing"

	"github.com/zero-gateway/zero/shared/turn"
)

// Failure is a message's failure record as MemStore keeps it.
type Failure struct {
	SessionKey string
	Attempt    int
	Reason     string
	Told       bool
}

// RecordFailure implements turn.Failures.
func (m *MemStore) RecordFailure(_ context.Context, key, messageID string, attempt int, reason string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	if m.failures == nil {
		m.failures = map[string]Failure{}
	}
	f := m.failures[messageID]
	// A receive count not above the stored one starts a new run of
	// receives (a redrive), whose sender has not been told yet.
	told := f.Told && attempt > f.Attempt
	m.failures[messageID] = Failure{SessionKey: key, Attempt: attempt, Reason: reason, Told: told}
	return told, nil
}

// Told implements turn.Failures.
func (m *MemStore) Told(_ context.Context, messageID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	if m.failures == nil {
		m.failures = map[string]Failure{}
	}
	f := m.failures[messageID]
	f.Told = true
	m.failures[messageID] = f
	return nil
}

// FailureOf returns messageID's failure record, for tests.
func (m *MemStore) FailureOf(messageID string) (Failure, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.failures[messageID]
	return f, ok
}

// TestFailures is the conformance suite of turn.Failures.
func TestFailures(t *testing.T, newStore func(t *testing.T) turn.Failures) {
	ctx := context.Background()
	t.Run("an attempt is recorded and replaced, told is remembered", func(t *testing.T) {
		s := newStore(t)
		id := "fail-" + t.Name()
		told, err := s.RecordFailure(ctx, "agent:main:main", id, 1, "model unavailable")
		if err != nil || told {
			t.Fatalf("first RecordFailure = %v, %v; want false, nil", told, err)
		}
		if told, err = s.RecordFailure(ctx, "agent:main:main", id, 2, "model unavailable again"); err != nil || told {
			t.Fatalf("second RecordFailure = %v, %v; want false, nil", told, err)
		}
		for range 2 { // idempotent
			if err := s.Told(ctx, id); err != nil {
				t.Fatalf("Told: %v", err)
			}
		}
		if told, err = s.RecordFailure(ctx, "agent:main:main", id, 3, "still failing"); err != nil || !told {
			t.Fatalf("RecordFailure after Told = %v, %v; want true, nil", told, err)
		}
	})
	t.Run("a new run of receives tells again", func(t *testing.T) {
		type step struct {
			attempt  int
			tell     bool // call Told after recording
			wantTold bool
		}
		tests := []struct {
			name  string
			steps []step
		}{
			{"told at the last receive, redriven, fails again", []step{
				{1, false, false}, {5, true, false}, // the first run: told on its last receive
				{1, false, false}, {2, false, false}, {5, true, false}, // redriven: told again
				{1, false, false}}},
			{"one receive a run (max receives 1)", []step{{1, true, false}, {1, true, false}, {1, false, false}}},
			{"the same run keeps told", []step{{4, true, false}, {5, false, true}, {6, false, true}}},
			{"told with no record yet", []step{{0, true, false}, {1, false, true}}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				s := newStore(t)
				id := "fail-" + t.Name()
				for i, st := range tc.steps {
					if st.attempt > 0 {
						told, err := s.RecordFailure(ctx, "agent:main:main", id, st.attempt, "model unavailable")
						if err != nil || told != st.wantTold {
							t.Fatalf("step %d: RecordFailure(attempt %d) = %v, %v; want %v, nil", i, st.attempt, told, err, st.wantTold)
						}
					}
					if st.tell {
						if err := s.Told(ctx, id); err != nil {
							t.Fatalf("step %d: Told: %v", i, err)
						}
					}
				}
			})
		}
	})
	t.Run("messages are independent", func(t *testing.T) {
		s := newStore(t)
		a, b := "fail-a-"+t.Name(), "fail-b-"+t.Name()
		if err := s.Told(ctx, a); err != nil {
			t.Fatalf("Told: %v", err)
		}
		if told, err := s.RecordFailure(ctx, "k", b, 1, "x"); err != nil || told {
			t.Fatalf("RecordFailure of another message = %v, %v; want false, nil", told, err)
		}
	})
}
