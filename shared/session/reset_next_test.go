package session

import (
	"testing"
	"time"
)

func TestNextResetAndStaleCause(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name      string
		lc        Lifecycle
		p         ResetPolicy
		updated   string
		want      string // RFC 3339; "" none
		wantCause string // at want + 1 ms
	}{
		{name: "daily at 4, updated before 4", p: ResetPolicy{Mode: ResetDaily, AtHour: 4}, updated: "2026-11-28T03:00:00Z", want: "2026-11-28T04:00:00Z", wantCause: CauseDaily},
		{name: "daily at 4, updated after 4", p: ResetPolicy{Mode: ResetDaily, AtHour: 4}, updated: "2026-11-28T04:00:00Z", want: "2026-11-29T04:00:00Z", wantCause: CauseDaily},
		{name: "default policy is daily at 4", updated: "2026-11-28T10:00:00Z", want: "2026-11-29T04:00:00Z", wantCause: CauseDaily},
		{name: "idle first", p: ResetPolicy{Mode: ResetDaily, AtHour: 4, IdleMinutes: 60}, updated: "2026-11-28T10:00:00Z", want: "2026-11-28T11:00:00Z", wantCause: CauseIdle},
		{name: "daily before idle", p: ResetPolicy{Mode: ResetDaily, AtHour: 4, IdleMinutes: 600}, updated: "2026-11-28T03:30:00Z", want: "2026-11-28T04:00:00Z", wantCause: CauseDaily},
		{name: "idle only", p: ResetPolicy{Mode: ResetIdle, IdleMinutes: 30}, updated: "2026-11-28T10:00:00Z", want: "2026-11-28T10:30:00Z", wantCause: CauseIdle},
		{name: "off", p: ResetPolicy{Mode: ResetOff}, updated: "2026-11-28T10:00:00Z", want: ""},
		{name: "in a time zone", lc: Lifecycle{Location: berlin}, p: ResetPolicy{Mode: ResetDaily, AtHour: 4}, updated: "2026-11-28T10:00:00Z", want: "2026-11-29T03:00:00Z", wantCause: CauseDaily},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			updated := at(tc.updated).UnixMilli()
			got, ok := tc.lc.NextReset(tc.p, updated)
			if tc.want == "" {
				if ok {
					t.Fatalf("NextReset = %s; want none", got)
				}
				return
			}
			if !ok || !got.Equal(at(tc.want)) {
				t.Fatalf("NextReset = %s, %v; want %s", got, ok, tc.want)
			}
			// It agrees with Stale: not stale just before, stale at it.
			if tc.lc.Stale(tc.p, updated, got.Add(-time.Millisecond)) || !tc.lc.Stale(tc.p, updated, got) {
				t.Errorf("Stale disagrees around %s", got)
			}
			if c := tc.lc.StaleCause(tc.p, updated, got.Add(time.Millisecond)); c != tc.wantCause {
				t.Errorf("StaleCause = %q; want %q", c, tc.wantCause)
			}
			if c := tc.lc.StaleCause(tc.p, updated, got.Add(-time.Millisecond)); c != "" {
				t.Errorf("StaleCause before the reset = %q; want none", c)
			}
		})
	}
}
