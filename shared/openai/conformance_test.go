package openai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/model/modeltest"
)

// TestConformance runs the model.Client suite on the Chat Completions wire.
func TestConformance(t *testing.T) {
	modeltest.TestClient(t, chatCompletions, func(t *testing.T, s modeltest.Server, retries int) model.Client {
		c, err := New(Config{APIKey: testKey, BaseURL: s.URL + "/v1", HTTPClient: s.Client, MaxRetries: retries})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		return c
	})
}

// chatCompletions is the Chat Completions side of the suite.
var chatCompletions = modeltest.Vendor{
	Answer: func(a modeltest.Answer) modeltest.Reply {
		msg := map[string]any{"role": "assistant", "content": a.Text, "refusal": nil}
		finish := "stop"
		if len(a.ToolCalls) > 0 {
			finish = "tool_calls"
			var calls []map[string]any
			for _, c := range a.ToolCalls {
				// Arguments travel as a string: invalid JSON is sent as is.
				calls = append(calls, map[string]any{"id": c.ID, "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
			}
			msg["tool_calls"] = calls
		}
		// prompt_tokens includes the cached tokens.
		usage := map[string]any{
			"prompt_tokens":         a.Usage.Input + a.Usage.CacheRead,
			"completion_tokens":     a.Usage.Output,
			"total_tokens":          a.Usage.Total,
			"prompt_tokens_details": map[string]any{"cached_tokens": a.Usage.CacheRead},
		}
		body, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": modeltest.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
			"usage":   usage,
		})
		return modeltest.Reply{Status: http.StatusOK, Body: string(body)}
	},
	Fail: func(f modeltest.Failure) modeltest.Reply {
		switch f {
		case modeltest.RateLimited:
			return wireError(http.StatusTooManyRequests, "Rate limit reached for requests", "requests", "rate_limit_exceeded")
		case modeltest.ServerError:
			return wireError(http.StatusInternalServerError, "The server had an error while processing your request.", "server_error", "")
		case modeltest.Unauthorized:
			return wireError(http.StatusUnauthorized, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
		case modeltest.ContextOverflow:
			return wireError(http.StatusBadRequest, "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
				"invalid_request_error", "context_length_exceeded")
		}
		panic("unknown failure " + f)
	},
	Read: func(body []byte) (modeltest.Sent, error) {
		var req struct {
			Tools []struct {
				Function struct{ Name string } `json:"function"`
			} `json:"tools"`
			Messages []struct {
				Role      string          `json:"role"`
				Content   json.RawMessage `json:"content"`
				ToolCalls []wireToolCall  `json:"tool_calls"`
				CallID    string          `json:"tool_call_id"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return modeltest.Sent{}, err
		}
		var sent modeltest.Sent
		for _, tool := range req.Tools {
			sent.Tools = append(sent.Tools, tool.Function.Name)
		}
		for i, m := range req.Messages {
			for _, c := range m.ToolCalls {
				sent.Calls = append(sent.Calls, model.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
			}
			if m.Role != "tool" {
				continue
			}
			var content string
			if err := json.Unmarshal(m.Content, &content); err != nil {
				return modeltest.Sent{}, fmt.Errorf("message %d: tool content is not a string: %s", i, m.Content)
			}
			// The wire has no error flag: a failure is told in the text.
			text, isError := strings.CutPrefix(content, toolErrorPrefix)
			sent.Results = append(sent.Results, modeltest.Result{CallID: m.CallID, Content: text, IsError: isError})
		}
		return sent, nil
	},
}

// wireError is an error answer in OpenAI's error format.
func wireError(status int, message, typ, code string) modeltest.Reply {
	r := apiError(status, message, typ, code)
	return modeltest.Reply{Status: r.status, Body: r.body}
}
