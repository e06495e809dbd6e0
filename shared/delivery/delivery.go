// Package delivery sends text to a chat through its channel's Sender
// (Post), and delivers the outbox's items, the announces of flows and
// sub-agents: put and queued by Announce, sent message by message by
// Deliver, settled sent, pending (to retry) or dead. The turn engine
// routes a KindDeliver message here; its replies use Post.
package delivery

import (
	"context"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/session"
)

// Sender delivers replies on one channel.
type Sender interface {
	// Render turns reply text into the channel's messages, in order
	// (formatted and split to the channel's length limit). It is pure, so
	// a retry renders the same messages.
	Render(text string) []string
	// Post delivers one rendered message. The turn records each delivered
	// message, so the only duplicate a user can see is a message whose
	// Post was interrupted after the channel accepted it.
	Post(ctx context.Context, to session.DeliveryContext, message string) error
}

// PartSender is a Sender whose delivery depends on a message's place in
// the reply (Discord edits its deferred response with the first message
// and adds the others as follow-ups). When a channel's Sender is one,
// message i of Render's result is delivered with PostPart(ctx, to, i, m)
// instead of Post; a retry resumes at the first message not delivered,
// with its own index.
type PartSender interface {
	PostPart(ctx context.Context, to session.DeliveryContext, part int, message string) error
}

// Post delivers message part of a reply through s.
func Post(ctx context.Context, s Sender, to session.DeliveryContext, part int, message string) error {
	if ps, ok := s.(PartSender); ok {
		return ps.PostPart(ctx, to, part, message)
	}
	return s.Post(ctx, to, message)
}

// Undeliverable reports a send error that no retry can fix: the request
// or the recipient is wrong. Credential errors (fault.Unauthorized) are
// not: once the configuration is fixed, the retried or redriven message
// goes out.
func Undeliverable(err error) bool {
	return fault.Is(err, fault.Invalid) || fault.Is(err, fault.NotFound)
}

// Enqueuer puts a message straight on the work queue, on its own group
// (sqsqueue.Queue is one). Announce uses it for KindDeliver messages,
// which are not a session's and do not pass the ingest door.
type Enqueuer interface {
	Enqueue(ctx context.Context, m inbound.Message) error
}
