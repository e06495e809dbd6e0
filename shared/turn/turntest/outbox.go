package turntest

import (
	"context"
	"strings"
	"sync"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/turn"
)

// MemOutbox is an in-memory turn.Outbox for unit tests of the core. The
// zero value is ready; it is safe for concurrent use.
type MemOutbox struct {
	mu    sync.Mutex
	items map[string]turn.OutboxItem
	// Fail, when set, is returned by every call (an unavailable store).
	Fail error
}

var _ turn.Outbox = (*MemOutbox)(nil)

// Put implements turn.Outbox: the first Put of an id wins.
func (o *MemOutbox) Put(_ context.Context, item turn.OutboxItem) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.Fail != nil {
		return o.Fail
	}
	if strings.TrimSpace(item.ID) == "" {
		return fault.New(fault.Invalid, "outbox: an item needs an id")
	}
	if _, ok := o.items[item.ID]; ok {
		return nil
	}
	if o.items == nil {
		o.items = map[string]turn.OutboxItem{}
	}
	item.State = turn.OutboxPending
	o.items[item.ID] = item
	return nil
}

// Get implements turn.Outbox.
func (o *MemOutbox) Get(_ context.Context, id string) (turn.OutboxItem, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.Fail != nil {
		return turn.OutboxItem{}, o.Fail
	}
	item, ok := o.items[id]
	if !ok {
		return turn.OutboxItem{}, fault.New(fault.NotFound, "no outbox item %q", id)
	}
	return item, nil
}

// Progress implements turn.Outbox.
func (o *MemOutbox) Progress(_ context.Context, id string, sent int) error {
	return o.update(id, func(item *turn.OutboxItem) { item.Sent = sent })
}

// Settle implements turn.Outbox: a sent item stays as it is.
func (o *MemOutbox) Settle(_ context.Context, id, state string, attempts int, lastError string, nowMS int64) error {
	if err := turn.ValidOutboxState(state); err != nil {
		return err
	}
	return o.update(id, func(item *turn.OutboxItem) {
		if item.State == turn.OutboxSent {
			return
		}
		item.State, item.Attempts, item.LastError, item.UpdatedAt = state, attempts, lastError, nowMS
	})
}

func (o *MemOutbox) update(id string, fn func(*turn.OutboxItem)) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.Fail != nil {
		return o.Fail
	}
	item, ok := o.items[id]
	if !ok {
		return fault.New(fault.NotFound, "no outbox item %q", id)
	}
	fn(&item)
	o.items[id] = item
	return nil
}

// List implements turn.Outbox.
func (o *MemOutbox) List(_ context.Context, state string, limit int) ([]turn.OutboxItem, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.Fail != nil {
		return nil, o.Fail
	}
	var out []turn.OutboxItem
	for _, item := range o.items {
		if state == "" || item.State == state {
			out = append(out, item)
		}
	}
	turn.SortOutbox(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Revive implements turn.Outbox: dead becomes pending, pending stays.
func (o *MemOutbox) Revive(_ context.Context, id string, nowMS int64) (turn.OutboxItem, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.Fail != nil {
		return turn.OutboxItem{}, o.Fail
	}
	item, ok := o.items[id]
	switch {
	case !ok:
		return turn.OutboxItem{}, fault.New(fault.NotFound, "no outbox item %q", id)
	case item.State == turn.OutboxSent:
		return turn.OutboxItem{}, fault.New(fault.Conflict, "outbox item %q is sent; only a dead item can be retried", id)
	case item.State == turn.OutboxDead:
		item.State, item.Retries, item.UpdatedAt = turn.OutboxPending, item.Retries+1, nowMS
		o.items[id] = item
	}
	return item, nil
}
