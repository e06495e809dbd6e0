package session

import (
	"fmt"
	"testing"
	"time"
	_ "time/tzdata" // the zones below load on machines without zoneinfo
)

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return loc
}

// utc parses "2006-01-02 15:04:05" as UTC: test instants are written in
// UTC so that no expectation depends on the code under test.
func utc(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.DateTime, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestStale(t *testing.T) {
	newYork := mustZone(t, "America/New_York")
	lisbon := mustZone(t, "Europe/Lisbon")
	kolkata := mustZone(t, "Asia/Kolkata")
	chatham := mustZone(t, "Pacific/Chatham")
	daily := func(h int) ResetPolicy { return ResetPolicy{Mode: ResetDaily, AtHour: h} }
	tests := []struct {
		name    string
		loc     *time.Location
		policy  ResetPolicy
		updated string // UTC; "" means unknown (0)
		now     string // UTC
		want    bool
	}{
		// UTC (nil location).
		{"utc before reset", nil, daily(4), "2026-06-01 03:00:00", "2026-06-01 03:59:59", false},
		{"utc at reset", nil, daily(4), "2026-06-01 03:00:00", "2026-06-01 04:00:00", true},
		{"utc updated after reset", nil, daily(4), "2026-06-01 04:00:00", "2026-06-02 03:59:59", false},
		{"utc next day's reset", nil, daily(4), "2026-06-01 04:00:00", "2026-06-02 04:00:00", true},
		{"utc days later", nil, daily(4), "2026-06-01 05:00:00", "2026-06-09 01:00:00", true},
		{"utc midnight reset", nil, daily(0), "2026-06-01 23:59:59", "2026-06-02 00:00:00", true},
		{"utc hour 23", nil, daily(23), "2026-06-01 22:00:00", "2026-06-01 23:00:00", true},
		{"unknown updatedAt never stale", nil, daily(4), "", "2026-06-09 01:00:00", false},
		{"updatedAt in the future", nil, ResetPolicy{Mode: ResetDaily, AtHour: 4, IdleMinutes: 1}, "2026-06-02 00:00:00", "2026-06-01 05:00:00", false},

		// Defaults.
		{"zero policy is daily at 4: before", nil, ResetPolicy{}, "2026-06-01 03:00:00", "2026-06-01 03:59:59", false},
		{"zero policy is daily at 4: after", nil, ResetPolicy{}, "2026-06-01 03:00:00", "2026-06-01 04:00:00", true},
		{"daily at 0 is midnight", nil, daily(0), "2026-06-01 23:00:00", "2026-06-02 00:30:00", true},
		{"hour out of range is 4", nil, daily(24), "2026-06-01 03:00:00", "2026-06-01 04:00:00", true},
		{"mode case-insensitive", nil, ResetPolicy{Mode: " OFF "}, "2026-01-01 00:00:00", "2026-06-01 00:00:00", false},

		// America/New_York spring forward: 2026-03-08 02:00 EST (07:00Z) becomes 03:00 EDT.
		{"ny spring: skipped hour not reached", newYork, daily(2), "2026-03-08 06:30:00", "2026-03-08 06:59:59", false},
		{"ny spring: skipped hour resets at 03:00 EDT", newYork, daily(2), "2026-03-08 06:30:00", "2026-03-08 07:00:00", true},
		{"ny spring: updated at 03:00 EDT", newYork, daily(2), "2026-03-08 07:00:00", "2026-03-09 05:59:59", false},
		{"ny spring: next day 02:00 EDT", newYork, daily(2), "2026-03-08 07:00:00", "2026-03-09 06:00:00", true},
		{"ny spring: 04:00 EDT is 23h after 04:00 EST", newYork, daily(4), "2026-03-08 07:30:00", "2026-03-08 07:59:59", false},
		{"ny spring: 04:00 EDT", newYork, daily(4), "2026-03-08 07:30:00", "2026-03-08 08:00:00", true},
		{"ny spring: 04:00 EST the day before", newYork, daily(4), "2026-03-07 08:59:59", "2026-03-07 09:00:00", true},

		// America/New_York fall back: 2026-11-01 02:00 EDT (06:00Z) becomes 01:00 EST.
		{"ny fall: first 01:00 resets", newYork, daily(1), "2026-11-01 04:59:00", "2026-11-01 05:00:00", true},
		{"ny fall: second 01:00 does not reset again", newYork, daily(1), "2026-11-01 05:00:00", "2026-11-01 06:30:00", false},
		{"ny fall: nor at the end of the repeated hour", newYork, daily(1), "2026-11-01 05:00:00", "2026-11-01 06:59:59", false},
		{"ny fall: next day 01:00 EST", newYork, daily(1), "2026-11-01 05:30:00", "2026-11-02 06:00:00", true},
		{"ny fall: 04:00 EST is 25h after 04:00 EDT", newYork, daily(4), "2026-11-01 08:30:00", "2026-11-01 08:59:59", false},
		{"ny fall: 04:00 EST", newYork, daily(4), "2026-11-01 08:30:00", "2026-11-01 09:00:00", true},

		// Europe/Lisbon spring forward: 2026-03-29 01:00 WET (01:00Z) becomes 02:00 WEST.
		{"lisbon spring: skipped hour not reached", lisbon, daily(1), "2026-03-29 00:30:00", "2026-03-29 00:59:59", false},
		{"lisbon spring: skipped hour resets at 02:00 WEST", lisbon, daily(1), "2026-03-29 00:30:00", "2026-03-29 01:00:00", true},
		{"lisbon spring: 04:00 WEST", lisbon, daily(4), "2026-03-29 02:30:00", "2026-03-29 03:00:00", true},
		{"lisbon spring: before 04:00 WEST", lisbon, daily(4), "2026-03-29 02:30:00", "2026-03-29 02:59:59", false},

		// Europe/Lisbon fall back: 2026-10-25 02:00 WEST (01:00Z) becomes 01:00 WET.
		{"lisbon fall: first 01:00 resets", lisbon, daily(1), "2026-10-24 23:59:00", "2026-10-25 00:00:00", true},
		{"lisbon fall: second 01:00 does not", lisbon, daily(1), "2026-10-25 00:10:00", "2026-10-25 01:30:00", false},
		{"lisbon fall: 04:00 WET", lisbon, daily(4), "2026-10-25 03:30:00", "2026-10-25 04:00:00", true},
		{"lisbon fall: before 04:00 WET", lisbon, daily(4), "2026-10-25 03:00:00", "2026-10-25 03:59:59", false},

		// Asia/Kolkata, +05:30: 04:00 IST is 22:30Z the day before.
		{"kolkata before reset", kolkata, daily(4), "2026-05-31 22:00:00", "2026-05-31 22:29:59", false},
		{"kolkata at reset", kolkata, daily(4), "2026-05-31 22:00:00", "2026-05-31 22:30:00", true},
		{"kolkata updated after reset", kolkata, daily(4), "2026-05-31 22:30:00", "2026-06-01 22:29:59", false},

		// Pacific/Chatham, +12:45 standard and +13:45 daylight.
		{"chatham summer 04:00 is 14:15Z", chatham, daily(4), "2026-01-10 14:00:00", "2026-01-10 14:15:00", true},
		{"chatham summer before 04:00", chatham, daily(4), "2026-01-10 14:00:00", "2026-01-10 14:14:59", false},
		{"chatham winter 04:00 is 15:15Z", chatham, daily(4), "2026-07-10 15:00:00", "2026-07-10 15:15:00", true},
		{"chatham winter before 04:00", chatham, daily(4), "2026-07-10 14:15:00", "2026-07-10 15:14:59", false},
		// 2026-09-27 02:45 +12:45 (14:00Z on the 26th) becomes 03:45 +13:45: 03:00 is skipped.
		{"chatham spring: skipped 03:00 resets at the gap's end", chatham, daily(3), "2026-09-26 13:30:00", "2026-09-26 14:00:00", true},
		{"chatham spring: before the gap", chatham, daily(3), "2026-09-26 13:30:00", "2026-09-26 13:59:59", false},
		// 2026-04-05 03:45 +13:45 (14:00Z on the 4th) becomes 02:45 +12:45: 03:00 repeats.
		{"chatham fall: first 03:00 resets", chatham, daily(3), "2026-04-04 13:00:00", "2026-04-04 13:15:00", true},
		{"chatham fall: second 03:00 does not", chatham, daily(3), "2026-04-04 13:15:00", "2026-04-04 14:20:00", false},

		// Idle only.
		{"idle before window", nil, ResetPolicy{Mode: ResetIdle, IdleMinutes: 60}, "2026-06-01 10:00:00", "2026-06-01 10:59:59", false},
		{"idle at window", nil, ResetPolicy{Mode: ResetIdle, IdleMinutes: 60}, "2026-06-01 10:00:00", "2026-06-01 11:00:00", true},
		{"idle ignores the daily hour", nil, ResetPolicy{Mode: ResetIdle, AtHour: 4, IdleMinutes: 600}, "2026-06-01 03:00:00", "2026-06-01 05:00:00", false},
		{"idle without minutes never stale", nil, ResetPolicy{Mode: ResetIdle}, "2026-01-01 00:00:00", "2026-06-01 00:00:00", false},
		{"idle spans DST by elapsed time", newYork, ResetPolicy{Mode: ResetIdle, IdleMinutes: 120}, "2026-03-08 06:00:00", "2026-03-08 07:59:59", false},

		// Daily and idle: whichever expires first.
		{"both: idle first", nil, ResetPolicy{Mode: ResetDaily, AtHour: 4, IdleMinutes: 60}, "2026-06-01 05:00:00", "2026-06-01 06:00:00", true},
		{"both: daily first", nil, ResetPolicy{Mode: ResetDaily, AtHour: 4, IdleMinutes: 240}, "2026-06-01 03:30:00", "2026-06-01 04:00:00", true},
		{"both: neither yet", nil, ResetPolicy{Mode: ResetDaily, AtHour: 4, IdleMinutes: 240}, "2026-06-01 04:30:00", "2026-06-01 08:29:59", false},
		{"zero mode with idle is daily too", nil, ResetPolicy{IdleMinutes: 240}, "2026-06-01 03:30:00", "2026-06-01 04:00:00", true},

		// Off.
		{"off never stale", nil, ResetPolicy{Mode: ResetOff}, "2020-01-01 00:00:00", "2026-06-01 00:00:00", false},
		{"off ignores idle minutes", nil, ResetPolicy{Mode: ResetOff, IdleMinutes: 1}, "2020-01-01 00:00:00", "2026-06-01 00:00:00", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var updated int64
			if tc.updated != "" {
				updated = utc(t, tc.updated).UnixMilli()
			}
			l := Lifecycle{Location: tc.loc}
			if got := l.Stale(tc.policy, updated, utc(t, tc.now)); got != tc.want {
				t.Fatalf("Stale(%+v, %s, %s) = %v; want %v", tc.policy, tc.updated, tc.now, got, tc.want)
			}
		})
	}
}

