package turn

import (
	"context"
	"fmt"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/outbox"
)

// Enqueuer puts a message straight on the work queue, on its own group
// (sqsqueue.Queue is one). The runner uses it for KindDeliver messages,
// which are not a session's and do not pass the ingest door.
type Enqueuer interface {
	Enqueue(ctx context.Context, m inbound.Message) error
}

// announce puts item in the outbox and queues its delivery. Idempotent:
// a replayed flow step puts the same item (Put keeps the first) and
// queues the same message id (the queue deduplicates it, and delivery of
// a sent item does nothing). Without an outbox it does nothing: the
// deployment has nowhere durable to keep the announce.
func (p *Processor) announce(ctx context.Context, item outbox.Item) error {
	if p.Outbox == nil || p.Work == nil {
		p.log().WarnContext(ctx, "no outbox: announce dropped", "outbox", item.ID, "session", item.SessionKey)
		return nil
	}
	now := p.Now().UnixMilli()
	item.State, item.CreatedAt, item.UpdatedAt = outbox.Pending, now, now
	if err := p.Outbox.Put(ctx, item); err != nil {
		return fmt.Errorf("put outbox item %s: %w", item.ID, err)
	}
	m := outbox.DeliverMessage("deliver:"+item.ID, item, now)
	if err := p.Work.Enqueue(ctx, m); err != nil {
		return fmt.Errorf("queue delivery of outbox item %s: %w", item.ID, err)
	}
	return nil
}
