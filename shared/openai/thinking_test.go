package openai

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/model/modeltest"
)

// effortWire decodes the fields OpenAI checks for reasoning effort.
type effortWire struct {
	Model           string  `json:"model"`
	ReasoningEffort *string `json:"reasoning_effort"`
}

// reasoningAPI is OpenAI's side of the thinking suite, with its refusals
// of reasoning_effort.
var reasoningAPI = modeltest.ThinkingVendor{
	Vendor: chatCompletions,
	Read: func(body []byte) (modeltest.Reasoning, error) {
		var w effortWire
		if err := json.Unmarshal(body, &w); err != nil || w.ReasoningEffort == nil {
			return modeltest.Reasoning{}, err
		}
		return modeltest.Reasoning{Effort: *w.ReasoningEffort}, nil
	},
	Refuse: refuseEffort,
}

// refuseEffort answers what OpenAI refuses: reasoning_effort for a model
// that is not a reasoning model, a value it does not know, minimal on the
// o-series and xhigh on a model before gpt-5.2 (codex-max aside).
func refuseEffort(_ string, body []byte) (modeltest.Reply, bool) {
	var w effortWire
	if err := json.Unmarshal(body, &w); err != nil || w.ReasoningEffort == nil {
		return modeltest.Reply{}, false
	}
	bad := func(msg, code string) (modeltest.Reply, bool) {
		r := apiError(http.StatusBadRequest, msg, "invalid_request_error", code)
		return modeltest.Reply{Status: r.status, Body: r.body}, true
	}
	effort, name := *w.ReasoningEffort, w.Model
	gpt5 := strings.HasPrefix(name, "gpt-5")
	oSeries := len(name) >= 2 && name[0] == 'o' && name[1] >= '1' && name[1] <= '9'
	switch {
	case !gpt5 && !oSeries:
		return bad("Unsupported parameter: 'reasoning_effort' is not supported with this model.", "unsupported_parameter")
	case !slices.Contains([]string{"none", "minimal", "low", "medium", "high", "xhigh"}, effort):
		return bad("Invalid value: '"+effort+"'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', and 'xhigh'.", "invalid_value")
	case oSeries && (effort == "minimal" || effort == "none"),
		effort == "xhigh" && !strings.HasPrefix(name, "gpt-5.2") && !strings.Contains(name, "codex-max"):
		return bad("Unsupported value: 'reasoning_effort' does not support '"+effort+"' with this model. Supported values are: 'low', 'medium', and 'high'.", "unsupported_value")
	}
	return modeltest.Reply{}, false
}

// TestThinking: a thinking level reaches a reasoning model as
// reasoning_effort, mapped to what that model takes, and is left out for
// a model that takes none (which OpenAI would refuse).
func TestThinking(t *testing.T) {
	newClient := func(t *testing.T, s modeltest.Server, retries int) model.Client {
		c, err := New(Config{APIKey: testKey, BaseURL: s.URL + "/v1", HTTPClient: s.Client, MaxRetries: retries})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		return c
	}
	modeltest.TestThinking(t, reasoningAPI, []modeltest.ThinkingCase{
		{Name: "off sends no effort", Model: "gpt-5", Level: model.ThinkingOff},
		{Name: "no level sends no effort", Model: "o3"},
		{Name: "gpt-5 minimal", Model: "gpt-5", Level: model.ThinkingMinimal, Want: modeltest.Reasoning{Effort: "minimal"}},
		{Name: "o-series minimal is low", Model: "o4-mini", Level: model.ThinkingMinimal, Want: modeltest.Reasoning{Effort: "low"}},
		{Name: "low", Model: "o3", Level: model.ThinkingLow, Want: modeltest.Reasoning{Effort: "low"}},
		{Name: "medium", Model: "gpt-5-mini", Level: model.ThinkingMedium, Want: modeltest.Reasoning{Effort: "medium"}},
		{Name: "high", Model: "o1", Level: model.ThinkingHigh, Want: modeltest.Reasoning{Effort: "high"}},
		{Name: "xhigh is high", Model: "gpt-5", Level: model.ThinkingXHigh, Want: modeltest.Reasoning{Effort: "high"}},
		{Name: "a tool round keeps its effort", Model: "o3", Level: model.ThinkingHigh, ToolRound: true, Want: modeltest.Reasoning{Effort: "high"}},
		{Name: "a model that does not reason gets none", Model: "gpt-4o", Level: model.ThinkingHigh},
		{Name: "a model named like a reasoning model but not one gets none", Model: "omni-llama", Level: model.ThinkingHigh},
	}, newClient)
}

// TestThinkingFakeRefuses: the fake refuses what OpenAI refuses.
func TestThinkingFakeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       bool
	}{
		{"no effort", `{"model":"gpt-4o"}`, false},
		{"effort on a model that does not reason", `{"model":"gpt-4o","reasoning_effort":"low"}`, true},
		{"minimal on gpt-5", `{"model":"gpt-5","reasoning_effort":"minimal"}`, false},
		{"minimal on the o-series", `{"model":"o3","reasoning_effort":"minimal"}`, true},
		{"xhigh on gpt-5", `{"model":"gpt-5","reasoning_effort":"xhigh"}`, true},
		{"an unknown value", `{"model":"o3","reasoning_effort":"extreme"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, refused := refuseEffort("", []byte(tc.body)); refused != tc.want {
				t.Errorf("refused = %v, want %v", refused, tc.want)
			}
		})
	}
}
