package tool

import (
	"testing"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/model"
)

func TestImageAvailable(t *testing.T) {
	parse := func(doc string) *config.Config {
		cfg, err := config.Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	echo := model.Ref{Provider: "zero", Name: "echo"}
	tests := []struct {
		name string
		cfg  *config.Config
		ref  model.Ref
		want bool
	}{
		{"no image model, vision run model", nil, model.Ref{Provider: "openai", Name: "gpt-4o"}, true},
		{"no image model, echo", nil, echo, false},
		{"image model set", parse(`{agents: {defaults: {imageModel: "anthropic/claude-sonnet-4-5"}}}`), echo, true},
		{"only a bedrock image model", parse(`{agents: {defaults: {imageModel: "bedrock/amazon.nova-pro-v1:0"}}}`), model.Ref{Provider: "openai", Name: "gpt-4o"}, false},
		{"bedrock primary, openai fallback", parse(`{agents: {defaults: {imageModel: {primary: "bedrock/x", fallbacks: ["openai/gpt-4o"]}}}}`), echo, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ImageAvailable(tt.cfg, tt.ref); got != tt.want {
				t.Errorf("ImageAvailable = %v; want %v", got, tt.want)
			}
		})
	}
}
