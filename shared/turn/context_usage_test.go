package turn

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
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
			if diff := cmp.Diff(tt.want, shortTokens(tt.n)); diff != "" {
				t.Errorf("shortTokens(%d) (-want +got):\n%s", tt.n, diff)
			}
		})
	}
}

// TestContextLine: used is the entry's TotalTokens, else an estimate from
// the context ("~"); the window is the entry's ContextTokens, else the
// configured window, else the session model's.
func TestContextLine(t *testing.T) {
	parse := func(doc string) *config.Config {
		cfg, err := config.Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	history := []model.Message{{Role: model.User, Content: string(make([]byte, 4000))}, {Role: model.Assistant, Content: string(make([]byte, 800))}}
	p := &Processor{DefaultModel: model.Ref{Provider: "zero", Name: "echo"}}
	tests := []struct {
		name    string
		cfg     *config.Config
		entry   session.Entry
		history []model.Message
		want    string
	}{
		{"reported tokens and window", config.Default(), session.Entry{TotalTokens: 12_300, ContextTokens: 128_000}, history, "context: 12.3k / 128k (10%)"},
		{"a full window", config.Default(), session.Entry{TotalTokens: 200_000, ContextTokens: 200_000}, nil, "context: 200k / 200k (100%)"},
		{"estimated from the context", config.Default(), session.Entry{ContextTokens: 128_000}, history, "context: ~1.2k / 128k (1%)"},
		{"nothing to estimate from", config.Default(), session.Entry{}, nil, "context: ~0 / 128k (0%)"},
		{"the configured window", parse(`{agents: {defaults: {contextTokens: 1000}}}`), session.Entry{TotalTokens: 123}, nil, "context: 123 / 1k (12%)"},
		{"the session model's window", config.Default(), session.Entry{TotalTokens: 50_000, ProviderOverride: "anthropic", ModelOverride: "claude-sonnet-4"}, nil, "context: 50k / 200k (25%)"},
		{"the entry's window wins", parse(`{agents: {defaults: {contextTokens: 1000}}}`), session.Entry{TotalTokens: 500, ContextTokens: 2000}, nil, "context: 500 / 2k (25%)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, p.contextLine(tt.cfg, tt.entry, tt.history)); diff != "" {
				t.Errorf("context line (-want +got):\n%s", diff)
			}
		})
	}
}
