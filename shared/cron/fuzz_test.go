package cron

import (
	"testing"
	"time"
)

// FuzzCronExpression: no expression, however malformed, crashes the
// parser or the next-fire search; an accepted one translates to
// Scheduler's six fields and its next fire is after the time asked.
func FuzzCronExpression(f *testing.F) {
	for _, s := range []string{"0 9 * * 1-5", "*/15 * * * *", "0 0 1 * ?", "0 12 ? * MON-FRI *", "0 0 L * ?", "5 4 * * sun", "0 0 29 2 *", "* * * * * *"} {
		f.Add(s)
	}
	after := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, expr string) {
		c, err := parseCron(expr)
		if err != nil {
			return
		}
		if c.aws == "" {
			t.Fatalf("parseCron(%q) accepted it with no Scheduler expression", expr)
		}
		next, ok, err := NextFire("cron("+expr+")", "UTC", nil, after, after)
		if err == nil && ok && !next.After(after) {
			t.Fatalf("next fire of %q = %s, not after %s", expr, next, after)
		}
	})
}
