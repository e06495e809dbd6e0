package status_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/status"
)

func TestShortTokens(t *testing.T) {
	tests := []struct {
		name string
		n    int64
		want string
	}{
		{"zero", 0, "0"},
		{"below a thousand", 999, "999"},
		{"a thousand", 1000, "1k"},
		{"one decimal", 12_345, "12.3k"},
		{"a whole number of thousands", 128_000, "128k"},
		{"rounds up", 12_350, "12.4k"},
		{"just below a million", 999_949, "999.9k"},
		{"rounds to a million", 999_950, "1M"},
		{"millions", 1_048_576, "1M"},
		{"a million and a half", 1_500_000, "1.5M"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, status.ShortTokens(tt.n)); diff != "" {
				t.Errorf("ShortTokens(%d) (-want +got):\n%s", tt.n, diff)
			}
		})
	}
}

// TestContextLine: used is the entry's TotalTokens, else an estimate from
// the context ("~"); the window is the entry's ContextTokens, else the
// session model's (the engine's choice: shared/turn's TestStatusWindow).
func TestContextLine(t *testing.T) {
	history := []model.Message{{Role: model.User, Content: string(make([]byte, 4000))}, {Role: model.Assistant, Content: string(make([]byte, 800))}}
	tests := []struct {
		name    string
		entry   session.Entry
		history []model.Message
		window  int64
		want    string
	}{
		{"reported tokens and window", session.Entry{TotalTokens: 12_300, ContextTokens: 128_000}, history, 1, "context: 12.3k / 128k (10%)"},
		{"a full window", session.Entry{TotalTokens: 200_000, ContextTokens: 200_000}, nil, 1, "context: 200k / 200k (100%)"},
		{"estimated from the context", session.Entry{ContextTokens: 128_000}, history, 1, "context: ~1.2k / 128k (1%)"},
		{"nothing to estimate from", session.Entry{}, nil, 128_000, "context: ~0 / 128k (0%)"},
		{"the session model's window", session.Entry{TotalTokens: 123}, nil, 1000, "context: 123 / 1k (12%)"},
		{"the entry's window wins", session.Entry{TotalTokens: 500, ContextTokens: 2000}, nil, 1000, "context: 500 / 2k (25%)"},
		{"no window", session.Entry{TotalTokens: 500}, nil, 0, "context: 500 / 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, status.ContextLine(tt.entry, tt.history, tt.window)); diff != "" {
				t.Errorf("context line (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReport: every line of the report, with the session's own settings
// and with the config's.
func TestReport(t *testing.T) {
	cfg, err := config.Parse([]byte(`{session: {sendPolicy: {default: "deny"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	s := status.Session{Key: "agent:main:main", Model: model.Ref{Provider: "zero", Name: "echo"}, Window: 1000,
		Entry: session.Entry{SessionID: "s1", TotalTokens: 250, ThinkingLevel: "low"}}
	want := []string{
		"ZERO is reachable.",
		"Session: " + session.Display("agent:main:main", cfg.Keys()),
		"Session id: s1",
		"Model: zero/echo (default)",
		"context: 250 / 1k (25%)",
		"Thinking: low · Verbose: off",
		"Sending: off (from config)",
	}
	if diff := cmp.Diff(want, strings.Split(status.Report(cfg, s), "\n")); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	s.Expired = true
	s.Entry.ModelOverride, s.Entry.VerboseLevel, s.Entry.SendPolicy = "echo", "on", session.SendAllow
	want[2], want[3], want[5], want[6] = "Session id: s1 (new: the previous session expired)", "Model: zero/echo (set for this session)",
		"Thinking: low · Verbose: on", "Sending: on (set for this session)"
	if diff := cmp.Diff(want, strings.Split(status.Report(cfg, s), "\n")); diff != "" {
		t.Errorf("report with the session's settings (-want +got):\n%s", diff)
	}
}
