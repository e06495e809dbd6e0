package session

import "strings"

// Send policy actions, and the per-entry override values.
const (
	SendAllow = "allow"
	SendDeny  = "deny"
)

// SendPolicy is session.sendPolicy.
type SendPolicy struct {
	Rules   []SendRule
	Default string // allow (default) or deny
}

// SendRule denies or allows delivery for the sessions it matches. Empty
// match fields match anything.
type SendRule struct {
	Action string // allow | deny
	Match  SendMatch
}

// SendMatch is a send rule's match block.
type SendMatch struct {
	Channel   string
	ChatType  string
	KeyPrefix string // matched against the key and against the key without "agent:<id>:"
}

// Allows reports whether replies may be delivered for the session key on
// channel/chatType. A per-entry override (allow|deny) decides alone; else
// any matching deny rule wins over any matching allow; else Default.
//
// A rule matches when each match field it sets matches: Channel and
// ChatType compared case-insensitively ("dm" and "direct" are the same
// chat type), KeyPrefix a case-insensitive prefix of the key or of the key
// without its agent prefix, so "cron:" matches cron sessions and
// "agent:work:" one agent's. Rule order does not matter; a rule whose
// action is neither allow nor deny is ignored. Default "deny" denies;
// anything else allows.
func (p SendPolicy) Allows(key, channel, chatType, override string) bool {
	switch normalizeID(override) {
	case SendAllow:
		return true
	case SendDeny:
		return false
	}
	key = normalizeID(key)
	allowed := false
	for _, r := range p.Rules {
		action := normalizeID(r.Action)
		if (action != SendAllow && action != SendDeny) || !r.Match.matches(key, channel, chatType) {
			continue
		}
		if action == SendDeny {
			return false
		}
		allowed = true
	}
	return allowed || normalizeID(p.Default) != SendDeny
}

// matches reports whether every field m sets matches; key is normalised.
func (m SendMatch) matches(key, channel, chatType string) bool {
	if c := normalizeID(m.Channel); c != "" && c != normalizeID(channel) {
		return false
	}
	if t := normalizeID(m.ChatType); t != "" && chatTypeOf(t) != chatTypeOf(chatType) {
		return false
	}
	if prefix := normalizeID(m.KeyPrefix); prefix != "" &&
		!strings.HasPrefix(key, prefix) && !strings.HasPrefix(Stripped(key), prefix) {
		return false
	}
	return true
}
