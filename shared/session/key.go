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

// Session kinds, as the sessions_list tool reports them (see Kind).
const (
	KindMain  = "main"
	KindGroup = "group"
	KindCron  = "cron"
	KindHook  = "hook"
	KindNode  = "node"
	KindOther = "other"
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
//
// Under cfg.Scope "global" every chat maps to KeyGlobal. Otherwise groups
// and channels get agent:<agent>:<channel>:group|channel:<id>[:topic:<thread>]
// (an empty id becomes "unknown"), and direct chats follow cfg.DMScope:
// main (default) agent:<agent>:<mainKey>, per-peer agent:<agent>:dm:<peer>,
// per-channel-peer agent:<agent>:<channel>:dm:<peer>,
// per-account-channel-peer agent:<agent>:<channel>:<account>:dm:<peer>; a
// direct chat with no peer id uses the main key. Under the per-* scopes an
// identity link naming "<channel>:<peer>" replaces the peer with the link's
// canonical name. Every id is trimmed and lower-cased; an empty channel
// becomes "unknown".
func Key(agentID string, r Route, cfg KeyConfig) string {
	if isGlobal(cfg) {
		return KeyGlobal
	}
	agent := NormalizeAgentID(agentID)
	channel := orUnknown(normalizeID(r.Channel))
	peer := normalizeID(r.PeerID)
	if kind := chatKind(r.ChatType); kind != "direct" {
		key := "agent:" + agent + ":" + channel + ":" + kind + ":" + orUnknown(peer)
		if t := normalizeID(r.ThreadID); t != "" {
			key += ":topic:" + t
		}
		return key
	}
	mainKey := "agent:" + agent + ":" + mainKeyOf(cfg)
	if peer == "" {
		return mainKey
	}
	scope := normalizeID(cfg.DMScope)
	switch scope {
	case ScopePerPeer, ScopePerChannelPeer, ScopePerAccountChannelPeer:
		peer = linkedPeer(cfg.IdentityLinks, channel, peer)
	}
	switch scope {
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
	return mainKey
}

// linkedPeer returns the canonical identity of the first link that lists
// "<channel>:<peer>", else peer. Slice order makes the choice deterministic
// when a peer is (wrongly) listed by two links.
func linkedPeer(links []IdentityLink, channel, peer string) string {
	want := channel + ":" + peer
	for _, l := range links {
		canonical := normalizeID(l.Canonical)
		if canonical == "" {
			continue // a link without a name cannot replace anything
		}
		for _, p := range l.Peers {
			if normalizeID(p) == want {
				return canonical
			}
		}
	}
	return peer
}

// chatKind maps a route's chat type to the key segment: "group", "channel",
// or "direct" for direct chats and anything unrecognised.
func chatKind(chatType string) string {
	switch t := normalizeID(chatType); t {
	case "group", "channel":
		return t
	}
	return "direct"
}

// CronKey returns the session key of cron job jobID: cron:<jobID>, the id
// trimmed and lower-cased.
func CronKey(jobID string) string { return "cron:" + normalizeID(jobID) }

// HookKey returns the session key of a webhook run: hook:<id>, the id
// (a uuid unless the hook names one) trimmed and lower-cased.
func HookKey(id string) string { return "hook:" + normalizeID(id) }

// NodeKey returns the session key of a node run: node-<nodeID>, the id
// trimmed and lower-cased.
func NodeKey(nodeID string) string { return "node-" + normalizeID(nodeID) }

// SubagentKey returns the session key of a subagent run spawned under
// agentID: agent:<agentID>:subagent:<id>. The caller supplies id (a fresh
// uuid per spawn) so the function stays pure.
func SubagentKey(agentID, id string) string {
	return "agent:" + NormalizeAgentID(agentID) + ":subagent:" + normalizeID(id)
}

// Canonical returns the stored key that a caller-supplied key names, for
// tools and APIs that accept keys from agents and users. The key is
// trimmed and lower-cased, then:
//   - "" stays "" (the caller must reject it);
//   - "global" and "unknown" stay as they are;
//   - the literal "main" is agentID's main key, or "global" under global scope;
//   - agent:<id>:main and agent:<id>:<mainKey> are agent:<id>:<mainKey>, or
//     "global" under global scope; the <id> is normalised;
//   - legacy group:<id>, channel:<id>, <ch>:group:<id> and <ch>:channel:<id>
//     become agent:<agentID>:<ch>:group|channel:<id>, <ch> being the
//     key's own channel, else channel, else "unknown";
//   - anything else (cron:, hook:, node-, other agent keys) is unchanged.
func Canonical(agentID, key, channel string, cfg KeyConfig) string {
	k := normalizeID(key)
	switch {
	case k == "" || Reserved(k):
		return k
	case k == DefaultMainKey:
		if isGlobal(cfg) {
			return KeyGlobal
		}
		return "agent:" + NormalizeAgentID(agentID) + ":" + mainKeyOf(cfg)
	case strings.HasPrefix(k, "cron:"), strings.HasPrefix(k, "hook:"), strings.HasPrefix(k, "node-"):
		return k
	}
	if rest, ok := strings.CutPrefix(k, "agent:"); ok {
		id, tail, ok := strings.Cut(rest, ":")
		if !ok || tail == "" {
			return k // malformed: nothing to resolve
		}
		if mainKey := mainKeyOf(cfg); tail == DefaultMainKey || tail == mainKey {
			if isGlobal(cfg) {
				return KeyGlobal
			}
			tail = mainKey
		}
		return "agent:" + NormalizeAgentID(id) + ":" + tail
	}
	ch, kind, id, ok := legacyGroup(k)
	if !ok {
		return k
	}
	if ch == "" {
		ch = orUnknown(normalizeID(channel))
	}
	return "agent:" + NormalizeAgentID(agentID) + ":" + ch + ":" + kind + ":" + orUnknown(id)
}

// legacyGroup parses the pre-agent group keys: group:<id>, channel:<id>,
// <ch>:group:<id> and <ch>:channel:<id>. ch is "" when the key has none.
func legacyGroup(k string) (ch, kind, id string, ok bool) {
	for _, kind := range []string{"group", "channel"} {
		if id, ok := strings.CutPrefix(k, kind+":"); ok {
			return "", kind, id, true
		}
	}
	ch, rest, found := strings.Cut(k, ":")
	if !found || ch == "" {
		return "", "", "", false
	}
	for _, kind := range []string{"group", "channel"} {
		if id, ok := strings.CutPrefix(rest, kind+":"); ok {
			return ch, kind, id, true
		}
	}
	return "", "", "", false
}

// Display returns the key callers are shown: under global scope the
// reserved "global" is shown as "main", so callers never see "global";
// every other key is shown as it is.
func Display(key string, cfg KeyConfig) string {
	if normalizeID(key) == KeyGlobal && isGlobal(cfg) {
		return DefaultMainKey
	}
	return key
}

// Reserved reports whether key (trimmed, case-insensitive) is one of the
// reserved keys "global" and "unknown", which are never listed and never
// agent-prefixed.
func Reserved(key string) bool {
	k := normalizeID(key)
	return k == KeyGlobal || k == KeyUnknown
}

// Stripped returns key without its "agent:<id>:" prefix; a key without
// that prefix (or with nothing after it) is returned unchanged.
func Stripped(key string) string {
	rest, ok := strings.CutPrefix(key, "agent:")
	if !ok {
		return key
	}
	if _, tail, ok := strings.Cut(rest, ":"); ok && tail != "" {
		return tail
	}
	return key
}

// Kind classifies key as the sessions_list tool does: KindMain for an
// agent's main key (including the "main" alias and "global"), KindGroup
// for group and channel keys (topics included, legacy forms too),
// KindCron, KindHook and KindNode for cron:, hook: and node- keys (with or
// without an agent prefix), and KindOther for the rest (dm, subagent,
// "unknown").
func Kind(key string, cfg KeyConfig) string {
	k := normalizeID(key)
	if k == KeyGlobal {
		return KindMain
	}
	s := Stripped(k)
	switch {
	case s == DefaultMainKey || (s != k && s == mainKeyOf(cfg)):
		return KindMain
	case strings.HasPrefix(s, "cron:"):
		return KindCron
	case strings.HasPrefix(s, "hook:"):
		return KindHook
	case strings.HasPrefix(s, "node-"):
		return KindNode
	case isGroupKey(s):
		return KindGroup
	}
	return KindOther
}

// isGroupKey reports whether a stripped key has a group shape:
// [<ch>:]group|channel:<id>... A per-account dm key whose account is named
// "group" (<ch>:group:dm:<peer>) is a dm, not a group.
func isGroupKey(s string) bool {
	parts := strings.Split(s, ":")
	if len(parts) >= 2 && (parts[0] == "group" || parts[0] == "channel") {
		return true
	}
	if len(parts) < 3 || (parts[1] != "group" && parts[1] != "channel") {
		return false
	}
	return !(len(parts) == 4 && parts[2] == "dm")
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

// OwnerOf is the agent the session key whose entry is e belongs to,
// normalised: the entry's agent, else the key's (AgentOf).
func OwnerOf(key string, e Entry) string {
	if e.AgentID != "" {
		return NormalizeAgentID(e.AgentID)
	}
	return AgentOf(key)
}

func normalizeID(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func isGlobal(cfg KeyConfig) bool { return normalizeID(cfg.Scope) == ScopeGlobal }

// mainKeyOf returns cfg's main key, normalised, defaulting to "main".
func mainKeyOf(cfg KeyConfig) string {
	if k := normalizeID(cfg.MainKey); k != "" {
		return k
	}
	return DefaultMainKey
}

func orUnknown(s string) string {
	if s == "" {
		return KeyUnknown
	}
	return s
}
