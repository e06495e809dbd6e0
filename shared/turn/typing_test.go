package turn_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/delivery/deliverytest"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// typingSender is a recording Sender that is also a Typist: events holds
// "typing <chat>" and "post <text>" in the order they happened.
type typingSender struct {
	*deliverytest.Sender
	mu     sync.Mutex
	events []string
}

func (s *typingSender) Typing(_ context.Context, to session.DeliveryContext) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, "typing "+to.To)
	return nil
}

func (s *typingSender) Post(ctx context.Context, to session.DeliveryContext, text string) error {
	s.mu.Lock()
	s.events = append(s.events, "post "+text)
	s.mu.Unlock()
	return s.Sender.Post(ctx, to, text)
}

func (s *typingSender) log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.events...)
}

// pausingModel answers after a pause, as a model at work does.
type pausingModel struct{ pause time.Duration }

func (m pausingModel) Complete(ctx context.Context, _ model.Request) (model.Response, error) {
	select {
	case <-time.After(m.pause):
		return final("done thinking"), nil
	case <-ctx.Done():
		return model.Response{}, ctx.Err()
	}
}

// TestTyping: while the model works, the chat the reply goes to is shown
// typing at once and then every interval; it stops before the reply is
// sent and never resumes. Silent runs show nothing.
func TestTyping(t *testing.T) {
	const interval = 40 * time.Millisecond
	internal := msg(5, "a run without delivery")
	internal.Channel, internal.To, internal.From = inbound.Internal, "gateway", ""
	for _, tc := range []struct {
		name      string
		before    []inbound.Message // handled first, on an instant model
		m         inbound.Message
		minTyping int // 0: none at all
	}{
		{name: "a chat message", m: msg(1, "think hard"), minTyping: 3},
		{name: "an internal run in a Telegram session", before: []inbound.Message{msg(1, "hi")}, m: internal},
		{name: "a session whose replies are withheld", before: []inbound.Message{msg(1, "/send off")}, m: msg(2, "think hard")},
		{name: "a command", m: msg(1, "/status")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			ts := &typingSender{Sender: r.sender}
			r.proc.Senders["telegram"] = ts
			r.proc.TypingInterval = interval
			for _, m := range tc.before {
				r.handle(t, m)
			}
			r.proc.Models["zero"] = pausingModel{pause: 8 * interval}
			start := len(ts.log())
			r.handle(t, tc.m)
			time.Sleep(3 * interval) // a typing after the reply would show by now
			events := ts.log()[start:]
			typing := 0
			for i, e := range events {
				if strings.HasPrefix(e, "typing ") {
					typing++
					if e != "typing 7" {
						t.Errorf("event %d: %q, want typing in chat 7", i, e)
					}
					if i > 0 && strings.HasPrefix(events[i-1], "post ") {
						t.Errorf("typing after the reply: %q", events)
					}
				}
			}
			if tc.minTyping == 0 && typing != 0 || typing < tc.minTyping {
				t.Fatalf("%d typing events (want at least %d, or none for 0): %q", typing, tc.minTyping, events)
			}
		})
	}
}
