// Package outbox is the durable delivery of text to a channel route that
// no running turn of that route's session will deliver: a sub-agent's
// result, sessions_send's announce. An Item is put in a Store (pending),
// delivered by the runner from a KindDeliver message on a FIFO group of
// its own (DeliverMessage), retried with the queue's backoff, and ends
// sent or, after the last attempt, dead, listed for an operator (zero
// status, the gateway's outbox.list), who may revive it
// (RetryMessageID).
//
// It is domain: the standard library and the domain packages fault,
// inbound and session. Implementations of Store: shared/dynamo's Outbox
// and outboxtest.MemStore; both pass outboxtest.TestStore.
package outbox

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/session"
)

// States of an Item.
const (
	Pending = "pending" // queued for delivery, maybe retried
	Sent    = "sent"    // every message of Text delivered
	Dead    = "dead"    // the last attempt failed; an operator must look
)

// States are the states an item can be in, in their listing order.
var States = []string{Pending, Sent, Dead}

// Kinds of Item: what a delivery announces.
const (
	KindA2A      = "a2a"      // sessions_send's announce step
	KindSubagent = "subagent" // a sub-agent's result
)

// Item is one durable delivery: text that must reach a channel route
// although no turn of that route's session is running.
type Item struct {
	ID         string                  `json:"id"`         // derived from the flow step: the same on every replay
	Kind       string                  `json:"kind"`       // KindA2A | KindSubagent
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

// Store keeps outbox items. Implementations: shared/dynamo's Outbox and
// outboxtest.MemStore; both pass outboxtest.TestStore.
type Store interface {
	// Put creates item (State Pending) unless an item with its ID exists,
	// in which case it changes nothing and returns nil: a replayed flow
	// step puts the same item once.
	Put(ctx context.Context, item Item) error
	// Get reads one item; fault.NotFound when absent.
	Get(ctx context.Context, id string) (Item, error)
	// Progress records that the first sent rendered messages went out.
	Progress(ctx context.Context, id string, sent int) error
	// Settle sets the item's final or retry state: Sent, or a failed
	// attempt (State Pending or Dead) with its count and error.
	Settle(ctx context.Context, id, state string, attempts int, lastError string, nowMS int64) error
	// List returns items in state (all states when ""), newest first (Sort),
	// at most limit.
	List(ctx context.Context, state string, limit int) ([]Item, error)
	// Revive sets a dead item back to pending (one conditional write:
	// only from dead), counts it in Retries, sets UpdatedAt to nowMS and
	// returns the item as it now is; attempts, sent and lastError stay.
	// Idempotent: a pending item is returned unchanged. fault.NotFound
	// when absent, fault.Conflict when sent (sent is final).
	Revive(ctx context.Context, id string, nowMS int64) (Item, error)
}

// ValidState reports a state that is none of States as fault.Invalid.
func ValidState(state string) error {
	if !slices.Contains(States, state) {
		return fault.New(fault.Invalid, "outbox: unknown state %q (want pending, sent or dead)", state)
	}
	return nil
}

// Sort orders items as Store.List returns them: newest first (by
// CreatedAt), ties by id, descending.
func Sort(items []Item) {
	slices.SortFunc(items, func(a, b Item) int {
		if c := cmp.Compare(b.CreatedAt, a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
}

// DeliverMessage is the KindDeliver message that delivers item, with
// message id id (the queue deduplicates on it), received at nowMS.
func DeliverMessage(id string, item Item, nowMS int64) inbound.Message {
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
func RetryMessageID(item Item) string {
	return fmt.Sprintf("deliver:%s:retry:%d", item.ID, item.Retries)
}
