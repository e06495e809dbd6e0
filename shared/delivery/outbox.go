package delivery

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/outbox"
)

// Outbox delivers the items of an outbox store.
type Outbox struct {
	Store   outbox.Store      // nil: the deployment keeps no outbox
	Work    Enqueuer          // queues an item's KindDeliver message; nil: announces are dropped
	Senders map[string]Sender // by channel
	Now     func() time.Time
	Log     *slog.Logger // nil: slog's default
}

// Announce puts item in the outbox and queues its delivery. Idempotent:
// a replayed flow step puts the same item (Put keeps the first) and
// queues the same message id (the queue deduplicates it, and delivery of
// a sent item does nothing). Without an outbox it does nothing: the
// deployment has nowhere durable to keep the announce.
func (o Outbox) Announce(ctx context.Context, item outbox.Item) error {
	if o.Store == nil || o.Work == nil {
		o.log().WarnContext(ctx, "no outbox: announce dropped", "outbox", item.ID, "session", item.SessionKey)
		return nil
	}
	now := o.Now().UnixMilli()
	item.State, item.CreatedAt, item.UpdatedAt = outbox.Pending, now, now
	if err := o.Store.Put(ctx, item); err != nil {
		return fmt.Errorf("put outbox item %s: %w", item.ID, err)
	}
	m := outbox.DeliverMessage("deliver:"+item.ID, item, now)
	if err := o.Work.Enqueue(ctx, m); err != nil {
		return fmt.Errorf("queue delivery of outbox item %s: %w", item.ID, err)
	}
	return nil
}

// Deliver delivers the outbox item of a KindDeliver message, from its
// first rendered message not yet sent. attempt is the message's receive
// count.
//
// Contract: nil means the message is done (the item is sent or dead, or
// gone); an error means retry later, the item having been settled pending
// with attempt and the error. Idempotent: a replayed message finds the
// item sent (or dead) and does nothing; a retry after a partial delivery
// resumes at item.Sent. The channel refusing the item for good
// (Undeliverable) or having no sender settles it dead at once. Like a
// reply, only a crash between the channel accepting a message and the
// Progress write sends that one message twice.
func (o Outbox) Deliver(ctx context.Context, m inbound.Message, attempt int) error {
	if o.Store == nil {
		return fault.New(fault.Internal, "deliver outbox item %s: this runner has no outbox", m.OutboxID)
	}
	item, err := o.Store.Get(ctx, m.OutboxID)
	switch {
	case fault.Is(err, fault.NotFound):
		o.log().WarnContext(ctx, "outbox item not found; delivery dropped", "outbox", m.OutboxID, "message", m.ID)
		return nil
	case err != nil:
		return fmt.Errorf("load outbox item %s: %w", m.OutboxID, err)
	case item.State == outbox.Sent || item.State == outbox.Dead:
		o.log().InfoContext(ctx, "outbox item already settled", "outbox", item.ID, "state", item.State)
		return nil
	}
	sender, ok := o.Senders[item.Delivery.Channel]
	if !ok {
		return o.settleDead(ctx, item, attempt, fmt.Sprintf("no sender for channel %q", item.Delivery.Channel))
	}
	if err := o.post(ctx, item, sender); err != nil {
		if Undeliverable(err) {
			return o.settleDead(ctx, item, attempt, err.Error())
		}
		if serr := o.Store.Settle(ctx, item.ID, outbox.Pending, attempt, err.Error(), o.Now().UnixMilli()); serr != nil {
			o.log().WarnContext(ctx, "outbox attempt not recorded", "outbox", item.ID, "err", serr)
		}
		return fmt.Errorf("deliver outbox item %s: %w", item.ID, err)
	}
	if err := o.Store.Settle(ctx, item.ID, outbox.Sent, attempt, "", o.Now().UnixMilli()); err != nil {
		return fmt.Errorf("settle outbox item %s sent: %w", item.ID, err)
	}
	o.log().InfoContext(ctx, "outbox item delivered", "outbox", item.ID, "kind", item.Kind, "session", item.SessionKey)
	return nil
}

// post posts item's rendered messages from item.Sent on, recording
// progress after each but the last (Settle records that one).
func (o Outbox) post(ctx context.Context, item outbox.Item, sender Sender) error {
	msgs := sender.Render(item.Text)
	for i := item.Sent; i < len(msgs); i++ {
		if err := Post(ctx, sender, item.Delivery, i, msgs[i]); err != nil {
			return fmt.Errorf("post message %d/%d: %w", i+1, len(msgs), err)
		}
		if i < len(msgs)-1 {
			if err := o.Store.Progress(ctx, item.ID, i+1); err != nil {
				return fmt.Errorf("record progress of outbox item %s: %w", item.ID, err)
			}
		}
	}
	return nil
}

// settleDead marks item dead with reason and reports the message done: no
// retry can deliver it. A failed write is returned, so the message is
// retried (and settled dead again).
func (o Outbox) settleDead(ctx context.Context, item outbox.Item, attempt int, reason string) error {
	o.log().ErrorContext(ctx, "outbox item not deliverable; marked dead", "outbox", item.ID, "kind", item.Kind,
		"session", item.SessionKey, "channel", item.Delivery.Channel, "err", reason)
	if err := o.Store.Settle(ctx, item.ID, outbox.Dead, attempt, reason, o.Now().UnixMilli()); err != nil {
		return fmt.Errorf("settle outbox item %s dead: %w", item.ID, err)
	}
	return nil
}

// Failed settles the item of a KindDeliver message dead after its last
// attempt failed with cause. It never fails: an error is logged.
func (o Outbox) Failed(ctx context.Context, m inbound.Message, attempt int, cause error) {
	if o.Store == nil {
		return
	}
	if err := o.Store.Settle(ctx, m.OutboxID, outbox.Dead, attempt, cause.Error(), o.Now().UnixMilli()); err != nil {
		o.log().ErrorContext(ctx, "outbox item not marked dead", "outbox", m.OutboxID, "err", err)
		return
	}
	o.log().ErrorContext(ctx, "outbox item failed on its last attempt; marked dead", "outbox", m.OutboxID, "attempt", attempt, "err", cause)
}

func (o Outbox) log() *slog.Logger {
	if o.Log == nil {
		return slog.Default()
	}
	return o.Log
}
