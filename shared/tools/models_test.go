package tools

import (
	"testing"

	"github.com/zero-gateway/zero/shared/model"
)

// TestModelReach: naming a model reaches nothing when the configuration
// allowlists it (an alias, a listed model in any case, a provider whose
// configured model that names, or one of the extra listed models), and
// ReachModels otherwise, as /new <model> decides for a non-owner.
func TestModelReach(t *testing.T) {
	cfg := cfgOf(t, `{agents: {defaults: {model: {primary: "openai/gpt-5.2", fallbacks: ["anthropic/claude-sonnet-4"]},
		models: {"openai/gpt-5-mini": {alias: "mini"}}}, list: [{id: "work", model: "bedrock/nova-pro"}]}}`)
	image := model.Ref{Provider: "openai", Name: "gpt-4o"}
	tests := []struct {
		input string
		want  Reach
	}{
		{"", 0},
		{"  ", 0},
		{"mini", 0},
		{"MINI", 0},
		{"openai/gpt-5.2", 0},
		{"OpenAI/GPT-5.2", 0},
		{"anthropic/claude-sonnet-4", 0},
		{"bedrock/nova-pro", 0},
		{"anthropic", 0},
		{"openai/gpt-4o", 0},
		{"openai/gpt-5-pro", ReachModels},
		{"anthropic/claude-opus-4", ReachModels},
		{"acme/anything", ReachModels},
		{"gpt-5-pro", ReachModels},
		{"opena", ReachModels},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			if got := ModelReach(cfg, tt.input, image); got != tt.want {
				t.Errorf("ModelReach(%q) = %v; want %v", tt.input, got, tt.want)
			}
		})
	}
	if got := ModelReach(nil, "openai/gpt-5-pro"); got != ReachModels {
		t.Errorf("ModelReach without a configuration = %v; want %v", got, ReachModels)
	}
}
