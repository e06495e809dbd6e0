// Package deliverytest is a recording channel Sender for the tests of the
// packages that deliver replies (shared/delivery, shared/turn).
package deliverytest

import (
	"context"
	"strings"
	"sync"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
)

// Sent is one message a Sender posted.
type Sent struct {
	To   session.DeliveryContext
	Text string
}

// Sender records what it posts and fails as asked. Safe for concurrent
// use; set the failure fields before it is used.
type Sender struct {
	mu      sync.Mutex
	Sent    []Sent
	FailFor int   // fail this many calls before succeeding
	FailAt  int   // fail once when posting message number FailAt (1-based, counting successful posts)
	Refuse  error // fail every post with this error
	Words   bool  // render one message per word (long replies), else one per reply
}

// Render is one message per reply, or one per word when Words is set.
func (s *Sender) Render(text string) []string {
	if s.Words {
		return strings.Fields(text)
	}
	return []string{text}
}

// Post records text for to, or fails as the fields say (a transient
// failure is fault.Unavailable).
func (s *Sender) Post(_ context.Context, to session.DeliveryContext, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Refuse != nil {
		return s.Refuse
	}
	if s.FailFor > 0 {
		s.FailFor--
		return fault.New(fault.Unavailable, "telegram is down")
	}
	if s.FailAt > 0 && len(s.Sent)+1 == s.FailAt {
		s.FailAt = 0
		return fault.New(fault.Unavailable, "telegram is down")
	}
	s.Sent = append(s.Sent, Sent{to, text})
	return nil
}
