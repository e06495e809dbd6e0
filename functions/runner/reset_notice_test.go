package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestResetNoticeAcrossDailyReset runs the runner as main wires it, on the
// emulator's table and bucket, with a fake clock that crosses the default
// daily reset (04:00 UTC): the reply that starts the new session opens
// with the notice, the next one does not, and /status tells when the next
// reset is due and what the turns cost.
func TestResetNoticeAcrossDailyReset(t *testing.T) {
	app, tg := newRunnerApp(t, "zero/echo", nil, nil)
	clock := time.Date(2026, 11, 28, 3, 50, 0, 0, time.UTC)
	app.proc.Now = func() time.Time { return clock }
	deliver := sqsDeliverer(app.proc.Handle)
	first := message(t, "before the reset")
	send := func(n int, text string, at time.Time) string {
		t.Helper()
		clock = at
		m := first
		m.ID, m.Text = fmt.Sprintf("%s-%d", first.ID, n), text
		if res := deliver(m, 1); len(res.BatchItemFailures) > 0 {
			t.Fatalf("message %q failed: %+v", text, res.BatchItemFailures)
		}
		sent := tg.WaitSent(t, n+1)
		return sent[n].Text
	}
	const notice = "(New session: the daily reset at 04:00 UTC started a fresh conversation; earlier messages are not in context.)"
	steps := []struct {
		text       string
		at         string
		wantPrefix string
		wantNot    string
	}{
		{text: "before the reset", at: "03:50", wantPrefix: "echo: before the reset", wantNot: "New session"},
		{text: "after the reset", at: "04:10", wantPrefix: notice + "\necho: after the reset"},
		{text: "still today", at: "04:20", wantPrefix: "echo: still today", wantNot: "New session"},
		{text: "/status", at: "04:30", wantPrefix: "ZERO is reachable.", wantNot: "New session"},
	}
	var replies []string
	for i, s := range steps {
		at, _ := time.Parse("15:04", s.at)
		reply := send(i, s.text, time.Date(2026, 11, 28, at.Hour(), at.Minute(), 0, 0, time.UTC))
		replies = append(replies, reply)
		if !strings.HasPrefix(reply, s.wantPrefix) || (s.wantNot != "" && strings.Contains(reply, s.wantNot)) {
			t.Errorf("reply to %q at %s = %q; want it to start %q", s.text, s.at, reply, s.wantPrefix)
		}
	}
	status := replies[len(replies)-1]
	for _, want := range []string{"Next reset: 2026-11-29 04:00 UTC (daily at 04:00)", "Infra cost: ≈$0.0000", "Model cost: n/a"} {
		if !strings.Contains(status, want) {
			t.Errorf("/status lacks %q:\n%s", want, status)
		}
	}
}
