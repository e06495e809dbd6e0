package session

import "time"

// Why a stale session expired (StaleCause).
const (
	CauseDaily = "daily"
	CauseIdle  = "idle"
)

// StaleCause says why a session last updated at updatedAtMS is stale at
// now under p: CauseIdle when its idle window has passed, else CauseDaily
// when a daily reset has passed since, else "" (not stale). It agrees with
// Stale: StaleCause(...) != "" exactly when Stale(...).
func (l Lifecycle) StaleCause(p ResetPolicy, updatedAtMS int64, now time.Time) string {
	if !l.Stale(p, updatedAtMS, now) {
		return ""
	}
	p = p.resolved()
	if p.IdleMinutes > 0 && now.UnixMilli()-updatedAtMS >= int64(p.IdleMinutes)*time.Minute.Milliseconds() {
		return CauseIdle
	}
	return CauseDaily
}

// NextReset is when a session last updated at updatedAtMS goes stale
// under p if no message comes first: the earlier of its idle deadline
// and the first daily reset after updatedAtMS. ok is false when it never
// does (mode off, an unknown updatedAtMS).
func (l Lifecycle) NextReset(p ResetPolicy, updatedAtMS int64) (at time.Time, ok bool) {
	p = p.resolved()
	if updatedAtMS <= 0 || p.Mode == ResetOff {
		return time.Time{}, false
	}
	updated := time.UnixMilli(updatedAtMS)
	if p.IdleMinutes > 0 {
		at, ok = updated.Add(time.Duration(p.IdleMinutes)*time.Minute), true
	}
	if p.Mode == ResetIdle {
		return at, ok
	}
	daily := l.nextDailyReset(p.AtHour, updated)
	if !ok || daily.Before(at) {
		at = daily
	}
	return at, true
}

// nextDailyReset is the first daily reset strictly after t (the one that
// makes a session updated at t stale).
func (l Lifecycle) nextDailyReset(hour int, t time.Time) time.Time {
	loc := l.Location
	if loc == nil {
		loc = time.UTC
	}
	y, m, d := t.In(loc).Date()
	day := time.Date(y, m, d, hour, 0, 0, 0, time.UTC)
	for days := -1; ; days++ {
		if r := dailyReset(day.AddDate(0, 0, days), loc); r.After(t) {
			return r
		}
	}
}
