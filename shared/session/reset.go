package session

import (
	"slices"
	"time"
)

// Reset modes (session.reset.mode and its per-type/per-channel overrides).
const (
	ResetDaily = "daily" // stale once the last daily reset time (atHour) has passed
	ResetIdle  = "idle"  // stale after idleMinutes without a message
	ResetOff   = "off"   // never stale (ZERO addition)
)

// DefaultResetHour is the daily reset hour when none is configured.
const DefaultResetHour = 4

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
// override, else the default. Map keys match case-insensitively. The
// result is resolved: Mode "" becomes daily, and AtHour 4 when it was 0
// with Mode "" or is outside 0-23.
func (l Lifecycle) PolicyFor(channel, resetType string) ResetPolicy {
	if p, ok := lookupFold(l.ByChannel, channel); ok {
		return p.resolved()
	}
	if p, ok := lookupFold(l.ByType, resetType); ok {
		return p.resolved()
	}
	return l.Reset.resolved()
}

// lookupFold finds name in m ignoring case and surrounding spaces. When
// several keys fold to name, the exact key wins, else the smallest, so the
// answer never depends on map order.
func lookupFold(m map[string]ResetPolicy, name string) (ResetPolicy, bool) {
	if p, ok := m[name]; ok {
		return p, true
	}
	want := normalizeID(name)
	var keys []string
	for k := range m {
		if normalizeID(k) == want {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ResetPolicy{}, false
	}
	return m[slices.Min(keys)], true
}

// resolved applies the defaults: no mode means daily, and a daily policy
// without a usable hour resets at DefaultResetHour. Mode "" with AtHour 0
// reads as unset (the zero value), not as midnight.
func (p ResetPolicy) resolved() ResetPolicy {
	p.Mode = normalizeID(p.Mode)
	if p.Mode == "" {
		p.Mode = ResetDaily
		if p.AtHour == 0 {
			p.AtHour = DefaultResetHour
		}
	}
	if p.AtHour < 0 || p.AtHour > 23 {
		p.AtHour = DefaultResetHour
	}
	if p.IdleMinutes < 0 {
		p.IdleMinutes = 0
	}
	return p
}

// Stale reports whether a session last updated at updatedAtMS has expired
// at now under p. It is monotonic in now: once stale, stale for every later
// now, so a retried turn decides as its first attempt did.
//
// Mode off is never stale. Daily is stale when updatedAtMS is before the
// most recent daily reset at or before now: the first instant whose wall
// clock in l.Location reads AtHour:00 or later that day (so a reset hour
// skipped by a DST gap happens when the gap ends, and a repeated hour
// resets once, at its first occurrence). Idle is stale once IdleMinutes
// (> 0) have passed since updatedAtMS; daily with IdleMinutes > 0 is stale
// when either applies. An unknown updatedAtMS (<= 0) is never stale. An
// unrecognised mode is read as daily, the default.
func (l Lifecycle) Stale(p ResetPolicy, updatedAtMS int64, now time.Time) bool {
	if updatedAtMS <= 0 {
		return false
	}
	p = p.resolved()
	if p.Mode == ResetOff {
		return false
	}
	if p.IdleMinutes > 0 && now.UnixMilli()-updatedAtMS >= int64(p.IdleMinutes)*time.Minute.Milliseconds() {
		return true
	}
	if p.Mode == ResetIdle {
		return false
	}
	return updatedAtMS < l.lastDailyReset(p.AtHour, now).UnixMilli()
}

// lastDailyReset returns the latest daily reset instant at or before now.
// Resets are strictly increasing by date, so it is the latest of the
// resets of now's local date and its neighbours that is not after now;
// tomorrow's counts too, since a fall-back across midnight can set the
// wall clock back to today after tomorrow's reset has passed.
func (l Lifecycle) lastDailyReset(hour int, now time.Time) time.Time {
	loc := l.Location
	if loc == nil {
		loc = time.UTC
	}
	y, m, d := now.In(loc).Date()
	// Wall-clock arithmetic is done on a UTC calendar, where every day
	// has 24 hours; only dailyReset maps a wall time to an instant.
	today := time.Date(y, m, d, hour, 0, 0, 0, time.UTC)
	var last time.Time
	for _, days := range []int{-1, 0, 1} {
		if r := dailyReset(today.AddDate(0, 0, days), loc); !r.After(now) && r.After(last) {
			last = r
		}
	}
	return last
}

// dailyReset returns the first instant whose wall clock in loc reads wall
// (a UTC time holding the local date and time) or later. It walks the
// zone periods around wall: within one period the wall clock is instant +
// offset and rises with the instant, so its first instant at or after wall
// is max(period start, wall - offset) if that lies inside the period. The
// first period with such an instant gives the answer: the instant itself
// when the wall time exists (the earlier one when it repeats), the end of
// the gap when a spring-forward skips it.
func dailyReset(wall time.Time, loc *time.Location) time.Time {
	// No zone is more than 14h from UTC, so 15h before wall the local
	// clock has not reached wall yet.
	t := wall.Add(-15 * time.Hour).In(loc)
	for range 8 { // a few transitions at most near one wall time
		_, offset := t.Zone()
		start, end := t.ZoneBounds()
		at := wall.Add(-time.Duration(offset) * time.Second)
		if at.Before(start) {
			at = start
		}
		if end.IsZero() || at.Before(end) {
			return at.In(loc)
		}
		t = end.In(loc)
	}
	// Unreachable with real zone data; time.Date's choice is still an
	// instant near wall.
	return time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), 0, 0, 0, loc)
}

// ResetTypeOf names the resetByType bucket of a chat: threads (forum topics,
// Slack/Discord threads) first, then groups and channels, else dm.
func ResetTypeOf(chatType, threadID string) string {
	switch {
	case normalizeID(threadID) != "":
		return TypeThread
	case chatKind(chatType) != "direct":
		return TypeGroup
	}
	return TypeDM
}
