package turn

import (
	"context"
	"fmt"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/outbox"
)

// deliverOutbox delivers the outbox item of a KindDeliver message, from
// its first rendered message not yet sent. attempt is the message's
// receive count.
//
// Contract: nil means the message is done (the item is sent or dead, or
// gone); an error means retry later, the item having been settled pending
// with attempt and the error. Idempotent: a replayed message finds the
// item sent (or dead) and does nothing; a retry after a partial delivery
// resumes at item.Sent. The channel refusing the item for good
// (undeliverable) or having no sender settles it dead at once. Like a
// reply, only a crash between the channel accepting a message and the
// Progress write sends that one message twice.
func (p *Processor) deliverOutbox(ctx context.Context, m inbound.Message, attempt int) error {
	if p.Outbox == nil {
		return fault.New(fault.Internal, "deliver outbox item %s: this runner has no outbox", m.OutboxID)
	}
	item, err := p.Outbox.Get(ctx, m.OutboxID)
	switch {
	case fault.Is(err, fault.NotFound):
		p.log().WarnContext(ctx, "outbox item not found; delivery dropped", "outbox", m.OutboxID, "message", m.ID)
		return nil
	case err != nil:
		return fmt.Errorf("load outbox item %s: %w", m.OutboxID, err)
	case item.State == outbox.Sent || item.State == outbox.Dead:
		p.log().InfoContext(ctx, "outbox item already settled", "outbox", item.ID, "state", item.State)
		return nil
	}
	sender, ok := p.Senders[item.Delivery.Channel]
	if !ok {
		return p.settleDead(ctx, item, attempt, fmt.Sprintf("no sender for channel %q", item.Delivery.Channel))
	}
	if err := p.postOutbox(ctx, item, sender); err != nil {
		if undeliverable(err) {
			return p.settleDead(ctx, item, attempt, err.Error())
		}
		if serr := p.Outbox.Settle(ctx, item.ID, outbox.Pending, attempt, err.Error(), p.Now().UnixMilli()); serr != nil {
			p.log().WarnContext(ctx, "outbox attempt not recorded", "outbox", item.ID, "err", serr)
		}
		return fmt.Errorf("deliver outbox item %s: %w", item.ID, err)
	}
	if err := p.Outbox.Settle(ctx, item.ID, outbox.Sent, attempt, "", p.Now().UnixMilli()); err != nil {
		return fmt.Errorf("settle outbox item %s sent: %w", item.ID, err)
	}
	p.log().InfoContext(ctx, "outbox item delivered", "outbox", item.ID, "kind", item.Kind, "session", item.SessionKey)
	return nil
}

// postOutbox posts item's rendered messages from item.Sent on, recording
// progress after each but the last (Settle records that one).
func (p *Processor) postOutbox(ctx context.Context, item outbox.Item, sender Sender) error {
	msgs := sender.Render(item.Text)
	for i := item.Sent; i < len(msgs); i++ {
		if err := post(ctx, sender, item.Delivery, i, msgs[i]); err != nil {
			return fmt.Errorf("post message %d/%d: %w", i+1, len(msgs), err)
		}
		if i < len(msgs)-1 {
			if err := p.Outbox.Progress(ctx, item.ID, i+1); err != nil {
				return fmt.Errorf("record progress of outbox item %s: %w", item.ID, err)
			}
		}
	}
	return nil
}

// settleDead marks item dead with reason and reports the message done: no
// retry can deliver it. A failed write is returned, so the message is
// retried (and settled dead again).
func (p *Processor) settleDead(ctx context.Context, item outbox.Item, attempt int, reason string) error {
	p.log().ErrorContext(ctx, "outbox item not deliverable; marked dead", "outbox", item.ID, "kind", item.Kind,
		"session", item.SessionKey, "channel", item.Delivery.Channel, "err", reason)
	if err := p.Outbox.Settle(ctx, item.ID, outbox.Dead, attempt, reason, p.Now().UnixMilli()); err != nil {
		return fmt.Errorf("settle outbox item %s dead: %w", item.ID, err)
	}
	return nil
}

// outboxFailed settles the item of a KindDeliver message dead after its
// last attempt failed (Failed). It never fails: an error is logged.
func (p *Processor) outboxFailed(ctx context.Context, m inbound.Message, attempt int, cause error) {
	if p.Outbox == nil {
		return
	}
	if err := p.Outbox.Settle(ctx, m.OutboxID, outbox.Dead, attempt, cause.Error(), p.Now().UnixMilli()); err != nil {
		p.log().ErrorContext(ctx, "outbox item not marked dead", "outbox", m.OutboxID, "err", err)
		return
	}
	p.log().ErrorContext(ctx, "outbox item failed on its last attempt; marked dead", "outbox", m.OutboxID, "attempt", attempt, "err", cause)
}
