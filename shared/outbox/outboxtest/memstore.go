package outboxtest

import (
	"context"
	"strings"
	"sync"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/outbox"
)

// MemStore is an in-memory outbox.Store for unit tests of the core. The
// zero value is ready; it is safe for concurrent use.
type MemStore struct {
	mu    sync.Mutex
	items map[string]outbox.Item
	// Fail, when set, is returned by every call (an unavailable store).
	Fail error
}

var _ outbox.Store = (*MemStore)(nil)

// Put implements outbox.Store: the first Put of an id wins.
func (o *MemStore) Put(_ context.Context, item outbox.Item) error {
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
		o.items = map[string]outbox.Item{}
	}
	item.State = outbox.Pending
	o.items[item.ID] = item
	return nil
}

// Get implements outbox.Store.
func (o *MemStore) Get(_ context.Context, id string) (outbox.Item, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.Fail != nil {
		return outbox.Item{}, o.Fail
	}
	item, ok := o.items[id]
	if !ok {
		return outbox.Item{}, fault.New(fault.NotFound, "no outbox item %q", id)
	}
	return item, nil
}

// Progress implements outbox.Store.
func (o *MemStore) Progress(_ context.Context, id string, sent int) error {
	return o.update(id, func(item *outbox.Item) { item.Sent = sent })
}

// Settle implements outbox.Store: a sent item stays as it is.
func (o *MemStore) Settle(_ context.Context, id, state string, attempts int, lastError string, nowMS int64) error {
	if err := outbox.ValidState(state); err != nil {
		return err
	}
	return o.update(id, func(item *outbox.Item) {
		if item.State == outbox.Sent {
			return
		}
		item.State, item.Attempts, item.LastError, item.UpdatedAt = state, attempts, lastError, nowMS
	})
}

func (o *MemStore) update(id string, fn func(*outbox.Item)) error {
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

// List implements outbox.Store.
func (o *MemStore) List(_ context.Context, state string, limit int) ([]outbox.Item, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.Fail != nil {
		return nil, o.Fail
	}
	var out []outbox.Item
	for _, item := range o.items {
		if state == "" || item.State == state {
			out = append(out, item)
		}
	}
	outbox.Sort(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Revive implements outbox.Store: dead becomes pending, pending stays.
func (o *MemStore) Revive(_ context.Context, id string, nowMS int64) (outbox.Item, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.Fail != nil {
		return outbox.Item{}, o.Fail
	}
	item, ok := o.items[id]
	switch {
	case !ok:
		return outbox.Item{}, fault.New(fault.NotFound, "no outbox item %q", id)
	case item.State == outbox.Sent:
		return outbox.Item{}, fault.New(fault.Conflict, "outbox item %q is sent; only a dead item can be retried", id)
	case item.State == outbox.Dead:
		item.State, item.Retries, item.UpdatedAt = outbox.Pending, item.Retries+1, nowMS
		o.items[id] = item
	}
	return item, nil
}
