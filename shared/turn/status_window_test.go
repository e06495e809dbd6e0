package turn

import (
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// TestStatusWindow: the status report's window is the entry's
// ContextTokens, else the configured window, else the session model's
// (shared/status's TestContextLine covers the rest of the line).
func TestStatusWindow(t *testing.T) {
	parse := func(doc string) *config.Config {
		cfg, err := config.Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	p := &Processor{DefaultModel: model.Ref{Provider: "zero", Name: "echo"}}
	tests := []struct {
		name  string
		cfg   *config.Config
		entry session.Entry
		want  string
	}{
		{"nothing to estimate from", config.Default(), session.Entry{}, "context: ~0 / 128k (0%)"},
		{"the configured window", parse(`{agents: {defaults: {contextTokens: 1000}}}`), session.Entry{TotalTokens: 123}, "context: 123 / 1k (12%)"},
		{"the session model's window", config.Default(), session.Entry{TotalTokens: 50_000, ProviderOverride: "anthropic", ModelOverride: "claude-sonnet-4"}, "context: 50k / 200k (25%)"},
		{"the entry's window wins", parse(`{agents: {defaults: {contextTokens: 1000}}}`), session.Entry{TotalTokens: 500, ContextTokens: 2000}, "context: 500 / 2k (25%)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.statusOf(tt.cfg, "agent:main:main", tt.entry, nil, false); !strings.Contains(got, "\n"+tt.want+"\n") {
				t.Errorf("status report %q lacks the line %q", got, tt.want)
			}
		})
	}
}
