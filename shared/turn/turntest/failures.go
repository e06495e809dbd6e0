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
	told := f.Told
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
