package cron

import (
	"strconv"
	"strings"
	"time"
)

// NextFire is the first time after `after` that a schedule with
// EventBridge Scheduler's expression expr fires, ok=false for none: the
// local stack's firing ticker reads schedules back from the Scheduler API
// and fires them with it (moto never fires).
//
//   - at(yyyy-mm-ddThh:mm:ss) fires once at that time in zone tz;
//   - rate(n minute|minutes|hour|hours|day|days) fires at start + k·n
//     (k ≥ 0; start is the schedule's StartDate, else its creation time,
//     and then k ≥ 1);
//   - cron(6 fields) in zone tz, EventBridge's form (see parseCron).
//
// tz "" is UTC. An expression it cannot read is an error (fault.Invalid).
func NextFire(expr, tz string, start *time.Time, created, after time.Time) (time.Time, bool, error) {
	loc := time.UTC
	if tz != "" {
		l, err := time.LoadLocation(tz)
		if err != nil {
			return time.Time{}, false, invalidf("schedule expression time zone %q: %v", tz, err)
		}
		loc = l
	}
	inner := func(prefix string) (string, bool) {
		s, ok := strings.CutPrefix(expr, prefix+"(")
		if !ok || !strings.HasSuffix(s, ")") {
			return "", false
		}
		return strings.TrimSuffix(s, ")"), true
	}
	if s, ok := inner("at"); ok {
		t, err := time.ParseInLocation("2006-01-02T15:04:05", s, loc)
		if err != nil {
			return time.Time{}, false, invalidf("schedule expression %q: %v", expr, err)
		}
		return t, t.After(after), nil
	}
	if s, ok := inner("rate"); ok {
		every, err := rateInterval(s)
		if err != nil {
			return time.Time{}, false, err
		}
		anchor, first := created, int64(1)
		if start != nil {
			anchor, first = *start, 0
		}
		k := first
		if !after.Before(anchor) {
			k = max(first, int64(after.Sub(anchor)/every)+1)
		}
		return anchor.Add(time.Duration(k) * every), true, nil
	}
	if s, ok := inner("cron"); ok {
		c, err := parseCron(s)
		if err != nil {
			return time.Time{}, false, err
		}
		t, ok := c.next(after, loc)
		return t, ok, nil
	}
	return time.Time{}, false, invalidf("schedule expression %q: want at(...), rate(...) or cron(...)", expr)
}

// rateInterval reads "n unit" of a rate expression.
func rateInterval(s string) (time.Duration, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, invalidf("rate(%s): want rate(n unit)", s)
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n < 1 {
		return 0, invalidf("rate(%s): %q is not a positive number", s, f[0])
	}
	unit := map[string]time.Duration{"minute": time.Minute, "hour": time.Hour, "day": 24 * time.Hour}[strings.TrimSuffix(f[1], "s")]
	if unit == 0 {
		return 0, invalidf("rate(%s): unit must be minute(s), hour(s) or day(s)", s)
	}
	return time.Duration(n) * unit, nil
}
