package anthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/model/modeltest"
)

// thinkingWire decodes the fields the Messages API checks for thinking.
type thinkingWire struct {
	MaxTokens int `json:"max_tokens"`
	Thinking  *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			Type string `json:"type"`
		} `json:"content"`
	} `json:"messages"`
}

// thinkingAPI is the Messages API's side of the thinking suite, with the
// API's own refusals of the thinking field.
var thinkingAPI = modeltest.ThinkingVendor{
	Vendor: messagesAPI,
	Read: func(body []byte) (modeltest.Reasoning, error) {
		var w thinkingWire
		if err := json.Unmarshal(body, &w); err != nil {
			return modeltest.Reasoning{}, err
		}
		if w.Thinking == nil {
			return modeltest.Reasoning{}, nil
		}
		if w.Thinking.Type != "enabled" {
			return modeltest.Reasoning{}, fmt.Errorf("thinking.type %q, want enabled", w.Thinking.Type)
		}
		return modeltest.Reasoning{Budget: w.Thinking.BudgetTokens, MaxTokens: w.MaxTokens}, nil
	},
	Refuse: refuseThinking,
}

// refuseThinking answers what the Messages API refuses in a thinking
// request: a type other than enabled or disabled, a budget below 1024 or
// not below max_tokens, and thinking on while the last assistant message
// has tool_use blocks not preceded by a thinking block.
func refuseThinking(_ string, body []byte) (modeltest.Reply, bool) {
	var w thinkingWire
	if err := json.Unmarshal(body, &w); err != nil || w.Thinking == nil || w.Thinking.Type == "disabled" {
		return modeltest.Reply{}, false
	}
	bad := func(msg string) (modeltest.Reply, bool) {
		r := apiError(http.StatusBadRequest, "invalid_request_error", msg)
		return modeltest.Reply{Status: r.status, Body: r.body}, true
	}
	switch {
	case w.Thinking.Type != "enabled":
		return bad("thinking: Input tag '" + w.Thinking.Type + "' found using 'type' does not match any of the expected tags: 'disabled', 'enabled'")
	case w.Thinking.BudgetTokens < 1024:
		return bad("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
	case w.Thinking.BudgetTokens >= w.MaxTokens:
		return bad("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size")
	}
	for i := len(w.Messages) - 1; i >= 0; i-- {
		m := w.Messages[i]
		if m.Role != "assistant" {
			continue
		}
		for _, b := range m.Content {
			if b.Type == "tool_use" && m.Content[0].Type != "thinking" && m.Content[0].Type != "redacted_thinking" {
				return bad(fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). To avoid this requirement, disable `thinking`.", i, m.Content[0].Type))
			}
		}
		break
	}
	return modeltest.Reply{}, false
}

// TestThinking: a session's thinking level reaches the Messages API as
// thinking {type: enabled, budget_tokens} with max_tokens above the
// budget; off sends nothing, and a call continuing a tool round is sent
// without thinking, which the API would otherwise refuse.
func TestThinking(t *testing.T) {
	newClient := func(t *testing.T, s modeltest.Server, retries int) model.Client {
		c, err := New(Config{APIKey: testKey, BaseURL: s.URL, HTTPClient: s.Client, MaxRetries: retries})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		return c
	}
	const m = "claude-sonnet-4-5"
	modeltest.TestThinking(t, thinkingAPI, []modeltest.ThinkingCase{
		{Name: "no level sends no thinking", Model: m},
		{Name: "off sends no thinking", Model: m, Level: model.ThinkingOff},
		{Name: "minimal is the API's smallest budget", Model: m, Level: model.ThinkingMinimal,
			Want: modeltest.Reasoning{Budget: 1024, MaxTokens: DefaultMaxTokens + 1024}},
		{Name: "low", Model: m, Level: model.ThinkingLow, Want: modeltest.Reasoning{Budget: 2048, MaxTokens: DefaultMaxTokens + 2048}},
		{Name: "medium keeps the request's own limit above the budget", Model: m, Level: model.ThinkingMedium, MaxTokens: 500,
			Want: modeltest.Reasoning{Budget: 8192, MaxTokens: 8692}},
		{Name: "high", Model: m, Level: model.ThinkingHigh, Want: modeltest.Reasoning{Budget: 16384, MaxTokens: DefaultMaxTokens + 16384}},
		{Name: "xhigh is high", Model: m, Level: model.ThinkingXHigh, Want: modeltest.Reasoning{Budget: 16384, MaxTokens: DefaultMaxTokens + 16384}},
		{Name: "a call continuing a tool round goes without thinking", Model: m, Level: model.ThinkingHigh, ToolRound: true},
		{Name: "a budget that would not fit a non-streamed call is shrunk to fit", Model: m, Level: model.ThinkingHigh, MaxTokens: 8192,
			Want: modeltest.Reasoning{Budget: 21333 - 8192, MaxTokens: 21333}},
		{Name: "no thinking when not even the least budget fits", Model: m, Level: model.ThinkingLow, MaxTokens: 21000},
	}, newClient)
}

// TestThinkingFakeRefuses: the fake refuses what the Messages API refuses,
// so the suite's passes mean the API would accept the requests.
func TestThinkingFakeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want bool
	}{
		{"no thinking", `{"max_tokens":10,"messages":[]}`, false},
		{"a budget below max_tokens", `{"max_tokens":5000,"thinking":{"type":"enabled","budget_tokens":1024}}`, false},
		{"a budget below 1024", `{"max_tokens":5000,"thinking":{"type":"enabled","budget_tokens":1000}}`, true},
		{"a budget not below max_tokens", `{"max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":4096}}`, true},
		{"an unknown type", `{"max_tokens":4096,"thinking":{"type":"on","budget_tokens":1024}}`, true},
		{"tool_use without its thinking block", `{"max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":1024},"messages":[
			{"role":"user","content":[{"type":"text"}]},{"role":"assistant","content":[{"type":"tool_use"}]},{"role":"user","content":[{"type":"tool_result"}]}]}`, true},
		{"tool_use after its thinking block", `{"max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":1024},"messages":[
			{"role":"user","content":[{"type":"text"}]},{"role":"assistant","content":[{"type":"thinking"},{"type":"tool_use"}]},{"role":"user","content":[{"type":"tool_result"}]}]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, refused := refuseThinking("", []byte(tc.body))
			if refused != tc.want {
				t.Fatalf("refused = %v, want %v", refused, tc.want)
			}
			if refused && r.Status != http.StatusBadRequest {
				t.Errorf("status %d, want 400", r.Status)
			}
		})
	}
}
