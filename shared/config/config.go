// Package config reads zero.json (JSON5): the seeds' session.*, agents.*,
// bindings, tools.* and channels.* keys with their defaults, validated on
// load. It is core: no AWS import; where the bytes come from is a Source.
//
// STUB: the API below is fixed; the implementation is being written.
package config

import (
	"context"
	"log/slog"
	"time"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// Config is a parsed, validated zero.json. Treat it as read-only: a Cache
// hands the same *Config to concurrent callers.
type Config struct {
	warnings []string
}

// Parse reads a JSON5 document, applies the defaults and validates it.
// An invalid document is a fault.Invalid error whose message names the
// offending key path, e.g. `session.reset.atHour: must be 0-23, got 25`.
// Unknown keys are not errors (upstream configs carry many ZERO does not
// read); they are listed by Warnings.
func Parse(data []byte) (*Config, error) { return &Config{}, nil }

// Default is the configuration of an empty document. It admits nobody on
// any channel.
func Default() *Config { return &Config{} }

// DevJSON is the configuration `zero dev` runs with when the user has no
// zero.json: everyone may talk to the assistant and run owner commands.
const DevJSON = `{
  // zero dev: no ZERO_CONFIG and no ~/.zero/zero.json, so this local-only
  // config admits everyone. Never deploy it.
  channels: { telegram: { allowFrom: ["*"], owners: ["*"] } },
}`

// Warnings lists unknown keys by path ("session.foo: unknown key, ignored").
func (c *Config) Warnings() []string { return c.warnings }

// Keys is the key-shaping part of session.*.
func (c *Config) Keys() session.KeyConfig { return session.KeyConfig{} }

// Routing is agents.list[] and bindings.
func (c *Config) Routing() session.Agents { return session.Agents{} }

// Lifecycle is session.reset, resetByType, resetByChannel and the time zone.
func (c *Config) Lifecycle() session.Lifecycle {
	return session.Lifecycle{Reset: session.ResetPolicy{Mode: session.ResetDaily, AtHour: 4}, Location: time.UTC}
}

// SendPolicy is session.sendPolicy.
func (c *Config) SendPolicy() session.SendPolicy { return session.SendPolicy{Default: session.SendAllow} }

// ResetTriggers are the exact commands that reset a session: "/new",
// "/reset" and session.resetTriggers.
func (c *Config) ResetTriggers() []string { return []string{"/new", "/reset"} }

// Admits reports whether channels.<channel>.allowFrom lets sender (a peer
// id on that channel, with or without the "<channel>:" prefix) start turns.
func (c *Config) Admits(channel, sender string) bool { return false }

// IsOwner reports whether sender is in channels.<channel>.owners.
func (c *Config) IsOwner(channel, sender string) bool { return false }

// DefaultModel is the model of agentID: agents.list[].model, else
// agents.defaults.model; ok is false when neither is set.
func (c *Config) DefaultModel(agentID string) (ref model.Ref, ok bool) { return model.Ref{}, false }

// ResolveModel resolves what a user typed after /new: an alias from
// agents.defaults.models, a "provider/model" ref, or a provider name
// (fuzzy) naming that provider's configured model.
func (c *Config) ResolveModel(input string) (model.Ref, bool) { return model.Ref{}, false }

// Source supplies the raw document. Version changes whenever the content
// does (an SSM parameter version, a file's mtime and size).
type Source interface {
	Fetch(ctx context.Context) (data []byte, version string, err error)
}

// Cache keeps the parsed config across warm invocations and re-reads the
// source at most every TTL. Safe for concurrent use.
type Cache struct {
	src Source
	ttl time.Duration
	log *slog.Logger
}

// NewCache returns a Cache over src.
func NewCache(src Source, ttl time.Duration, log *slog.Logger) *Cache {
	return &Cache{src: src, ttl: ttl, log: log}
}

// Current returns the config, fetching it on first use and again once TTL
// has passed; a new version is parsed, an unchanged one is not. When a
// re-fetch fails or the new version is invalid, the last good config stays
// in use and the error is logged; with no good config yet the error is
// returned.
func (c *Cache) Current(ctx context.Context) (*Config, error) {
	data, _, err := c.src.Fetch(ctx)
	if err != nil {
		return nil, err
	}
	return Parse(data)
}
