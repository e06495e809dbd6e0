package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/model"
)

// TestModelCost: models.providers.<provider>.models[].cost prices a model
// (provider and id matched case-insensitively); a model without a cost,
// or not listed, has none.
func TestModelCost(t *testing.T) {
	const doc = `{models: {providers: {OpenAI: {models: [
		{id: "gpt-5.2", cost: {input: 1.25, output: 10}},
		{id: "gpt-free"},
	]}}}}`
	cfg, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		ref    model.Ref
		want   ModelCost
		wantOK bool
	}{
		{"priced", model.Ref{Provider: "openai", Name: "gpt-5.2"}, ModelCost{Input: 1.25, Output: 10}, true},
		{"id in another case", model.Ref{Provider: "openai", Name: "GPT-5.2"}, ModelCost{Input: 1.25, Output: 10}, true},
		{"listed without a cost", model.Ref{Provider: "openai", Name: "gpt-free"}, ModelCost{}, false},
		{"not listed", model.Ref{Provider: "openai", Name: "gpt-4"}, ModelCost{}, false},
		{"unknown provider", model.Ref{Provider: "anthropic", Name: "gpt-5.2"}, ModelCost{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := cfg.ModelCost(tc.ref)
			if diff := cmp.Diff(tc.want, got); diff != "" || ok != tc.wantOK {
				t.Errorf("ModelCost(%s) = %+v, %v; want ok %v (-want +got):\n%s", tc.ref, got, ok, tc.wantOK, diff)
			}
		})
	}
}

// TestModelCostErrors: a price must be a number >= 0; a model needs an id.
func TestModelCostErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"negative", `{models: {providers: {openai: {models: [{id: "m", cost: {input: -1}}]}}}}`,
			"models.providers.openai.models[0].cost.input: must be a number >= 0 (USD per million tokens), got -1"},
		{"a string", `{models: {providers: {openai: {models: [{id: "m", cost: {output: "1"}}]}}}}`,
			"models.providers.openai.models[0].cost.output: must be a number"},
		{"no id", `{models: {providers: {openai: {models: [{cost: {output: 1}}]}}}}`,
			"models.providers.openai.models[0].id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse error = %v; want one containing %q", err, tc.want)
			}
		})
	}
}
