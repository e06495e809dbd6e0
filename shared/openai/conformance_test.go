package openai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
	Stream: streamAnswer,
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
			wire := modeltest.WireMessage{Role: m.Role}
			for _, c := range m.ToolCalls {
				sent.Calls = append(sent.Calls, model.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
				wire.Calls = append(wire.Calls, c.ID)
			}
			if m.Role != "tool" {
				// Content parts (images) carry no text the suite checks.
				_ = json.Unmarshal(m.Content, &wire.Text)
				sent.Wire = append(sent.Wire, wire)
				continue
			}
			wire.Results = []string{m.CallID}
			sent.Wire = append(sent.Wire, wire)
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
	Refuse: func(u modeltest.Unpaired) modeltest.Reply {
		if u.Orphan {
			return invalidMessages(u.Message,
				"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
		}
		return invalidMessages(u.After, "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. "+
			"The following tool_call_ids did not have response messages: "+strings.Join(u.IDs, ", "))
	},
}

// invalidMessages is OpenAI's 400 refusal of the messages array, its
// param naming the role of message index (code is null).
func invalidMessages(index int, message string) modeltest.Reply {
	type detail struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   string  `json:"param"`
		Code    *string `json:"code"`
	}
	body, _ := json.Marshal(struct {
		Error detail `json:"error"`
	}{detail{Message: message, Type: "invalid_request_error", Param: fmt.Sprintf("messages.[%d].role", index)}})
	return modeltest.Reply{Status: http.StatusBadRequest, Body: string(body)}
}

// wireError is an error answer in OpenAI's error format.
func wireError(status int, message, typ, code string) modeltest.Reply {
	r := apiError(status, message, typ, code)
	return modeltest.Reply{Status: r.status, Body: r.body}
}

// TestFakeRefusesBrokenPairing pins the conformance fake to the real API:
// a hand-written request whose tool pairing is broken gets Chat
// Completions' own 400, and a sound one is let through.
func TestFakeRefusesBrokenPairing(t *testing.T) {
	const (
		system  = `{"role":"system","content":"Be terse."}`
		user    = `{"role":"user","content":"Weather?"}`
		calls   = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_x","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}`
		answerX = `{"role":"tool","tool_call_id":"call_x","content":"18°C"}`
	)
	missing := `{"error":{"message":"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. ` +
		`The following tool_call_ids did not have response messages: call_x","type":"invalid_request_error","param":"messages.[3].role","code":null}}`
	tests := []struct {
		name     string
		messages []string
		want     refusal
	}{
		{"a sound pairing", []string{system, user, calls, answerX, user}, refusal{}},
		{"a call with no tool message", []string{system, user, calls, user}, refusal{true, http.StatusBadRequest, missing}},
		{"a tool message after a user message", []string{system, user, calls, user, answerX}, refusal{true, http.StatusBadRequest, missing}},
		{"a tool message that answers no call", []string{system, user, answerX}, refusal{true, http.StatusBadRequest,
			`{"error":{"message":"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",` +
				`"type":"invalid_request_error","param":"messages.[2].role","code":null}}`}},
		{"a second answer to a call", []string{system, user, calls, answerX, answerX}, refusal{true, http.StatusBadRequest,
			`{"error":{"message":"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",` +
				`"type":"invalid_request_error","param":"messages.[4].role","code":null}}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"model":"gpt-test","messages":[` + strings.Join(tc.messages, ",") + `]}`
			_, rep, refused, err := chatCompletions.Check([]byte(body))
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if diff := cmp.Diff(tc.want, refusal{refused, rep.Status, rep.Body}); diff != "" {
				t.Errorf("the fake's answer (-want +got):\n%s", diff)
			}
		})
	}
}

// refusal is how the conformance fake answered a request: Refused, with
// the HTTP status and body of its refusal.
type refusal struct {
	Refused bool
	Status  int
	Body    string
}

// streamAnswer writes a as Chat Completions streams it ("stream": true,
// stream_options.include_usage): server-sent chat.completion.chunk events,
// the text in several content deltas, each tool call's id and name in its
// first chunk and its arguments in pieces, the finish reason in the last
// choice chunk, the usage in a chunk without choices, then [DONE].
func streamAnswer(a modeltest.Answer) modeltest.Reply {
	chunk := func(choices []any, usage any) string {
		body, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000, "model": modeltest.Model,
			"choices": choices, "usage": usage,
		})
		return "data: " + string(body) + "\n\n"
	}
	choice := func(delta map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}}
	}
	parts := []string{chunk(choice(map[string]any{"role": "assistant", "content": ""}, nil), nil)}
	for _, p := range modeltest.Pieces(a.Text, 4) {
		parts = append(parts, chunk(choice(map[string]any{"content": p}, nil), nil))
	}
	finish := "stop"
	for i, c := range a.ToolCalls {
		finish = "tool_calls"
		first := map[string]any{"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}
		parts = append(parts, chunk(choice(map[string]any{"tool_calls": []any{first}}, nil), nil))
		for _, p := range modeltest.Pieces(c.Arguments, 2) {
			piece := map[string]any{"index": i, "function": map[string]any{"arguments": p}}
			parts = append(parts, chunk(choice(map[string]any{"tool_calls": []any{piece}}, nil), nil))
		}
	}
	parts = append(parts, chunk(choice(map[string]any{}, finish), nil))
	parts = append(parts, chunk([]any{}, map[string]any{
		"prompt_tokens":         a.Usage.Input + a.Usage.CacheRead,
		"completion_tokens":     a.Usage.Output,
		"total_tokens":          a.Usage.Total,
		"prompt_tokens_details": map[string]any{"cached_tokens": a.Usage.CacheRead},
	}))
	parts = append(parts, "data: [DONE]\n\n")
	return modeltest.Reply{Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}}, Parts: parts}
}
