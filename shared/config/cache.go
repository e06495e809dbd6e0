package config

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
)

// Source supplies the raw document. Version changes whenever the content
// does (an SSM parameter version, a file's mtime and size); an empty
// version is treated as always new. A missing document is an error
// classified fault.NotFound.
type Source interface {
	Fetch(ctx context.Context) (data []byte, version string, err error)
}

// Cache keeps the parsed config across warm invocations and re-reads the
// source at most every TTL. Safe for concurrent use; one fetch runs at a
// time and concurrent callers wait for it.
type Cache struct {
	src Source
	ttl time.Duration
	log *slog.Logger

	// Clock replaces time.Now when set (tests). Set it before first use.
	Clock func() time.Time

	mu        sync.Mutex
	cur       *Config   // the last good config; nil before the first
	version   string    // cur's version
	fetchedAt time.Time // when cur's source was last read successfully
	missing   bool      // cur is Default() because the source has no document
	badVer    string    // the last version that failed to parse
	badErr    error     // its error
}

// NewCache returns a Cache over src. A nil log discards.
func NewCache(src Source, ttl time.Duration, log *slog.Logger) *Cache {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Cache{src: src, ttl: ttl, log: log}
}

// Current returns the config, fetching it on first use and again once TTL
// has passed; a new version is parsed, an unchanged one is not. When a
// re-fetch fails or the new version is invalid, the last good config stays
// in use and the error is logged (once per bad version); with no good
// config yet the error is returned. A source with no document
// (fault.NotFound) gives Default(), which admits nobody, and a warning.
func (c *Cache) Current(ctx context.Context) (*Config, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.cur != nil && now.Sub(c.fetchedAt) < c.ttl {
		return c.cur, nil
	}
	data, version, err := c.src.Fetch(ctx)
	switch {
	case fault.Is(err, fault.NotFound):
		if !c.missing {
			c.log.Warn("no ZERO configuration found: using the defaults, which admit nobody; "+
				"list who may talk to the assistant in channels.<channel>.allowFrom (and owners in channels.<channel>.owners)",
				"error", err)
		}
		c.cur, c.version, c.fetchedAt, c.missing = Default(), "", now, true
		return c.cur, nil
	case err != nil:
		if c.cur == nil {
			return nil, err
		}
		c.log.Error("config: re-reading failed, keeping the last good config", "version", c.version, "error", err)
		c.fetchedAt = now // retry after TTL, not on every call
		return c.cur, nil
	}
	if c.cur != nil && !c.missing && version != "" && version == c.version {
		c.fetchedAt = now
		return c.cur, nil
	}
	if version != "" && version == c.badVer {
		return c.keep(now, c.badErr)
	}
	cfg, err := Parse(data)
	if err != nil {
		c.badVer, c.badErr = version, err
		c.log.Error("config: invalid, not applied", "version", version, "error", fault.Message(err))
		return c.keep(now, err)
	}
	for _, w := range cfg.Warnings() {
		c.log.Warn("config: "+w, "version", version)
	}
	c.log.Info("config: loaded", "version", version)
	c.cur, c.version, c.fetchedAt, c.missing = cfg, version, now, false
	c.badVer, c.badErr = "", nil
	return cfg, nil
}

// keep returns the last good config after a bad version, or err when
// there is none.
func (c *Cache) keep(now time.Time, err error) (*Config, error) {
	if c.cur == nil {
		return nil, err
	}
	c.fetchedAt = now
	return c.cur, nil
}

func (c *Cache) now() time.Time {
	if c.Clock != nil {
		return c.Clock()
	}
	return time.Now()
}
