package model

import "testing"

// reporting is a client that knows one model's window.
type reporting struct{ Echo }

func (reporting) ContextWindow(name string) (int64, bool) { return 32_000, name == "custom" }

func TestContextWindow(t *testing.T) {
	tests := []struct {
		name   string
		client Client
		ref    string
		want   int64
	}{
		{"gpt-4o", nil, "openai/gpt-4o", 128_000},
		{"gpt-4o-mini", nil, "openai/gpt-4o-mini", 128_000},
		{"gpt-4.1 has a million", nil, "openai/gpt-4.1-mini", 1_047_576},
		{"the older gpt-4", nil, "openai/gpt-4-0613", 8_192},
		{"o3-mini", nil, "openai/o3-mini", 200_000},
		{"claude", nil, "anthropic/claude-sonnet-4-5", 200_000},
		{"claude on Bedrock", nil, "bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0", 200_000},
		{"claude through a cross-region profile", nil, "bedrock/us.anthropic.claude-sonnet-4-20250514-v1:0", 200_000},
		{"nova pro", nil, "bedrock/amazon.nova-pro-v1:0", 300_000},
		{"nova micro", nil, "bedrock/eu.amazon.nova-micro-v1:0", 128_000},
		{"a router's vendor prefix", nil, "openrouter/anthropic/claude-opus-4", 200_000},
		{"case-insensitive", nil, "openai/GPT-4o", 128_000},
		{"unknown: the stated default", nil, "ollama/qwen3", DefaultContextWindow},
		{"the echo model: the stated default", Echo{}, "zero/echo", DefaultContextWindow},
		{"the provider's reported window first", reporting{}, "openai/custom", 32_000},
		{"a provider that does not know the model: the table", reporting{}, "openai/gpt-4o", 128_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, err := ParseRef(tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			if got := ContextWindow(tt.client, ref); got != tt.want {
				t.Errorf("ContextWindow(%s) = %d; want %d", tt.ref, got, tt.want)
			}
		})
	}
}
