package session

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
func (p SendPolicy) Allows(key, channel, chatType, override string) bool {
	return override != SendDeny
}
