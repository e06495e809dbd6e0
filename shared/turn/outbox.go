package turn

import (
	"context"
	"fmt"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/session"
)

// Outbox states.
const (
	OutboxPending = "pending" // queued for delivery, maybe retried
	OutboxSent    = "sent"    // every message of Text delivered
	OutboxDead    = "dead"    // the last attempt failed; an operator must look
)

// Outbox item kinds: what a delivery announces.
const (
	OutboxA2A      = "a2a"      // sessions_send's announce step
	OutboxSubagent = "subagent" // a sub-agent's result
)

// OutboxItem is one durable delivery: text that must reach a channel
// route although no turn of that route's session is running. The runner
// delivers it from a KindDeliver message on a FIFO group of its own,
// retried with the queue's backoff; on the last attempt it is marked dead
// and stays listed (zero status, the gateway's outbox.list).
type OutboxItem struct {
	ID         string                  `json:"id"`         // derived from the flow step: the same on every replay
	Kind       string                  `json:"kind"`       // OutboxA2A | OutboxSubagent
	SessionKey string                  `json:"sessionKey"` // the session whose result it announces
	Delivery   session.DeliveryContext `json:"delivery"`
	Text       string                  `json:"text"`
	State      string                  `json:"state"`
	Sent       int                     `json:"sent,omitempty"` // rendered messages already delivered
	Attempts   int                     `json:"attempts,omitempty"`
	Retries    int                     `json:"retries,omitempty"` // times an operator re-queued it from dead (Revive)
	LastError  string                  `json:"lastError,omitempty"`
	CreatedAt  int64                   `json:"createdAt"` // epoch ms
	UpdatedAt  int64                   `json:"updatedAt"` // epoch ms
}

// Outbox stores outbox items (shared/dynamo's Store.Outbox and
// turntest's memory store; both pass outboxtest's conformance suite).
type Outbox interface {
	// Put creates item (State OutboxPending) unless an item with its ID
	// exists, in which case it changes nothing and returns nil: a
	// replayed flow step puts the same item once.
	Put(ctx context.Context, item OutboxItem) error
	// Get reads one item; fault.NotFound when absent.
	Get(ctx context.Context, id string) (OutboxItem, error)
	// Progress records that the first sent rendered messages went out.
	Progress(ctx context.Context, id string, sent int) error
	// Settle sets the item's final or retry state: OutboxSent, or a failed
	// attempt (State OutboxPending or OutboxDead) with its count and error.
	Settle(ctx context.Context, id, state string, attempts int, lastError string, nowMS int64) error
	// List returns items in state (all states when ""), newest first, at
	// most limit.
	List(ctx context.Context, state string, limit int) ([]OutboxItem, error)
	// Revive sets a dead item back to pending (one conditional write:
	// only from dead), counts it in Retries, sets UpdatedAt to nowMS and
	// returns the item as it now is; attempts, sent and lastError stay.
	// Idempotent: a pending item is returned unchanged. fault.NotFound
	// when absent, fault.Conflict when sent (sent is final).
	Revive(ctx context.Context, id string, nowMS int64) (OutboxItem, error)
}

// DeliverMessage is the KindDeliver message that delivers item, with
// message id id (the queue deduplicates on it), received at nowMS.
func DeliverMessage(id string, item OutboxItem, nowMS int64) inbound.Message {
	return inbound.Message{
		ID: id, Kind: inbound.KindDeliver, OutboxID: item.ID,
		AgentID: session.AgentOf(item.SessionKey), SessionKey: item.SessionKey,
		Channel: inbound.Internal, ChatType: inbound.Direct, To: "outbox", ReceivedAt: nowMS,
	}
}

// RetryMessageID is the id of the delivery message that re-queues item
// after its Retries-th revival: "deliver:<id>:retry:<n>". Each revival
// gets a new id, so the queue's deduplication does not drop it; asking
// again for a still-pending item gives the same id (within the queue's
// five-minute window, deduplicated: one delivery is in flight).
func RetryMessageID(item OutboxItem) string {
	return fmt.Sprintf("deliver:%s:retry:%d", item.ID, item.Retries)
}

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
func (p *Processor) announce(ctx context.Context, item OutboxItem) error {
	if p.Outbox == nil || p.Work == nil {
		p.log().WarnContext(ctx, "no outbox: announce dropped", "outbox", item.ID, "session", item.SessionKey)
		return nil
	}
	now := p.Now().UnixMilli()
	item.State, item.CreatedAt, item.UpdatedAt = OutboxPending, now, now
	if err := p.Outbox.Put(ctx, item); err != nil {
		return fmt.Errorf("put outbox item %s: %w", item.ID, err)
	}
	m := DeliverMessage("deliver:"+item.ID, item, now)
	if err := p.Work.Enqueue(ctx, m); err != nil {
		return fmt.Errorf("queue delivery of outbox item %s: %w", item.ID, err)
	}
	return nil
}
