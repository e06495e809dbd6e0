package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// TestBedrockModelsAllowList holds the runner to the role the template
// gives it: only the models of ZERO_BEDROCK_MODELS (the stack's
// BedrockModels), directly or through a cross-region inference profile.
func TestBedrockModelsAllowList(t *testing.T) {
	b := bedrockModels{ids: []string{"anthropic.claude-sonnet-4-20250514-v1:0", "amazon.nova-pro-v1:0"}}
	for name, want := range map[string]bool{
		"anthropic.claude-sonnet-4-20250514-v1:0":                                                   true,
		"us.anthropic.claude-sonnet-4-20250514-v1:0":                                                true,
		"global.anthropic.claude-sonnet-4-20250514-v1:0":                                            true,
		"amazon.nova-pro-v1:0":                                                                      true,
		"arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-pro-v1:0":                          true,
		"arn:aws:bedrock:us-east-1:123456789012:inference-profile/eu.amazon.nova-pro-v1:0":          true,
		"anthropic.claude-opus-4-20250514-v1:0":                                                     false,
		"us.anthropic.claude-opus-4-20250514-v1:0":                                                  false,
		"x.y.anthropic.claude-sonnet-4-20250514-v1:0":                                               false, // not one geography segment
		".anthropic.claude-sonnet-4-20250514-v1:0":                                                  false,
		"arn:aws:bedrock:us-east-1::foundation-model/us.amazon.nova-pro-v1:0":                       false, // a profile id is no foundation model
		"arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/amazon.nova-pro-v1:0": false,
		"arn:aws:bedrock:us-east-1:123456789012:provisioned-model/abc":                              false,
	} {
		if got := b.allows(name); got != want {
			t.Errorf("allows(%q) = %v, want %v", name, got, want)
		}
	}
	if !(bedrockModels{ids: []string{"*"}}).allows("meta.llama3-3-70b-instruct-v1:0") {
		t.Error(`"*" should allow any model`)
	}
	if (bedrockModels{}).allows("amazon.nova-pro-v1:0") {
		t.Error("an empty list should allow no model")
	}

	// A model outside the list is refused before any call (the client is
	// nil: a call would panic) with a notice that is never retried.
	_, err := b.Complete(context.Background(), model.Request{Model: "anthropic.claude-opus-4-20250514-v1:0"})
	if !fault.Is(err, fault.Unauthorized) || fault.Retryable(err) || !strings.Contains(fault.Message(err), "BedrockModels") {
		t.Fatalf("Complete(model outside the list) = %v; want an Unauthorized notice naming BedrockModels", err)
	}
}

// TestAddBedrock: the provider exists only when the list names a model,
// and a Bedrock default model must be on it.
func TestAddBedrock(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	tests := []struct {
		name, list, def string
		provider        bool
		wantErr         string
	}{
		{"empty list: no provider", "", "zero/echo", false, ""},
		{"empty list, Bedrock default", "", "bedrock/amazon.nova-pro-v1:0", false, "ZERO_BEDROCK_MODELS"},
		{"listed", "amazon.nova-pro-v1:0, anthropic.claude-sonnet-4-20250514-v1:0", "bedrock/us.amazon.nova-pro-v1:0", true, ""},
		{"default not listed", "amazon.nova-pro-v1:0", "bedrock/amazon.nova-lite-v1:0", true, "not among ZERO_BEDROCK_MODELS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ZERO_BEDROCK_MODELS", tt.list)
			def, err := model.ParseRef(tt.def)
			if err != nil {
				t.Fatal(err)
			}
			models := map[string]model.Client{}
			err = addBedrock(models, def, nil, log)
			if _, ok := models["bedrock"]; ok != tt.provider {
				t.Errorf("bedrock provider present = %v, want %v", ok, tt.provider)
			}
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("addBedrock = %v, want error %q", err, tt.wantErr)
			}
		})
	}
}
