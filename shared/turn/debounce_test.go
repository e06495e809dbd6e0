package turn_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/turn"
)

// TestDebounce: with messages.queue.debounceMs, a collect session's
// messages are held (nothing done, a Hold naming the rest of the quiet
// time) until the newest has waited that long; then they run as one turn.
// Commands, followup sessions, and messages held twice already run at once.
func TestDebounce(t *testing.T) {
	const debounce = `{messages: {queue: {debounceMs: 5000}}, channels: {telegram: {allowFrom: ["*"], owners: ["7"]}}}`
	const followup = `{messages: {queue: {debounceMs: 5000, mode: "followup"}}, channels: {telegram: {allowFrom: ["*"], owners: ["7"]}}}`
	for _, tc := range []struct {
		name     string
		config   string
		ago      []time.Duration // how long before the handling each message reached the door
		texts    []string
		attempts int
		wantHold time.Duration // 0: not held
		turns    int           // model calls when not held
	}{
		{name: "a fresh message is held for the rest of the quiet time", config: debounce,
			ago: []time.Duration{0}, texts: []string{"one"}, attempts: 1, wantHold: 5 * time.Second},
		{name: "the newest message decides", config: debounce,
			ago: []time.Duration{9 * time.Second, 3 * time.Second}, texts: []string{"one", "two"}, attempts: 1, wantHold: 2 * time.Second},
		{name: "three messages of a quiet chat are one turn", config: debounce,
			ago: []time.Duration{7 * time.Second, 6800 * time.Millisecond, 6600 * time.Millisecond}, texts: []string{"one", "two", "three"}, attempts: 2, turns: 1},
		{name: "a message held twice runs", config: debounce,
			ago: []time.Duration{0}, texts: []string{"one"}, attempts: 3, turns: 1},
		{name: "a command is not held", config: debounce,
			ago: []time.Duration{0}, texts: []string{"/status"}, attempts: 1},
		{name: "a followup session is not held", config: followup,
			ago: []time.Duration{0, 0}, texts: []string{"one", "two"}, attempts: 1, turns: 2},
		{name: "no debounce, no hold", config: rigConfig,
			ago: []time.Duration{0}, texts: []string{"one"}, attempts: 1, turns: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(tc.config)
			// The rig's clock moves a second at each reading: the
			// handling reads it once before judging the quiet time.
			now := r.clock.Add(time.Second)
			var msgs []inbound.Message
			var attempts []int
			for i, text := range tc.texts {
				m := msg(i+1, text)
				m.ReceivedAt = now.Add(-tc.ago[i]).UnixMilli()
				msgs = append(msgs, m)
				attempts = append(attempts, tc.attempts)
			}
			done, err := r.proc.HandleGroup(context.Background(), msgs, attempts)
			var hold *turn.Hold
			switch {
			case tc.wantHold > 0:
				if !errors.As(err, &hold) || done != 0 {
					t.Fatalf("HandleGroup = %d, %v; want a hold and nothing done", done, err)
				}
				if hold.HoldFor() != tc.wantHold {
					t.Errorf("held for %s, want %s", hold.HoldFor(), tc.wantHold)
				}
				if r.model.calls != 0 || len(r.sender.Sent) != 0 {
					t.Errorf("a held batch called the model %d times and sent %d replies", r.model.calls, len(r.sender.Sent))
				}
			case err != nil || done != len(msgs):
				t.Fatalf("HandleGroup = %d, %v; want all %d done", done, err, len(msgs))
			case r.model.calls != tc.turns:
				t.Errorf("%d model calls, want %d", r.model.calls, tc.turns)
			}
			if tc.turns == 1 && len(msgs) == 3 {
				if got := r.model.seen[0][len(r.model.seen[0])-1].Content; !strings.Contains(got, "Queued #3\nthree") {
					t.Errorf("the turn's prompt %q does not collect the three messages", got)
				}
			}
		})
	}
}

// TestDebounceKeepsARetry: with a small maxReceiveCount a message is held
// only while a failure retry is left after the hold's receive.
func TestDebounceKeepsARetry(t *testing.T) {
	for _, tc := range []struct {
		maxReceives, receive int
		held                 bool
	}{
		{0, 1, true}, {0, 2, true}, {0, 3, false},
		{5, 2, true}, {5, 3, false},
		{3, 1, true}, {3, 2, false},
		{2, 1, false}, {1, 1, false},
	} {
		t.Run(fmt.Sprintf("maxReceiveCount %d, receive %d", tc.maxReceives, tc.receive), func(t *testing.T) {
			r := newRig()
			r.settings.set(`{messages: {queue: {debounceMs: 5000}}, channels: {telegram: {allowFrom: ["*"]}}}`)
			r.proc.MaxReceives = tc.maxReceives
			m := msg(1, "one")
			m.QueuedAt = r.clock.Add(time.Second).UnixMilli()
			_, err := r.proc.HandleGroup(context.Background(), []inbound.Message{m}, []int{tc.receive})
			var hold *turn.Hold
			if held := errors.As(err, &hold); held != tc.held {
				t.Errorf("held = %v (%v), want %v", held, err, tc.held)
			}
		})
	}
}