// The same two instants give different answers in different zones: the
// reset hour is local time.
func TestStaleDependsOnZone(t *testing.T) {
	updated := utc(t, "2026-06-01 07:30:00").UnixMilli()
	now := utc(t, "2026-06-01 10:00:00")
	tests := []struct {
		zone string
		want bool
	}{
		{"UTC", false},                 // reset at 04:00Z, before the update
		{"America/New_York", true},     // 04:00 EDT is 08:00Z, between the two
		{"Asia/Kolkata", false},        // 04:00 IST was 22:30Z the day before
		{"Europe/Lisbon", false},       // 04:00 WEST is 03:00Z
		{"Pacific/Chatham", false},     // 04:00 +12:45 was 15:15Z the day before
		{"America/Los_Angeles", false}, // 04:00 PDT is 11:00Z, after now
	}
	for _, tc := range tests {
		t.Run(tc.zone, func(t *testing.T) {
			l := Lifecycle{Location: mustZone(t, tc.zone)}
			if got := l.Stale(ResetPolicy{Mode: ResetDaily, AtHour: 4}, updated, now); got != tc.want {
				t.Fatalf("Stale = %v; want %v", got, tc.want)
			}
		})
	}
}

// TestStaleMatchesMinuteScan checks daily resets against a brute-force
// model: walk the clock a minute at a time and record a reset the first
// time the local wall clock reaches a new date's AtHour:00. A session is
// stale exactly when a reset lies in (updatedAt, now]. It also checks that
// Stale is monotonic in now.
func TestStaleMatchesMinuteScan(t *testing.T) {
	windows := []struct {
		zone  string
		start string // UTC; a few days around a transition
	}{
		{"America/New_York", "2026-03-06 00:00:00"},
		{"America/New_York", "2026-10-30 00:00:00"},
		{"Europe/Lisbon", "2026-03-27 00:00:00"},
		{"Europe/Lisbon", "2026-10-23 00:00:00"},
		{"Pacific/Chatham", "2026-04-02 00:00:00"},
		{"Pacific/Chatham", "2026-09-24 00:00:00"},
		{"Asia/Kolkata", "2026-06-01 00:00:00"},
		{"UTC", "2026-06-01 00:00:00"},
		// Transitions at midnight: 2018-02-18 00:00 went back to 23:00 the
		// day before; 2018-11-04 00:00 did not exist.
		{"America/Sao_Paulo", "2018-02-15 00:00:00"},
		{"America/Sao_Paulo", "2018-11-01 00:00:00"},
		// 2010-03-05 02:00 +11 went back to 23:00 +08 on the 4th: the wall
		// clock returned to a date whose next day's reset had passed.
		{"Antarctica/Casey", "2010-03-02 00:00:00"},
		// Samoa skipped 2011-12-30 entirely.
		{"Pacific/Apia", "2011-12-27 00:00:00"},
	}
	const days = 5
	for _, w := range windows {
		loc := mustZone(t, w.zone)
		start := utc(t, w.start)
		end := start.Add(days * 24 * time.Hour)
		for _, hour := range []int{0, 1, 2, 3, 4, 12, 23} {
			t.Run(fmt.Sprintf("%s from %s at %02d", w.zone, w.start, hour), func(t *testing.T) {
				resets := scanResets(start, end, loc, hour)
				l := Lifecycle{Location: loc}
				p := ResetPolicy{Mode: ResetDaily, AtHour: hour}
				// Skip the first day: the scan only knows resets after start.
				for updated := start.Add(25 * time.Hour); updated.Before(end); updated = updated.Add(37 * time.Minute) {
					wasStale := false
					for now := updated; now.Before(end); now = now.Add(29 * time.Minute) {
						want := false
						for _, r := range resets {
							if r.After(updated) && !r.After(now) {
								want = true
								break
							}
						}
						got := l.Stale(p, updated.UnixMilli(), now)
						if got != want {
							t.Fatalf("updated %s now %s: Stale = %v; scan says %v (resets %v)", updated, now, got, want, resets)
						}
						if wasStale && !got {
							t.Fatalf("updated %s now %s: stale earlier, fresh now", updated, now)
						}
						wasStale = got
					}
				}
			})
		}
	}
}

