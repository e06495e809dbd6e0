package ssmparam

import "time"

// DefaultTTL is how often a warm function re-reads the config parameter:
// edits apply within it, and a steady stream of turns costs one
// GetParameter per instance per TTL rather than one per turn. A function's
// settings (functions/internal/settings, ZERO_CONFIG_TTL) default to it.
const DefaultTTL = 30 * time.Second
