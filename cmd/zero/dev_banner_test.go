package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDevBanner: the ready banner is short and says where ZERO runs, the
// token, the control page and three next steps; the skipped resources are
// one line.
func TestDevBanner(t *testing.T) {
	base := devBanner{
		front: "http://127.0.0.1:3000", endpoint: "http://127.0.0.1:4566", emulatorStarted: true,
		telegramPath: "/webhooks/telegram", model: "zero/echo", gatewayToken: "gw-token-0123456789", hooksToken: "hooks-token-987",
		secret: "generated-secret", standIn: true, config: devConfigNotice,
		skipped: []string{"DeadLetterAlarm", "RunnerRole", "RunnerLogGroup"},
	}
	tests := []struct {
		name        string
		change      func(*devBanner)
		want        []string // each on some line, in order
		wantMissing []string
	}{
		{name: "defaults", change: func(*devBanner) {},
			want: []string{"ZERO is running locally (model zero/echo)", "gateway       http://127.0.0.1:3000/rpc  token gw-token-0123456789",
				"control page  http://127.0.0.1:3000/", "hooks-token-987", "(moto, started here", devConfigNotice, "local stand-in",
				"3 template resources are not emulated locally", "export ZERO_GATEWAY_URL=http://127.0.0.1:3000 ZERO_GATEWAY_TOKEN=gw-token-0123456789",
				"1. bin/zero chat", "2. curl -sS -X POST 'http://127.0.0.1:3000/webhooks/telegram'", "Secret-Token: generated-secret",
				"3. open http://127.0.0.1:3000/", devReadyLine}},
		{name: "secret from the environment is not printed", change: func(b *devBanner) { b.secret = "" },
			want: []string{"Secret-Token: $TELEGRAM_WEBHOOK_SECRET"}, wantMissing: []string{"generated-secret"}},
		{name: "full listing printed above: no summary", change: func(b *devBanner) { b.full = true },
			wantMissing: []string{"not emulated locally"}},
		{name: "a real bot and own emulator", change: func(b *devBanner) { b.standIn, b.emulatorStarted = false, false },
			wantMissing: []string{"stand-in", "started here"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := base
			tc.change(&b)
			var out bytes.Buffer
			b.print(&out)
			text := out.String()
			if n := strings.Count(text, "\n"); n > 20 {
				t.Errorf("banner is %d lines; want at most 20:\n%s", n, text)
			}
			rest := text
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("banner lacks %q (after the previous ones):\n%s", w, text)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tc.wantMissing {
				if strings.Contains(text, w) {
					t.Errorf("banner has %q:\n%s", w, text)
				}
			}
		})
	}
}

// TestStartupLog: while the stack starts only a few steps show (one line
// for all the builds); a failed start shows the rest; once ready, or with
// -full, every line shows.
func TestStartupLog(t *testing.T) {
	steps := []string{"starting moto on 127.0.0.1:4566", "skip RunnerRole (AWS::IAM::Role) is not emulated locally",
		"building Runner from functions/runner (the first build takes a while)", "building Cron from functions/cron (the first build takes a while)",
		"table SessionTable created: x", "IAM: AccessDenied on AWS: y"}
	clock := func() time.Time { return time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC) }
	lines := func(s string) []string {
		return strings.Split(strings.TrimSpace(strings.ReplaceAll(s, "10:00:00 zero dev: ", "")), "\n")
	}
	tests := []struct {
		name string
		full bool
		end  func(*startupLog)
		want []string
	}{
		{name: "quiet start", end: (*startupLog).started,
			want: []string{"starting moto on 127.0.0.1:4566", "building the functions (the first build takes a while)", "IAM: AccessDenied on AWS: y", "after"}},
		{name: "failed start shows what was kept", end: (*startupLog).failed,
			want: []string{"starting moto on 127.0.0.1:4566", "building the functions (the first build takes a while)", "IAM: AccessDenied on AWS: y",
				steps[1], steps[2], steps[3], steps[4], "after"}},
		{name: "full", full: true, end: (*startupLog).started, want: append(append([]string{}, steps...), "after")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			l := &startupLog{out: &out, full: tc.full, now: clock}
			for _, s := range steps {
				l.logf("%s", s)
			}
			tc.end(l)
			l.logf("after")
			if diff := cmp.Diff(tc.want, lines(out.String())); diff != "" {
				t.Errorf("shown (-want +got):\n%s", diff)
			}
		})
	}
}
