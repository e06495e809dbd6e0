package status_test

import (
	"strings"
	"testing"
	"time"

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
	updated := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC).UnixMilli()
	s := status.Session{Key: "agent:main:main", Model: model.Ref{Provider: "zero", Name: "echo"}, Window: 1000,
		Entry: session.Entry{SessionID: "s1", TotalTokens: 250, ThinkingLevel: "low", UpdatedAt: updated, InfraCostUSD: 0.00003, LastInfraCostUSD: 0.00001}}
	want := []string{
		"ZERO is reachable.",
		"Session: " + session.Display("agent:main:main", cfg.Keys()),
		"Session id: s1",
		"Model: zero/echo (default)",
		"context: 250 / 1k (25%)",
		"Thinking: low · Verbose: off",
		"Model cost: n/a (no price for zero/echo in models.providers)",
		"Infra cost: ≈$0.000010 last turn · ≈$0.000030 in all (AWS calls and Lambda time, arm64 list prices)",
		"Next reset: 2026-11-29 04:00 UTC (daily at 04:00)",
		"Sending: off (from config)",
	}
	if diff := cmp.Diff(want, strings.Split(status.Report(cfg, s), "\n")); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	s.Expired = true
	s.Entry.ModelOverride, s.Entry.VerboseLevel, s.Entry.SendPolicy = "echo", "on", session.SendAllow
	want[2], want[3], want[5], want[9] = "Session id: s1 (new: the previous session expired)", "Model: zero/echo (set for this session)",
		"Thinking: low · Verbose: on", "Sending: on (set for this session)"
	if diff := cmp.Diff(want, strings.Split(status.Report(cfg, s), "\n")); diff != "" {
		t.Errorf("report with the session's settings (-want +got):\n%s", diff)
	}
}

func TestCostAndResetLines(t *testing.T) {
	const priced = `{models: {providers: {openai: {models: [{id: "gpt-5", cost: {input: 1.25, output: 10}}]}}}`
	updated := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC).UnixMilli()
	tests := []struct {
		name string
		doc  string
		e    session.Entry
		want []string
	}{
		{name: "priced model", doc: priced + `}`,
			e: session.Entry{Model: "gpt-5", ModelProvider: "openai", InputTokens: 1_000_000, OutputTokens: 100_000, LastInputTokens: 2000, LastOutputTokens: 100,
				InfraCostUSD: 0.0002, LastInfraCostUSD: 0.00002, UpdatedAt: updated},
			want: []string{"Model cost: $0.0035 last turn · $2.2500 in all (openai/gpt-5 prices)",
				"Infra cost: ≈$0.000020 last turn · ≈$0.00020 in all (AWS calls and Lambda time, arm64 list prices)",
				"Next reset: 2026-11-29 04:00 UTC (daily at 04:00)"}},
		{name: "idle reset in a time zone", doc: `{session: {timeZone: "America/Sao_Paulo", reset: {mode: "idle", idleMinutes: 30}}}`,
			e: session.Entry{UpdatedAt: updated},
			want: []string{"Model cost: n/a (no price for zero/echo in models.providers)",
				"Infra cost: ≈$0 last turn · ≈$0 in all (AWS calls and Lambda time, arm64 list prices)",
				"Next reset: 2026-11-28 07:30 -03 (idle 30 min)"}},
		{name: "daily or idle", doc: `{session: {reset: {atHour: 5, idleMinutes: 60}}}`, e: session.Entry{UpdatedAt: updated},
			want: []string{"Model cost: n/a (no price for zero/echo in models.providers)",
				"Infra cost: ≈$0 last turn · ≈$0 in all (AWS calls and Lambda time, arm64 list prices)",
				"Next reset: 2026-11-28 11:00 UTC (daily at 05:00 or idle 60 min)"}},
		{name: "never", doc: `{session: {reset: {mode: "off"}}}`, e: session.Entry{UpdatedAt: updated},
			want: []string{"Model cost: n/a (no price for zero/echo in models.providers)",
				"Infra cost: ≈$0 last turn · ≈$0 in all (AWS calls and Lambda time, arm64 list prices)",
				"Next reset: never (reset mode off)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			got := append(status.CostLines(cfg, tc.e, model.Ref{Provider: "zero", Name: "echo"}), status.ResetLine(cfg, tc.e))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}
