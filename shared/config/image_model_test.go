package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/model"
)

// TestImageModel: agents.defaults.imageModel takes both model forms and
// is unset by default.
func TestImageModel(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want ModelChoice
	}{
		{"unset", `{}`, ModelChoice{}},
		{"string", `{agents: {defaults: {imageModel: "openai/gpt-4o"}}}`, ModelChoice{Primary: model.Ref{Provider: "openai", Name: "gpt-4o"}}},
		{"object", `{agents: {defaults: {imageModel: {primary: "anthropic/claude-sonnet-4-5", fallbacks: ["openai/gpt-4o"]}}}}`,
			ModelChoice{Primary: model.Ref{Provider: "anthropic", Name: "claude-sonnet-4-5"}, Fallbacks: []model.Ref{{Provider: "openai", Name: "gpt-4o"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, cfg.Agents.Defaults.ImageModel); diff != "" {
				t.Errorf("imageModel (-want +got):\n%s", diff)
			}
		})
	}
}
