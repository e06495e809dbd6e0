package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/turn"
)

// OutboxReader lists the announce outbox (shared/dynamo's Store.Outbox
// is one): items in state ("" all), newest first, at most limit (all
// when limit <= 0).
type OutboxReader interface {
	List(ctx context.Context, state string, limit int) ([]turn.OutboxItem, error)
}

// Bounds of outbox.list.
const (
	DefaultOutboxLimit = 50
	MaxOutboxLimit     = 500
	OutboxTextChars    = 200 // an item's text is cut to this many characters
)

func init() {
	methods["outbox.list"] = (*gateway).outboxList
}

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
	if p.State != "" && !slices.Contains(turn.OutboxStates, p.State) {
		return nil, invalidf("params.state: must be pending, sent or dead, got %q", p.State)
	}
	if g.Outbox == nil {
		return nil, &statusError{http.StatusNotImplemented, fault.New(fault.Internal, "the outbox is not configured on this gateway")}
	}
	all, err := g.Outbox.List(ctx, "", 0)
	if err != nil {
		return nil, err
	}
	res := OutboxListResult{Items: []OutboxRow{}}
	for _, item := range all {
		switch item.State {
		case turn.OutboxPending:
			res.Counts.Pending++
		case turn.OutboxSent:
			res.Counts.Sent++
		case turn.OutboxDead:
			res.Counts.Dead++
		}
		if (p.State == "" || item.State == p.State) && len(res.Items) < limit {
			res.Items = append(res.Items, outboxRow(item))
		}
	}
	return res, nil
}

func outboxRow(item turn.OutboxItem) OutboxRow {
	text := item.Text
	if r := []rune(text); len(r) > OutboxTextChars {
		text = string(r[:OutboxTextChars]) + "…"
	}
	d := item.Delivery
	return OutboxRow{
		ID: item.ID, Kind: item.Kind, SessionKey: item.SessionKey,
		Channel: d.Channel, To: d.To, AccountID: d.AccountID, ThreadID: d.ThreadID,
		Text: text, State: item.State, Sent: item.Sent, Attempts: item.Attempts, LastError: item.LastError,
		CreatedAt: item.CreatedAt, UpdatedAt: item.UpdatedAt,
	}
}
