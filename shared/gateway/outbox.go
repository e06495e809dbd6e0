package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/outbox"
)

// OutboxStore is the announce outbox as the gateway uses it
// (shared/dynamo's Store.Outbox is one; see outbox.Store for the
// contracts): List lists items in state ("" all), newest first, at most
// limit (all when limit <= 0); Revive sets a dead item pending again.
type OutboxStore interface {
	List(ctx context.Context, state string, limit int) ([]outbox.Item, error)
	Revive(ctx context.Context, id string, nowMS int64) (outbox.Item, error)
}

// Bounds of outbox.list.
const (
	DefaultOutboxLimit = 50
	MaxOutboxLimit     = 500
	OutboxTextChars    = 200 // an item's text is cut to this many characters
)

// outboxList answers outbox.list {state?, limit?} → {counts, items}: the
// items in state ("" every state), newest first, and the count in each
// state. Deps.Outbox nil answers 501. Cost: one List of every item.
func (g *gateway) outboxList(ctx context.Context, params json.RawMessage) (any, error) {
	var p OutboxListParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	limit := DefaultOutboxLimit
	if p.Limit != nil {
		if *p.Limit < 1 {
			return nil, invalidf("params.limit: must be >= 1, got %d", *p.Limit)
		}
		limit = min(*p.Limit, MaxOutboxLimit)
	}
	if p.State != "" && !slices.Contains(outbox.States, p.State) {
		return nil, invalidf("params.state: must be pending, sent or dead, got %q", p.State)
	}
	if g.Outbox == nil {
		return nil, errNoOutbox
	}
	all, err := g.Outbox.List(ctx, "", 0)
	if err != nil {
		return nil, err
	}
	res := OutboxListResult{Items: []OutboxRow{}}
	for _, item := range all {
		switch item.State {
		case outbox.Pending:
			res.Counts.Pending++
		case outbox.Sent:
			res.Counts.Sent++
		case outbox.Dead:
			res.Counts.Dead++
		}
		if (p.State == "" || item.State == p.State) && len(res.Items) < limit {
			res.Items = append(res.Items, outboxRow(item))
		}
	}
	return res, nil
}

var errNoOutbox = &statusError{http.StatusNotImplemented, fault.New(fault.Internal, "the outbox is not configured on this gateway")}

// outboxRetry answers outbox.retry {id} → {item, messageId}: it sets the
// dead item pending again (outbox.Store.Revive) and queues a KindDeliver
// message for it on the main lane, id outbox.RetryMessageID (new for each
// revival, so the queue's deduplication keeps it). The runner delivers it
// like the first time, from the first rendered message not yet sent.
//
// Idempotent: retrying a pending item queues its delivery again (with
// the same id as the last retry: deduplicated while that one is recent),
// and a delivery finding the item sent does nothing. Errors: params.id
// missing 400, no such item 404, a sent item 409 (sent is final), no
// outbox 501; a failed enqueue leaves the item pending and is returned
// (retry again). Cost: one UpdateItem, one SendMessage.
func (g *gateway) outboxRetry(ctx context.Context, params json.RawMessage) (any, error) {
	var p OutboxRetryParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.ID) == "" {
		return nil, invalidf("params.id: required")
	}
	if g.Outbox == nil {
		return nil, errNoOutbox
	}
	if g.Queue == nil {
		return nil, missing("Queue")
	}
	now := g.Now().UnixMilli()
	item, err := g.Outbox.Revive(ctx, p.ID, now)
	if err != nil {
		return nil, fmt.Errorf("retry outbox item %s: %w", p.ID, err)
	}
	m := outbox.DeliverMessage(outbox.RetryMessageID(item), item, now)
	if err := g.Queue.Enqueue(ctx, m); err != nil {
		return nil, fmt.Errorf("queue delivery of outbox item %s: %w", p.ID, err)
	}
	g.Log.InfoContext(ctx, "outbox item re-queued", "outbox", item.ID, "message", m.ID, "retries", item.Retries)
	return OutboxRetryResult{Item: outboxRow(item), MessageID: m.ID}, nil
}

func outboxRow(item outbox.Item) OutboxRow {
	text := item.Text
	if r := []rune(text); len(r) > OutboxTextChars {
		text = string(r[:OutboxTextChars]) + "…"
	}
	d := item.Delivery
	return OutboxRow{
		ID: item.ID, Kind: item.Kind, SessionKey: item.SessionKey,
		Channel: d.Channel, To: d.To, AccountID: d.AccountID, ThreadID: d.ThreadID,
		Text: text, State: item.State, Sent: item.Sent, Attempts: item.Attempts, Retries: item.Retries, LastError: item.LastError,
		CreatedAt: item.CreatedAt, UpdatedAt: item.UpdatedAt,
	}
}
