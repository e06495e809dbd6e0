package session

import "time"

// Reset modes (session.reset.mode and its per-type/per-channel overrides).
const (
	ResetDaily = "daily" // stale once the last daily reset time (atHour) has passed
	ResetIdle  = "idle"  // stale after idleMinutes without a message
	ResetOff   = "off"   // never stale (ZERO addition)
)

// Reset types for session.resetByType.
const (
	TypeDM     = "dm"
	TypeGroup  = "group"
	TypeThread = "thread"
)

// ResetPolicy is one resolved reset rule. With Mode daily and IdleMinutes >
// 0 both apply and whichever expires first wins.
type ResetPolicy struct {
	Mode        string
	AtHour      int // 0-23, local hour in Lifecycle.Location; default 4
	IdleMinutes int // 0: no idle window
}

// Lifecycle is the resolved reset configuration.
type Lifecycle struct {
	Reset     ResetPolicy            // session.reset (after legacy idle-only mapping)
	ByType    map[string]ResetPolicy // session.resetByType: dm, group, thread
	ByChannel map[string]ResetPolicy // session.resetByChannel; wins over ByType
	Location  *time.Location         // the gateway's time zone; nil means UTC
}

// PolicyFor returns the policy for a session on channel of resetType
// (TypeDM, TypeGroup or TypeThread): the channel override, else the type
// override, else the default.
func (l Lifecycle) PolicyFor(channel, resetType string) ResetPolicy {
	return l.Reset
}

// Stale reports whether a session last updated at updatedAtMS has expired
// at now under p. It is monotonic in now: once stale, stale for every later
// now, so a retried turn decides as its first attempt did.
func (l Lifecycle) Stale(p ResetPolicy, updatedAtMS int64, now time.Time) bool {
	return false
}

// ResetTypeOf names the resetByType bucket of a chat: threads (forum topics,
// Slack/Discord threads) first, then groups and channels, else dm.
func ResetTypeOf(chatType, threadID string) string {
	switch {
	case threadID != "":
		return TypeThread
	case chatType == "group" || chatType == "channel":
		return TypeGroup
	}
	return TypeDM
}