// scanResets returns the daily reset instants in [start, end) found by
// stepping a minute at a time (every zone transition is on a minute).
func scanResets(start, end time.Time, loc *time.Location, hour int) []time.Time {
	var resets []time.Time
	var last time.Time // date (as UTC midnight) of the latest reset
	for t := start; t.Before(end); t = t.Add(time.Minute) {
		wall := t.In(loc)
		date := time.Date(wall.Year(), wall.Month(), wall.Day(), 0, 0, 0, 0, time.UTC)
		if wall.Hour() < hour {
			date = date.AddDate(0, 0, -1) // today's reset hour not reached: yesterday's is the latest
		}
		if last.IsZero() {
			last = date // the reset of the first date happened before start
			continue
		}
		if date.After(last) {
			resets = append(resets, t)
			last = date
		}
	}
	return resets
}

func TestPolicyFor(t *testing.T) {
	idle := func(m int) ResetPolicy { return ResetPolicy{Mode: ResetIdle, IdleMinutes: m} }
	full := Lifecycle{
		Reset:     ResetPolicy{Mode: ResetDaily, AtHour: 5, IdleMinutes: 120},
		ByType:    map[string]ResetPolicy{TypeDM: idle(240), TypeGroup: idle(120), "Thread": {Mode: ResetDaily, AtHour: 4}},
		ByChannel: map[string]ResetPolicy{"Discord": idle(10080), "slack": {Mode: ResetOff}},
	}
	tests := []struct {
		name              string
		l                 Lifecycle
		channel, resetTyp string
		want              ResetPolicy
	}{
		{"channel beats type", full, "discord", TypeDM, idle(10080)},
		{"channel case-insensitive", full, " DISCORD ", TypeGroup, idle(10080)},
		{"channel off", full, "Slack", TypeThread, ResetPolicy{Mode: ResetOff}},
		{"type when no channel override", full, "telegram", TypeDM, idle(240)},
		{"group type", full, "telegram", TypeGroup, idle(120)},
		{"type case-insensitive", full, "telegram", TypeThread, ResetPolicy{Mode: ResetDaily, AtHour: 4}},
		{"default when no override", Lifecycle{Reset: full.Reset, ByChannel: full.ByChannel}, "telegram", TypeDM, full.Reset},
		{"empty config is daily at 4", Lifecycle{}, "telegram", TypeDM, ResetPolicy{Mode: ResetDaily, AtHour: 4}},
		{"zero override is daily at 4", Lifecycle{Reset: idle(5), ByChannel: map[string]ResetPolicy{"telegram": {}}}, "telegram", TypeDM, ResetPolicy{Mode: ResetDaily, AtHour: 4}},
		{"explicit daily at midnight kept", Lifecycle{Reset: ResetPolicy{Mode: "Daily"}}, "telegram", TypeDM, ResetPolicy{Mode: ResetDaily, AtHour: 0}},
		{"idle minutes kept on zero mode", Lifecycle{Reset: ResetPolicy{IdleMinutes: 30}}, "x", TypeDM, ResetPolicy{Mode: ResetDaily, AtHour: 4, IdleMinutes: 30}},
		{"exact key wins over a folded one", Lifecycle{ByChannel: map[string]ResetPolicy{"Discord": idle(1), "discord": idle(2)}}, "discord", TypeDM, idle(2)},
		{"folded keys: the smallest wins", Lifecycle{ByChannel: map[string]ResetPolicy{"discord ": idle(3), "Discord": idle(1), "DISCORD": idle(2)}}, "discorD", TypeDM, idle(2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for range 20 { // map order varies between iterations; the answer must not
				if got := tc.l.PolicyFor(tc.channel, tc.resetTyp); got != tc.want {
					t.Fatalf("PolicyFor(%q, %q) = %+v; want %+v", tc.channel, tc.resetTyp, got, tc.want)
				}
			}
		})
	}
}

