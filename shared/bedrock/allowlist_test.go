package bedrock

import (
	"context"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// TestAllowlisted holds the runner to the role the template gives it:
// only the listed models, directly or through a cross-region inference
// profile.
func TestAllowlisted(t *testing.T) {
	listed := []string{"anthropic.claude-sonnet-4-20250514-v1:0", "amazon.nova-pro-v1:0"}
	tests := []struct {
		name  string
		ids   []string
		model string
		want  bool
	}{
		{"foundation model", listed, "anthropic.claude-sonnet-4-20250514-v1:0", true},
		{"us profile", listed, "us.anthropic.claude-sonnet-4-20250514-v1:0", true},
		{"global profile", listed, "global.anthropic.claude-sonnet-4-20250514-v1:0", true},
		{"second model", listed, "amazon.nova-pro-v1:0", true},
		{"foundation model ARN", listed, "arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-pro-v1:0", true},
		{"profile ARN", listed, "arn:aws:bedrock:us-east-1:123456789012:inference-profile/eu.amazon.nova-pro-v1:0", true},
		{"model not listed", listed, "anthropic.claude-opus-4-20250514-v1:0", false},
		{"profile of a model not listed", listed, "us.anthropic.claude-opus-4-20250514-v1:0", false},
		{"not one geography segment", listed, "x.y.anthropic.claude-sonnet-4-20250514-v1:0", false},
		{"empty geography", listed, ".anthropic.claude-sonnet-4-20250514-v1:0", false},
		{"a profile id is no foundation model", listed, "arn:aws:bedrock:us-east-1::foundation-model/us.amazon.nova-pro-v1:0", false},
		{"application profile", listed, "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/amazon.nova-pro-v1:0", false},
		{"provisioned model", listed, "arn:aws:bedrock:us-east-1:123456789012:provisioned-model/abc", false},
		{"star allows any", []string{"*"}, "meta.llama3-3-70b-instruct-v1:0", true},
		{"empty list allows none", nil, "amazon.nova-pro-v1:0", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewAllowlisted(nil, tt.ids).Allows(tt.model); got != tt.want {
				t.Errorf("Allows(%q) = %v, want %v", tt.model, got, tt.want)
			}
		})
	}
}

// TestAllowlistedRefuses: a model outside the list is refused before any
// call (the client is nil: a call would panic) with a notice that is
// never retried.
func TestAllowlistedRefuses(t *testing.T) {
	a := NewAllowlisted(nil, []string{"amazon.nova-pro-v1:0"})
	_, err := a.Complete(context.Background(), model.Request{Model: "anthropic.claude-opus-4-20250514-v1:0"})
	if !fault.Is(err, fault.Unauthorized) || fault.Retryable(err) || !strings.Contains(fault.Message(err), "BedrockModels") {
		t.Fatalf("Complete(model outside the list) = %v; want an Unauthorized notice naming BedrockModels", err)
	}
}
