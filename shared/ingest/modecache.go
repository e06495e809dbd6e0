package ingest

import (
	"context"
	"sync"
	"time"

	"github.com/zero-gateway/zero/shared/steer"
	"github.com/zero-gateway/zero/shared/stopmark"
)

// ModeStore is a store with every capability the door can use: stop
// marks, steer records and sessions' own queue modes (dynamo.Store).
type ModeStore interface {
	StopMarker
	SteerRecorder
	SessionModes
}

// maxCachedModes bounds a CachedModes: past it the cache starts afresh.
const maxCachedModes = 10_000

// CachedModes is a ModeStore (the Deps.Stops of a channel function) that
// keeps each session's own queue mode for TTL, so a chat's messages cost
// the door one read of it per TTL (the config's re-read interval: a
// session's /queue change then acts at the door within that time, as a
// zero.json change does), not one per message. Marks and steer records
// pass through. Safe for concurrent use.
type CachedModes struct {
	store ModeStore
	ttl   time.Duration
	now   func() time.Time

	mu    sync.Mutex
	modes map[string]cachedMode
}

type cachedMode struct {
	mode string
	at   time.Time
}

// NewCachedModes caches store's session modes for ttl (nil now: time.Now).
func NewCachedModes(store ModeStore, ttl time.Duration, now func() time.Time) *CachedModes {
	if now == nil {
		now = time.Now
	}
	return &CachedModes{store: store, ttl: ttl, now: now, modes: map[string]cachedMode{}}
}

// SessionQueueMode is the store's, at most TTL old; a failed read is not
// cached.
func (c *CachedModes) SessionQueueMode(ctx context.Context, key string) (string, error) {
	now := c.now()
	c.mu.Lock()
	m, ok := c.modes[key]
	c.mu.Unlock()
	if ok && now.Sub(m.at) < c.ttl {
		return m.mode, nil
	}
	mode, err := c.store.SessionQueueMode(ctx, key)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	if len(c.modes) >= maxCachedModes {
		c.modes = map[string]cachedMode{}
	}
	c.modes[key] = cachedMode{mode: mode, at: now}
	c.mu.Unlock()
	return mode, nil
}

// MarkStop is the store's.
func (c *CachedModes) MarkStop(ctx context.Context, key string, s stopmark.Mark) error {
	return c.store.MarkStop(ctx, key, s)
}

// RecordSteer is the store's.
func (c *CachedModes) RecordSteer(ctx context.Context, key string, p steer.Pending) error {
	return c.store.RecordSteer(ctx, key, p)
}
