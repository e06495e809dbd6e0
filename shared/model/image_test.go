package model

import "testing"

func TestAcceptsImages(t *testing.T) {
	tests := []struct {
		name string
		ref  Ref
		want bool
	}{
		{"gpt-4o", Ref{"openai", "gpt-4o-mini"}, true},
		{"gpt-5", Ref{"openai", "gpt-5.2"}, true},
		{"gpt-3.5 has no vision", Ref{"openai", "gpt-3.5-turbo"}, false},
		{"router vendor prefix", Ref{"openai", "anthropic/claude-sonnet-4-5"}, true},
		{"local vision model", Ref{"openai", "qwen2.5-vl:7b"}, true},
		{"unknown local model", Ref{"openai", "llama3:8b"}, false},
		{"claude", Ref{"anthropic", "claude-sonnet-4-5"}, true},
		{"bedrock adapter sends no images", Ref{"bedrock", "anthropic.claude-3-5-sonnet"}, false},
		{"echo", Ref{"zero", "echo"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AcceptsImages(tt.ref); got != tt.want {
				t.Errorf("AcceptsImages(%v) = %v; want %v", tt.ref, got, tt.want)
			}
		})
	}
}
