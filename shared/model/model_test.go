package model

import (
	"context"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
)

func TestParseRef(t *testing.T) {
	tests := []struct {
		name, id string
		want     Ref
		invalid  bool
	}{
		{"provider and model", "openai/gpt-4o-mini", Ref{"openai", "gpt-4o-mini"}, false},
		{"provider is lower-cased", " OpenAI/GPT-4o ", Ref{"openai", "GPT-4o"}, false},
		{"model with slashes", "openrouter/meta/llama-3", Ref{"openrouter", "meta/llama-3"}, false},
		{"no provider", "gpt-4", Ref{}, true},
		{"empty model", "openai/", Ref{}, true},
		{"empty", "", Ref{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRef(tc.id)
			if tc.invalid {
				if !fault.Is(err, fault.Invalid) {
					t.Fatalf("ParseRef(%q) = %v, %v; want fault.Invalid", tc.id, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseRef(%q) = %v, %v; want %v", tc.id, got, err, tc.want)
			}
		})
	}
}

func TestEchoAnswersTheLastUserMessage(t *testing.T) {
	resp, err := Echo{}.Complete(context.Background(), Request{Messages: []Message{
		{Role: User, Content: "first"}, {Role: Assistant, Content: "echo: first"}, {Role: User, Content: "second one"},
	}})
	if err != nil || resp.Text != "echo: second one" || resp.StopReason != "stop" {
		t.Fatalf("Echo = %+v, %v", resp, err)
	}
	if resp.Usage.Input != 5 || resp.Usage.Output != 3 || resp.Usage.Total != 8 {
		t.Fatalf("usage = %+v; want words counted (5 in, 3 out)", resp.Usage)
	}
}