// A policy picked by PolicyFor decides staleness: per-channel over per-type.
func TestPolicyForDecidesStale(t *testing.T) {
	l := Lifecycle{
		ByType:    map[string]ResetPolicy{TypeGroup: {Mode: ResetIdle, IdleMinutes: 60}},
		ByChannel: map[string]ResetPolicy{"discord": {Mode: ResetOff}},
	}
	updated := utc(t, "2026-06-01 10:00:00").UnixMilli()
	now := utc(t, "2026-06-01 12:00:00")
	tests := []struct {
		name, channel, resetType string
		want                     bool
	}{
		{"per-type idle expired", "telegram", TypeGroup, true},
		{"per-channel off wins", "discord", TypeGroup, false},
		{"default daily: no reset between", "telegram", TypeDM, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := l.Stale(l.PolicyFor(tc.channel, tc.resetType), updated, now); got != tc.want {
				t.Fatalf("Stale = %v; want %v", got, tc.want)
			}
		})
	}
}

func TestResetTypeOf(t *testing.T) {
	tests := []struct{ name, chatType, threadID, want string }{
		{"direct", "direct", "", TypeDM},
		{"empty", "", "", TypeDM},
		{"group", "group", "", TypeGroup},
		{"channel", "Channel", "", TypeGroup},
		{"topic", "group", "42", TypeThread},
		{"dm thread", "direct", "7", TypeThread},
		{"blank thread", "group", " ", TypeGroup},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ResetTypeOf(tc.chatType, tc.threadID); got != tc.want {
				t.Fatalf("ResetTypeOf(%q, %q) = %q; want %q", tc.chatType, tc.threadID, got, tc.want)
			}
		})
	}
}
