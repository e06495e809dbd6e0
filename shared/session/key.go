// Package session holds ZERO's session model: how an inbound route maps to a
// session key, and the entry stored for each key. It imports no AWS package.
package session

import (
	"strings"
)

// DM scopes (session.dmScope).
const (
	ScopeMain                  = "main"
	ScopePerPeer               = "per-peer"
	ScopePerChannelPeer        = "per-channel-peer"
	ScopePerAccountChannelPeer = "per-account-channel-peer"
)

// DefaultAgentID and DefaultMainKey are the seed's defaults.
const (
	DefaultAgentID   = "main"
	DefaultMainKey   = "main"
	DefaultAccountID = "default"
)

// Session scopes (session.scope).
const (
	ScopePerSender = "per-sender" // default: groups keep their own keys
	ScopeGlobal    = "global"     // every main alias resolves to "global"
)

// Reserved keys: never listed, never agent-prefixed.
const (
	KeyGlobal  = "global"
	KeyUnknown = "unknown"
)

// KeyConfig is the part of `session.*` that shapes keys.
type KeyConfig struct {
	MainKey string // session.mainKey, default "main"
	DMScope string // session.dmScope, default "main"
	Scope   string // session.scope: "per-sender" (default) or "global"
	// IdentityLinks maps provider-prefixed peer ids to a canonical identity
	// (session.identityLinks), in the order the config lists them: the
	// first link naming a peer wins.
	IdentityLinks []IdentityLink
}

// IdentityLink is one session.identityLinks entry.
type IdentityLink struct {
	Canonical string   // "alice"
	Peers     []string // provider-prefixed: "telegram:123", "discord:456"
}

// Route describes where an inbound message came from.
type Route struct {
	Channel   string // "telegram"
	AccountID string // bot/account on the channel; "" means default
	ChatType  string // direct | group | channel
	PeerID    string // sender id for direct chats, chat id for groups and channels
	ThreadID  string // forum topic / thread, "" when none
	GuildID   string // Discord guild / Slack team, "" when none (bindings match on it)
}

// Key returns the session key for route under agentID. It is pure and
// deterministic: the same route and config always give the same key.
func Key(agentID string, r Route, cfg KeyConfig) string {
	agent := NormalizeAgentID(agentID)
	channel := normalizeID(r.Channel)
	peer := normalizeID(r.PeerID)
	switch r.ChatType {
	case "group", "channel":
		if peer == "" {
			peer = "unknown"
		}
		key := "agent:" + agent + ":" + channel + ":" + r.ChatType + ":" + peer
		if t := normalizeID(r.ThreadID); t != "" {
			key += ":topic:" + t
		}
		return key
	}
	mainKey := normalizeID(cfg.MainKey)
	if mainKey == "" {
		mainKey = DefaultMainKey
	}
	if peer == "" {
		return "agent:" + agent + ":" + mainKey
	}
	switch cfg.DMScope {
	case ScopePerPeer:
		return "agent:" + agent + ":dm:" + peer
	case ScopePerChannelPeer:
		return "agent:" + agent + ":" + channel + ":dm:" + peer
	case ScopePerAccountChannelPeer:
		account := normalizeID(r.AccountID)
		if account == "" {
			account = DefaultAccountID
		}
		return "agent:" + agent + ":" + channel + ":" + account + ":dm:" + peer
	}
	return "agent:" + agent + ":" + mainKey
}

// NormalizeAgentID lower-cases id and restricts it to
// [a-z0-9][a-z0-9_-]{0,63}; anything else becomes "-", and an id with no
// usable character falls back to "main".
func NormalizeAgentID(id string) string {
	id = normalizeID(id)
	var b strings.Builder
	for i := 0; i < len(id) && b.Len() < 64; i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || (b.Len() > 0 && (c == '_' || c == '-'))
		if !ok {
			if b.Len() == 0 {
				continue
			}
			c = '-'
		}
		b.WriteByte(c)
	}
	if b.Len() == 0 {
		return DefaultAgentID
	}
	return b.String()
}

// AgentOf returns the agent id of an "agent:<id>:..." key, or DefaultAgentID.
func AgentOf(key string) string {
	rest, ok := strings.CutPrefix(key, "agent:")
	if !ok {
		return DefaultAgentID
	}
	id, _, _ := strings.Cut(rest, ":")
	return NormalizeAgentID(id)
}

func normalizeID(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
