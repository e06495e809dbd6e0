package turn_test

import (
	"strings"
	"testing"
	"time"
)

// TestResetNotice: the reply that starts a new session after a daily or
// idle reset opens with one line saying so; a kept session, a /new and a
// disabled notice get none, and the transcript never holds it.
func TestResetNotice(t *testing.T) {
	tests := []struct {
		name       string
		session    string        // session.* of zero.json
		advance    time.Duration // after the first message (sent at 12:00 UTC)
		second     string
		wantNotice string // the second reply's first line; "" none
	}{
		{name: "daily reset crossed", session: `{}`, advance: 17 * time.Hour, second: "hi",
			wantNotice: "(New session: the daily reset at 04:00 UTC started a fresh conversation; earlier messages are not in context.)"},
		{name: "daily reset in the gateway's zone", session: `{timeZone: "America/Sao_Paulo", reset: {atHour: 10}}`, advance: 2 * time.Hour, second: "hi",
			wantNotice: "(New session: the daily reset at 10:00 America/Sao_Paulo started a fresh conversation; earlier messages are not in context.)"},
		{name: "idle window passed", session: `{reset: {mode: "idle", idleMinutes: 30}}`, advance: 31 * time.Minute, second: "hi",
			wantNotice: "(New session: 30 minutes without a message reset the conversation; earlier messages are not in context.)"},
		{name: "same session", session: `{}`, advance: time.Hour, second: "hi"},
		{name: "a /new asked for it", session: `{}`, advance: 17 * time.Hour, second: "/new hi"},
		{name: "notice turned off", session: `{resetNotice: false}`, advance: 17 * time.Hour, second: "hi"},
		{name: "a command's reply gets it too", session: `{}`, advance: 17 * time.Hour, second: "/status",
			wantNotice: "(New session: the daily reset at 04:00 UTC started a fresh conversation; earlier messages are not in context.)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(`{session: ` + tc.session + `, channels: {telegram: {allowFrom: ["*"]}}}`)
			r.handle(t, msg(1, "first"))
			r.clock = r.clock.Add(tc.advance)
			r.handle(t, msg(2, tc.second))
			first, _, _ := strings.Cut(r.lastSent(t), "\n")
			isNotice := strings.HasPrefix(first, "(New session:")
			switch {
			case tc.wantNotice == "" && isNotice:
				t.Errorf("reply opens with a reset notice %q; want none", first)
			case tc.wantNotice != "" && first != tc.wantNotice:
				t.Errorf("reply's first line = %q; want %q", first, tc.wantNotice)
			}
			for _, l := range r.transcriptLines(t) {
				if l.Message != nil && len(l.Message.Content) > 0 && strings.Contains(l.Message.Content[0].Text, "New session:") {
					t.Errorf("the transcript holds the notice: %+v", l.Message)
				}
			}
		})
	}
}
