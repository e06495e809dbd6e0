package bedrock

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/model/modeltest"
)

// thinkingWire decodes the fields Converse checks for an Anthropic
// model's thinking.
type thinkingWire struct {
	InferenceConfig *struct {
		MaxTokens int `json:"maxTokens"`
	} `json:"inferenceConfig"`
	AdditionalModelRequestFields map[string]json.RawMessage `json:"additionalModelRequestFields"`
	Messages                     []struct {
		Role    string                       `json:"role"`
		Content []map[string]json.RawMessage `json:"content"`
	} `json:"messages"`
}

type thinkingField struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

// converseThinking is Converse's side of the thinking suite.
var converseThinking = modeltest.ThinkingVendor{
	Vendor: converseAPI,
	Read: func(body []byte) (modeltest.Reasoning, error) {
		var w thinkingWire
		if err := json.Unmarshal(body, &w); err != nil {
			return modeltest.Reasoning{}, err
		}
		raw, ok := w.AdditionalModelRequestFields["thinking"]
		if !ok {
			return modeltest.Reasoning{}, nil
		}
		var f thinkingField
		if err := json.Unmarshal(raw, &f); err != nil {
			return modeltest.Reasoning{}, err
		}
		r := modeltest.Reasoning{Budget: f.BudgetTokens}
		if w.InferenceConfig != nil {
			r.MaxTokens = w.InferenceConfig.MaxTokens
		}
		return r, nil
	},
	Refuse: refuseConverseThinking,
}

// refuseConverseThinking answers what Bedrock refuses: any additional
// field for a model other than Anthropic's (the model's own "extraneous
// key"), and for Anthropic's models what the Messages API refuses (a
// budget below 1024 or not below maxTokens, and thinking while the last
// assistant message's toolUse is not preceded by a reasoning block).
func refuseConverseThinking(path string, body []byte) (modeltest.Reply, bool) {
	var w thinkingWire
	if err := json.Unmarshal(body, &w); err != nil || len(w.AdditionalModelRequestFields) == 0 {
		return modeltest.Reply{}, false
	}
	bad := func(msg string) (modeltest.Reply, bool) {
		r := awsError(http.StatusBadRequest, "ValidationException", msg)
		h := http.Header{}
		for k, v := range r.header {
			h.Set(k, v)
		}
		return modeltest.Reply{Status: r.status, Header: h, Body: r.body}, true
	}
	modelID, _ := url.PathUnescape(strings.TrimSuffix(strings.TrimPrefix(path, "/model/"), "/converse"))
	raw, ok := w.AdditionalModelRequestFields["thinking"]
	if !strings.Contains(modelID, "anthropic.claude") || !ok || len(w.AdditionalModelRequestFields) > 1 {
		return bad("The model returned the following errors: Malformed input request: extraneous key [thinking] is not permitted, please reformat your input and try again.")
	}
	var f thinkingField
	_ = json.Unmarshal(raw, &f)
	maxTokens := 0
	if w.InferenceConfig != nil {
		maxTokens = w.InferenceConfig.MaxTokens
	}
	switch {
	case f.Type != "enabled":
		return bad("The model returned the following errors: thinking.type: Field required")
	case f.BudgetTokens < 1024:
		return bad("The model returned the following errors: thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
	case maxTokens <= f.BudgetTokens:
		return bad("The model returned the following errors: `max_tokens` must be greater than `thinking.budget_tokens`.")
	}
	for i := len(w.Messages) - 1; i >= 0; i-- {
		m := w.Messages[i]
		if m.Role != "assistant" {
			continue
		}
		for _, b := range m.Content {
			if _, isTool := b["toolUse"]; isTool {
				if _, reasoned := m.Content[0]["reasoningContent"]; !reasoned {
					return bad("The model returned the following errors: messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.")
				}
			}
		}
		break
	}
	return modeltest.Reply{}, false
}

// TestThinking: a thinking level reaches an Anthropic model on Bedrock as
// additionalModelRequestFields.thinking with maxTokens above the budget;
// other models, off, and a call continuing a tool round get no field.
func TestThinking(t *testing.T) {
	newClient := func(t *testing.T, s modeltest.Server, retries int) model.Client {
		return New(bedrockruntime.New(newRuntime(s.URL, s.Client).Options(), func(o *bedrockruntime.Options) {
			o.RetryMaxAttempts = 1 + retries
		}))
	}
	const claude = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	modeltest.TestThinking(t, converseThinking, []modeltest.ThinkingCase{
		{Name: "off sends nothing", Model: claude, Level: model.ThinkingOff},
		{Name: "low", Model: claude, Level: model.ThinkingLow, Want: modeltest.Reasoning{Budget: 2048, MaxTokens: defaultThinkingMaxTokens + 2048}},
		{Name: "high with the request's limit", Model: claude, Level: model.ThinkingHigh, MaxTokens: 1000,
			Want: modeltest.Reasoning{Budget: 16384, MaxTokens: 17384}},
		{Name: "a call continuing a tool round goes without thinking", Model: claude, Level: model.ThinkingHigh, ToolRound: true},
		{Name: "a model that is not Anthropic's gets none", Model: "amazon.nova-pro-v1:0", Level: model.ThinkingHigh},
	}, newClient)
}

// TestThinkingFakeRefuses: the fake refuses what Bedrock refuses.
func TestThinkingFakeRefuses(t *testing.T) {
	const claude = "/model/anthropic.claude-sonnet-4/converse"
	for _, tc := range []struct {
		name, path, body string
		want             bool
	}{
		{"no fields", claude, `{}`, false},
		{"thinking for Claude", claude, `{"inferenceConfig":{"maxTokens":5000},"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":1024}}}`, false},
		{"thinking for Nova", "/model/amazon.nova-pro-v1:0/converse", `{"inferenceConfig":{"maxTokens":5000},"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":1024}}}`, true},
		{"no maxTokens", claude, `{"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":1024}}}`, true},
		{"toolUse without reasoning", claude, `{"inferenceConfig":{"maxTokens":5000},"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":1024}},
			"messages":[{"role":"user","content":[{"text":"q"}]},{"role":"assistant","content":[{"toolUse":{}}]},{"role":"user","content":[{"toolResult":{}}]}]}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, refused := refuseConverseThinking(tc.path, []byte(tc.body)); refused != tc.want {
				t.Errorf("refused = %v, want %v", refused, tc.want)
			}
		})
	}
}
