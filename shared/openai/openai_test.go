package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

const testKey = "sk-test-0123456789abcdef"

// reply is one canned HTTP answer of the fake server.
type reply struct {
	status int
	body   string
	header map[string]string
}

// wireMessage, wireRequest and the types below decode what the adapter
// sends. Content is a string: a content-part array would fail to decode and
// fail the test.
type wireMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type wireRequest struct {
	Model               string        `json:"model"`
	Messages            []wireMessage `json:"messages"`
	Tools               []wireTool    `json:"tools"`
	MaxTokens           *int64        `json:"max_tokens"`
	MaxCompletionTokens *int64        `json:"max_completion_tokens"`
}

// received is one request as the fake server saw it.
type received struct {
	method, path string
	header       http.Header
	body         wireRequest
	raw          []byte // the body as sent, to check which fields are present
}

// messageFields is the raw JSON object of message i of a request, to check
// which fields the adapter sent at all.
func messageFields(t *testing.T, r received, i int) map[string]json.RawMessage {
	t.Helper()
	var body struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(r.raw, &body); err != nil || i >= len(body.Messages) {
		t.Fatalf("request has no message %d (err %v): %s", i, err, r.raw)
	}
	return body.Messages[i]
}

// fakeServer speaks the Chat Completions wire format under /v1. It answers
// with replies in order (the last one repeats) and records every request.
// When checks are set, check i runs on request i inside the handler, so a
// scripted conversation asserts each request as the server receives it.
type fakeServer struct {
	*httptest.Server
	t       *testing.T
	mu      sync.Mutex
	replies []reply
	checks  []func(t *testing.T, r wireRequest)
	got     []received
}

func newFakeServer(t *testing.T, replies ...reply) *fakeServer {
	t.Helper()
	f := &fakeServer{t: t, replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	raw, readErr := io.ReadAll(r.Body)
	var body wireRequest
	decodeErr := errors.Join(readErr, json.Unmarshal(raw, &body))

	f.mu.Lock()
	f.got = append(f.got, received{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), body: body, raw: raw})
	n := len(f.got)
	f.mu.Unlock()

	if decodeErr != nil {
		f.t.Errorf("request %d: body does not decode: %v\n%s", n, decodeErr, raw)
		http.Error(w, `{"error":{"message":"test server: bad JSON body","type":"invalid_request_error","code":null}}`, http.StatusBadRequest)
		return
	}
	if n <= len(f.checks) {
		f.checks[n-1](f.t, body)
	}
	rep := f.replies[min(n, len(f.replies))-1]
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	_, _ = w.Write([]byte(rep.body))
}

func (f *fakeServer) requests() []received {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]received(nil), f.got...)
}

// completion is a 200 Chat Completions answer with text content.
func completion(content, finish string, prompt, completionTokens, total int) reply {
	return answer(fmt.Sprintf(`{"role": "assistant", "content": %q, "refusal": null}`, content), finish,
		fmt.Sprintf(`{"prompt_tokens": %d, "completion_tokens": %d, "total_tokens": %d}`, prompt, completionTokens, total))
}

// answer is a 200 Chat Completions answer whose first choice has the message
// msg and the finish reason finish (omitted when empty); msg and usage are
// JSON objects as a server writes them.
func answer(msg, finish, usage string) reply {
	finishField := ""
	if finish != "" {
		finishField = fmt.Sprintf(`, "finish_reason": %q`, finish)
	}
	return reply{status: http.StatusOK, body: fmt.Sprintf(`{
  "id": "chatcmpl-123",
  "object": "chat.completion",
  "created": 1700000000,
  "model": "gpt-test",
  "choices": [{"index": 0, "message": %s, "logprobs": null%s}],
  "usage": %s
}`, msg, finishField, usage)}
}

// smallUsage is the usage of answers whose tokens do not matter.
const smallUsage = `{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}`

var smallUsageWant = model.Usage{Input: 1, Output: 1, Total: 2}

// apiError is an error answer in OpenAI's error format.
func apiError(status int, message, typ, code string) reply {
	return reply{status: status, body: fmt.Sprintf(`{"error":{"message":%q,"type":%q,"param":null,"code":%q}}`, message, typ, code)}
}

var history = model.Request{
	Model:  "gpt-test",
	System: "You are terse.",
	Messages: []model.Message{
		{Role: model.User, Content: "hi"},
		{Role: model.Assistant, Content: "hello"},
		{Role: model.User, Content: "what is 2+2?"},
	},
}

func TestComplete(t *testing.T) {
	tests := []struct {
		name       string
		maxRetries int
		req        model.Request
		replies    []reply
		want       model.Response
		wantCode   fault.Code // "" for success
		wantPrefix string     // the user message starts with it
		wantSubstr string     // the user message contains it
		// wantOverflow: errors.Is(err, model.ErrContextOverflow) must hold
		wantOverflow bool
		wantCalls    int
		check        func(t *testing.T, got []received)
	}{
		{
			name:      "system prompt and history in order",
			req:       history,
			replies:   []reply{completion("4", "stop", 20, 1, 21)},
			want:      model.Response{Text: "4", StopReason: "stop", Usage: model.Usage{Input: 20, Output: 1, Total: 21}},
			wantCalls: 1,
			check: func(t *testing.T, got []received) {
				r := got[0]
				if r.method != http.MethodPost || r.path != "/v1/chat/completions" {
					t.Errorf("request = %s %s, want POST /v1/chat/completions", r.method, r.path)
				}
				if a := r.header.Get("Authorization"); a != "Bearer "+testKey {
					t.Errorf("Authorization = %q, want Bearer <key>", a)
				}
				if r.body.Model != "gpt-test" {
					t.Errorf("model = %q, want gpt-test", r.body.Model)
				}
				want := []wireMessage{
					{Role: "system", Content: "You are terse."},
					{Role: "user", Content: "hi"},
					{Role: "assistant", Content: "hello"},
					{Role: "user", Content: "what is 2+2?"},
				}
				if diff := cmp.Diff(want, r.body.Messages); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:      "no system message without a system prompt",
			req:       model.Request{Model: "gpt-test", Messages: []model.Message{{Role: model.User, Content: "hi"}}},
			replies:   []reply{completion("hello", "stop", 1, 1, 2)},
			want:      model.Response{Text: "hello", StopReason: "stop", Usage: model.Usage{Input: 1, Output: 1, Total: 2}},
			wantCalls: 1,
			check: func(t *testing.T, got []received) {
				want := []wireMessage{{Role: "user", Content: "hi"}}
				if diff := cmp.Diff(want, got[0].body.Messages); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:      "total derived when the server omits it",
			req:       history,
			replies:   []reply{completion("ok", "stop", 5, 3, 0)},
			want:      model.Response{Text: "ok", StopReason: "stop", Usage: model.Usage{Input: 5, Output: 3, Total: 8}},
			wantCalls: 1,
		},
		{
			name:       "401 is unauthorized",
			req:        history,
			replies:    []reply{apiError(401, "Incorrect API key provided: "+testKey, "invalid_request_error", "invalid_api_key")},
			wantCode:   fault.Unauthorized,
			wantPrefix: "the model provider rejected the API key",
			wantCalls:  1,
		},
		{
			name:       "403 is unauthorized",
			req:        history,
			replies:    []reply{apiError(403, "Project does not have access", "invalid_request_error", "")},
			wantCode:   fault.Unauthorized,
			wantPrefix: "the model provider rejected the API key",
			wantCalls:  1,
		},
		{
			name:       "429 without retries is rate limited",
			maxRetries: 0,
			req:        history,
			replies:    []reply{rateLimited(), completion("late", "stop", 1, 1, 2)},
			wantCode:   fault.RateLimited,
			wantSubstr: "Rate limit reached",
			wantCalls:  1,
		},
		{
			name:       "429 then 200 with one retry succeeds",
			maxRetries: 1,
			req:        history,
			replies:    []reply{rateLimited(), completion("late", "stop", 1, 1, 2)},
			want:       model.Response{Text: "late", StopReason: "stop", Usage: model.Usage{Input: 1, Output: 1, Total: 2}},
			wantCalls:  2,
		},
		{
			name:       "429 insufficient_quota is rate limited with a quota message",
			req:        history,
			replies:    []reply{apiError(429, "You exceeded your current quota", "insufficient_quota", "insufficient_quota")},
			wantCode:   fault.RateLimited,
			wantPrefix: "the model provider's quota is exhausted",
			wantCalls:  1,
		},
		{
			name:       "500 is unavailable",
			req:        history,
			replies:    []reply{apiError(500, "The server had an error", "server_error", "")},
			wantCode:   fault.Unavailable,
			wantSubstr: "HTTP 500",
			wantCalls:  1,
		},
		{
			name:       "503 is unavailable",
			req:        history,
			replies:    []reply{{status: 503, body: "upstream down"}},
			wantCode:   fault.Unavailable,
			wantSubstr: "HTTP 503",
			wantCalls:  1,
		},
		{
			name:       "404 unknown model is invalid with the provider message",
			req:        history,
			replies:    []reply{apiError(404, "The model `gpt-nope` does not exist or you do not have access to it.", "invalid_request_error", "model_not_found")},
			wantCode:   fault.Invalid,
			wantSubstr: "The model `gpt-nope` does not exist",
			wantCalls:  1,
		},
		{
			name:       "422 is invalid",
			req:        history,
			replies:    []reply{apiError(422, "messages: field required", "invalid_request_error", "")},
			wantCode:   fault.Invalid,
			wantSubstr: "messages: field required",
			wantCalls:  1,
		},
		{
			name:         "400 context_length_exceeded is a context overflow",
			req:          history,
			replies:      []reply{apiError(400, "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", "invalid_request_error", "context_length_exceeded")},
			wantCode:     fault.Invalid,
			wantPrefix:   "context overflow:",
			wantSubstr:   "128000 tokens",
			wantOverflow: true,
			wantCalls:    1,
		},
		{
			name:         "400 overflow without a code (vLLM) is a context overflow",
			req:          history,
			replies:      []reply{apiError(400, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.", "BadRequestError", "")},
			wantCode:     fault.Invalid,
			wantPrefix:   "context overflow:",
			wantOverflow: true,
			wantCalls:    1,
		},
		{
			name:       "other 400 is invalid, not an overflow",
			req:        history,
			replies:    []reply{apiError(400, "Invalid value for 'temperature'", "invalid_request_error", "invalid_value")},
			wantCode:   fault.Invalid,
			wantPrefix: "the model provider rejected the request:",
			wantCalls:  1,
		},
		{
			name:       "provider message echoing the key is scrubbed",
			req:        history,
			replies:    []reply{apiError(400, "bad request from key "+testKey, "invalid_request_error", "")},
			wantCode:   fault.Invalid,
			wantSubstr: "[redacted]",
			wantCalls:  1,
		},
		{
			name: "empty choices is unavailable",
			req:  history,
			replies: []reply{{status: 200, body: `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-test","choices":[],
				"usage":{"prompt_tokens":3,"completion_tokens":0,"total_tokens":3}}`}},
			wantCode:   fault.Unavailable,
			wantSubstr: "no choices",
			wantCalls:  1,
		},
		{
			name:       "unknown role is invalid and sends nothing",
			req:        model.Request{Model: "gpt-test", Messages: []model.Message{{Role: "tool", Content: "x"}}},
			replies:    []reply{completion("never", "stop", 1, 1, 2)},
			wantCode:   fault.Invalid,
			wantSubstr: `unsupported role "tool"`,
			wantCalls:  0,
		},
		{
			name:       "empty model is invalid and sends nothing",
			req:        model.Request{Messages: []model.Message{{Role: model.User, Content: "hi"}}},
			replies:    []reply{completion("never", "stop", 1, 1, 2)},
			wantCode:   fault.Invalid,
			wantSubstr: "no model name",
			wantCalls:  0,
		},
		{
			name: "tools sent as functions",
			req: model.Request{
				Model:    "gpt-test",
				Messages: []model.Message{{Role: model.User, Content: "weather?"}},
				Tools: []model.ToolSpec{
					{Name: "get_weather", Description: "Current weather of a city.", Schema: json.RawMessage(weatherSchema)},
					{Name: "now"},
				},
			},
			replies:   []reply{completion("sunny", "stop", 1, 1, 2)},
			want:      model.Response{Text: "sunny", StopReason: model.StopEnd, Usage: smallUsageWant},
			wantCalls: 1,
			check: func(t *testing.T, got []received) {
				tools := got[0].body.Tools
				if len(tools) != 2 {
					t.Fatalf("tools = %+v, want 2", tools)
				}
				for _, tool := range tools {
					if tool.Type != "function" {
						t.Errorf("tool %q type = %q, want function", tool.Function.Name, tool.Type)
					}
				}
				w := tools[0].Function
				if w.Name != "get_weather" || w.Description != "Current weather of a city." || !sameJSON(t, w.Parameters, weatherSchema) {
					t.Errorf("tool 0 = %s %q %s, want get_weather with its description and schema", w.Name, w.Description, w.Parameters)
				}
				n := tools[1].Function
				if n.Name != "now" || !sameJSON(t, n.Parameters, `{"type":"object","properties":{}}`) {
					t.Errorf("tool 1 = %s %s, want now with an empty object schema", n.Name, n.Parameters)
				}
				if strings.Contains(string(got[0].raw), `"description":""`) {
					t.Errorf("an empty description was sent: %s", got[0].raw)
				}
			},
		},
		{
			name: "assistant tool calls and tool results in order",
			req: model.Request{
				Model: "gpt-test",
				Messages: []model.Message{
					{Role: model.User, Content: "weather in Paris and Rome?"},
					{Role: model.Assistant, Content: "Checking both.", ToolCalls: []model.ToolCall{
						{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Paris"}`},
						{ID: "call_b", Name: "get_weather", Arguments: `{"city":"Rome"}`},
					}},
					{Role: model.ToolResult, ToolCallID: "call_a", ToolName: "get_weather", Content: "18°C"},
					{Role: model.ToolResult, ToolCallID: "call_b", ToolName: "get_weather", Content: "unknown city", IsError: true},
				},
			},
			replies:   []reply{completion("Paris: 18°C.", "stop", 1, 1, 2)},
			want:      model.Response{Text: "Paris: 18°C.", StopReason: model.StopEnd, Usage: smallUsageWant},
			wantCalls: 1,
			check: func(t *testing.T, got []received) {
				want := []wireMessage{
					{Role: "user", Content: "weather in Paris and Rome?"},
					{Role: "assistant", Content: "Checking both.", ToolCalls: []wireToolCall{
						{ID: "call_a", Type: "function", Function: wireFunction{Name: "get_weather", Arguments: `{"city":"Paris"}`}},
						{ID: "call_b", Type: "function", Function: wireFunction{Name: "get_weather", Arguments: `{"city":"Rome"}`}},
					}},
					{Role: "tool", ToolCallID: "call_a", Content: "18°C"},
					{Role: "tool", ToolCallID: "call_b", Content: "Error: unknown city"},
				}
				if diff := cmp.Diff(want, got[0].body.Messages); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "assistant tool calls without text send no content",
			req: model.Request{
				Model: "gpt-test",
				Messages: []model.Message{
					{Role: model.User, Content: "time?"},
					{Role: model.Assistant, ToolCalls: []model.ToolCall{{ID: "call_1", Name: "now", Arguments: `{}`}}},
					{Role: model.ToolResult, ToolCallID: "call_1", ToolName: "now", Content: "12:00"},
				},
			},
			replies:   []reply{completion("noon", "stop", 1, 1, 2)},
			want:      model.Response{Text: "noon", StopReason: model.StopEnd, Usage: smallUsageWant},
			wantCalls: 1,
			check: func(t *testing.T, got []received) {
				if c, ok := messageFields(t, got[0], 1)["content"]; ok {
					t.Errorf("assistant tool-call message has content %s, want none", c)
				}
			},
		},
		{
			name: "invalid JSON arguments are sent verbatim",
			req: model.Request{
				Model: "gpt-test",
				Messages: []model.Message{
					{Role: model.User, Content: "weather?"},
					{Role: model.Assistant, ToolCalls: []model.ToolCall{
						{ID: "call_1", Name: "get_weather", Arguments: `{"city": "Par`},
						{ID: "call_2", Name: "get_weather", Arguments: ""},
					}},
					{Role: model.ToolResult, ToolCallID: "call_1", Content: "arguments are not valid JSON", IsError: true},
					{Role: model.ToolResult, ToolCallID: "call_2", Content: "arguments are not valid JSON", IsError: true},
				},
			},
			replies:   []reply{completion("sorry", "stop", 1, 1, 2)},
			want:      model.Response{Text: "sorry", StopReason: model.StopEnd, Usage: smallUsageWant},
			wantCalls: 1,
			check: func(t *testing.T, got []received) {
				calls := got[0].body.Messages[1].ToolCalls
				if len(calls) != 2 || calls[0].Function.Arguments != `{"city": "Par` || calls[1].Function.Arguments != "" {
					t.Errorf("tool calls = %+v, want the arguments verbatim", calls)
				}
			},
		},
		{
			name:      "max_tokens to an OpenAI-compatible server",
			req:       model.Request{Model: "llama3.2", Messages: []model.Message{{Role: model.User, Content: "hi"}}, MaxTokens: 256},
			replies:   []reply{completion("hi", "stop", 1, 1, 2)},
			want:      model.Response{Text: "hi", StopReason: model.StopEnd, Usage: smallUsageWant},
			wantCalls: 1,
			check: func(t *testing.T, got []received) {
				b := got[0].body
				if b.MaxTokens == nil || *b.MaxTokens != 256 || b.MaxCompletionTokens != nil {
					t.Errorf("body = %s, want max_tokens 256 and no max_completion_tokens", got[0].raw)
				}
			},
		},
		{
			name:      "no token limit when MaxTokens is 0",
			req:       history,
			replies:   []reply{completion("4", "stop", 1, 1, 2)},
			want:      model.Response{Text: "4", StopReason: model.StopEnd, Usage: smallUsageWant},
			wantCalls: 1,
			check: func(t *testing.T, got []received) {
				if b := got[0].body; b.MaxTokens != nil || b.MaxCompletionTokens != nil {
					t.Errorf("body = %s, want no token limit", got[0].raw)
				}
			},
		},
		{
			name: "tool result without a tool call id is invalid and sends nothing",
			req: model.Request{Model: "gpt-test", Messages: []model.Message{
				{Role: model.User, Content: "hi"},
				{Role: model.ToolResult, ToolName: "now", Content: "12:00"},
			}},
			replies:    []reply{completion("never", "stop", 1, 1, 2)},
			wantCode:   fault.Invalid,
			wantSubstr: "message 1: tool result for \"now\" has no tool call id",
			wantCalls:  0,
		},
		{
			name: "tool call without an id is invalid and sends nothing",
			req: model.Request{Model: "gpt-test", Messages: []model.Message{
				{Role: model.User, Content: "hi"},
				{Role: model.Assistant, ToolCalls: []model.ToolCall{{Name: "now", Arguments: "{}"}}},
			}},
			replies:    []reply{completion("never", "stop", 1, 1, 2)},
			wantCode:   fault.Invalid,
			wantSubstr: "message 1: tool call 0 (now) has no id",
			wantCalls:  0,
		},
		{
			name: "tool schema that is not an object is invalid and sends nothing",
			req: model.Request{Model: "gpt-test", Messages: []model.Message{{Role: model.User, Content: "hi"}},
				Tools: []model.ToolSpec{{Name: "bad", Schema: json.RawMessage(`["type"]`)}}},
			replies:    []reply{completion("never", "stop", 1, 1, 2)},
			wantCode:   fault.Invalid,
			wantSubstr: `tool "bad": schema is not a JSON object`,
			wantCalls:  0,
		},
		{
			name: "invalid JSON arguments are returned verbatim",
			req:  history,
			replies: []reply{answer(`{"role": "assistant", "content": null, "tool_calls": [
				{"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Par"}},
				{"id": "call_b", "type": "function", "function": {"name": "get_weather", "arguments": "city=Rome"}}]}`,
				"tool_calls", smallUsage)},
			want: model.Response{
				ToolCalls: []model.ToolCall{
					{ID: "call_a", Name: "get_weather", Arguments: `{"city": "Par`},
					{ID: "call_b", Name: "get_weather", Arguments: `city=Rome`},
				},
				StopReason: model.StopToolUse,
				Usage:      smallUsageWant,
			},
			wantCalls: 1,
		},
		{
			name: "arguments sent as an object are returned as its JSON text",
			req:  history,
			replies: []reply{answer(`{"role": "assistant", "content": "", "tool_calls": [
				{"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}`,
				"tool_calls", smallUsage)},
			want: model.Response{
				ToolCalls:  []model.ToolCall{{ID: "call_a", Name: "get_weather", Arguments: `{"city": "Paris"}`}},
				StopReason: model.StopToolUse,
				Usage:      smallUsageWant,
			},
			wantCalls: 1,
		},
		{
			name: "tool calls without ids get call_<index>",
			req:  history,
			replies: []reply{answer(`{"role": "assistant", "content": "", "tool_calls": [
				{"function": {"name": "now", "arguments": "{}"}},
				{"type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]}`,
				"tool_calls", smallUsage)},
			want: model.Response{
				ToolCalls: []model.ToolCall{
					{ID: "call_0", Name: "now", Arguments: `{}`},
					{ID: "call_1", Name: "get_weather", Arguments: `{}`},
				},
				StopReason: model.StopToolUse,
				Usage:      smallUsageWant,
			},
			wantCalls: 1,
		},
		{
			name: "text beside a tool call",
			req:  history,
			replies: []reply{answer(`{"role": "assistant", "content": "Let me check.", "tool_calls": [
				{"id": "call_a", "type": "function", "function": {"name": "now", "arguments": "{}"}}]}`,
				"tool_calls", smallUsage)},
			want: model.Response{
				Text:       "Let me check.",
				ToolCalls:  []model.ToolCall{{ID: "call_a", Name: "now", Arguments: `{}`}},
				StopReason: model.StopToolUse,
				Usage:      smallUsageWant,
			},
			wantCalls: 1,
		},
		{
			name:      "reasoning_content is thinking",
			req:       history,
			replies:   []reply{answer(`{"role": "assistant", "content": "4", "reasoning_content": "2+2 is 4."}`, "stop", smallUsage)},
			want:      model.Response{Text: "4", Thinking: "2+2 is 4.", StopReason: model.StopEnd, Usage: smallUsageWant},
			wantCalls: 1,
		},
		{
			name:      "reasoning is thinking",
			req:       history,
			replies:   []reply{answer(`{"role": "assistant", "content": "4", "reasoning": "Simple sum."}`, "stop", smallUsage)},
			want:      model.Response{Text: "4", Thinking: "Simple sum.", StopReason: model.StopEnd, Usage: smallUsageWant},
			wantCalls: 1,
		},
		{
			name:      "reasoning that is not a string is ignored",
			req:       history,
			replies:   []reply{answer(`{"role": "assistant", "content": "4", "reasoning": {"effort": "low"}}`, "stop", smallUsage)},
			want:      model.Response{Text: "4", StopReason: model.StopEnd, Usage: smallUsageWant},
			wantCalls: 1,
		},
		{
			name:         "400 exceeds the context window (newer OpenAI models) is a context overflow",
			req:          history,
			replies:      []reply{apiError(400, "Your input exceeds the context window of this model. Please adjust your input and try again.", "invalid_request_error", "")},
			wantCode:     fault.Invalid,
			wantPrefix:   "context overflow:",
			wantOverflow: true,
			wantCalls:    1,
		},
		{
			name: "400 exceed_context_size_error (llama.cpp) is a context overflow",
			req:  history,
			replies: []reply{{status: 400, body: `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it",
				"type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}`}},
			wantCode:     fault.Invalid,
			wantPrefix:   "context overflow:",
			wantOverflow: true,
			wantCalls:    1,
		},
		{
			name:         "400 longer than the maximum model length (vLLM) is a context overflow",
			req:          history,
			replies:      []reply{apiError(400, "The decoder prompt (length 5000) is longer than the maximum model length of 4096.", "BadRequestError", "")},
			wantCode:     fault.Invalid,
			wantPrefix:   "context overflow:",
			wantOverflow: true,
			wantCalls:    1,
		},
		{
			name:       "400 max_tokens too large is invalid, not an overflow",
			req:        history,
			replies:    []reply{apiError(400, "max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.", "invalid_request_error", "invalid_value")},
			wantCode:   fault.Invalid,
			wantPrefix: "the model provider rejected the request:",
			wantCalls:  1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, tc.replies...)
			c, err := New(Config{APIKey: testKey, BaseURL: srv.URL + "/v1", HTTPClient: srv.Client(), MaxRetries: tc.maxRetries})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			got, err := c.Complete(context.Background(), tc.req)

			if tc.wantCode == "" {
				if err != nil {
					t.Fatalf("Complete: %v", err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("response (-want +got):\n%s", diff)
				}
			} else {
				checkFault(t, err, tc.wantCode, tc.wantPrefix, tc.wantSubstr)
			}
			if got := errors.Is(err, model.ErrContextOverflow); got != tc.wantOverflow {
				t.Errorf("errors.Is(err, model.ErrContextOverflow) = %v, want %v (err: %v)", got, tc.wantOverflow, err)
			}
			reqs := srv.requests()
			if len(reqs) != tc.wantCalls {
				t.Fatalf("server got %d requests, want %d", len(reqs), tc.wantCalls)
			}
			if tc.check != nil {
				tc.check(t, reqs)
			}
		})
	}
}

// rateLimited is a 429 that asks for a 1 ms wait, so a retry is quick.
func rateLimited() reply {
	r := apiError(429, "Rate limit reached for requests", "requests", "rate_limit_exceeded")
	r.header = map[string]string{"Retry-After-Ms": "1"}
	return r
}

// checkFault asserts err's class and user message, and that neither the
// message nor the full error text carries the API key.
func checkFault(t *testing.T, err error, code fault.Code, prefix, substr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("Complete succeeded, want a %s fault", code)
	}
	if got := fault.CodeOf(err); got != code {
		t.Errorf("fault code = %s, want %s (err: %v)", got, code, err)
	}
	msg := fault.Message(err)
	if !strings.HasPrefix(msg, prefix) {
		t.Errorf("message = %q, want prefix %q", msg, prefix)
	}
	if !strings.Contains(msg, substr) {
		t.Errorf("message = %q, want it to contain %q", msg, substr)
	}
	for _, s := range []string{msg, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		if strings.Contains(s, testKey) {
			t.Errorf("error text leaks the API key: %s", s)
		}
	}
}

func TestLocalServerWithoutKey(t *testing.T) {
	// Ambient SDK variables must not reach a third-party server.
	t.Setenv("OPENAI_API_KEY", "sk-ambient-should-not-be-sent")
	t.Setenv("OPENAI_ORG_ID", "org-ambient")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/never")

	srv := newFakeServer(t, completion("hi from llama", "stop", 4, 3, 7))
	c, err := New(Config{BaseURL: srv.URL + "/v1", MaxRetries: 0})
	if err != nil {
		t.Fatalf("New without key for a local server: %v", err)
	}
	got, err := c.Complete(context.Background(), model.Request{Model: "llama3.2", Messages: []model.Message{{Role: model.User, Content: "hi"}}})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if got.Text != "hi from llama" || got.Usage.Total != 7 {
		t.Errorf("response = %+v", got)
	}
	reqs := srv.requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.path != "/v1/chat/completions" || r.body.Model != "llama3.2" {
		t.Errorf("request = %s model %q", r.path, r.body.Model)
	}
	if a := r.header.Get("Authorization"); a != "" {
		t.Errorf("Authorization = %q, want none", a)
	}
	if o := r.header.Get("OpenAI-Organization"); o != "" {
		t.Errorf("OpenAI-Organization = %q leaked from the environment", o)
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name       string
		cfg        Config
		wantErr    bool
		wantSubstr string
	}{
		{name: "default base URL with key", cfg: Config{APIKey: testKey}},
		{name: "default base URL without key", cfg: Config{}, wantErr: true, wantSubstr: "OPENAI_API_KEY"},
		{name: "explicit api.openai.com without key", cfg: Config{BaseURL: "https://API.openai.com/v1/"}, wantErr: true, wantSubstr: "OPENAI_API_KEY"},
		{name: "local Ollama without key", cfg: Config{BaseURL: "http://localhost:11434/v1"}},
		{name: "OpenRouter with key", cfg: Config{APIKey: testKey, BaseURL: "https://openrouter.ai/api/v1"}},
		{name: "negative retries are clamped", cfg: Config{APIKey: testKey, MaxRetries: -3}},
		{name: "base URL without scheme", cfg: Config{APIKey: testKey, BaseURL: "localhost:11434/v1"}, wantErr: true, wantSubstr: "not an http(s) URL"},
		{name: "unparsable base URL", cfg: Config{APIKey: testKey, BaseURL: "http://[::1"}, wantErr: true, wantSubstr: "not an http(s) URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(tc.cfg)
			if !tc.wantErr {
				if err != nil || c == nil {
					t.Fatalf("New = %v, %v; want a client", c, err)
				}
				return
			}
			if !fault.Is(err, fault.Invalid) {
				t.Fatalf("New error = %v, want fault.Invalid", err)
			}
			if !strings.Contains(fault.Message(err), tc.wantSubstr) {
				t.Errorf("message = %q, want it to contain %q", fault.Message(err), tc.wantSubstr)
			}
		})
	}
}

func TestTransportFailures(t *testing.T) {
	t.Run("deadline is unavailable", func(t *testing.T) {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			select { // answer only after the client gave up
			case <-r.Context().Done():
			case <-release:
			}
		}))
		defer srv.Close()
		defer close(release)
		c, err := New(Config{APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client(), MaxRetries: 2})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err = c.Complete(ctx, history)
		checkFault(t, err, fault.Unavailable, "the model provider did not answer in time", "")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want it to wrap context.DeadlineExceeded", err)
		}
	})
	t.Run("refused connection is unavailable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		c, err := New(Config{APIKey: testKey, BaseURL: url, MaxRetries: 0})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(context.Background(), history)
		checkFault(t, err, fault.Unavailable, "could not reach the model provider", "")
	})
	t.Run("non-JSON 200 is unavailable", func(t *testing.T) {
		srv := newFakeServer(t, reply{status: 200, body: "<html>proxy says hi</html>"})
		c, err := New(Config{APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client(), MaxRetries: 0})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(context.Background(), history)
		if !fault.Is(err, fault.Unavailable) {
			t.Errorf("err = %v, want fault.Unavailable", err)
		}
	})
}

// weatherSchema has a number too large for float64 and nested objects, so a
// test sees whether the schema reaches the server exactly.
const weatherSchema = `{"type": "object", "properties": {"city": {"type": "string"},
	"days": {"type": "integer", "minimum": 1, "maximum": 12345678901234567890}}, "required": ["city"]}`

// sameJSON reports whether got and want are the same JSON value, numbers
// compared by their text.
func sameJSON(t *testing.T, got json.RawMessage, want string) bool {
	t.Helper()
	decode := func(b []byte) any {
		var v any
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("not JSON: %v: %s", err, b)
		}
		return v
	}
	return reflect.DeepEqual(decode(got), decode([]byte(want)))
}

func TestFinishReasons(t *testing.T) {
	oneCall := `{"role": "assistant", "content": null, "tool_calls": [
		{"id": "call_a", "type": "function", "function": {"name": "now", "arguments": "{}"}}]}`
	text := `{"role": "assistant", "content": "done"}`
	tests := []struct {
		name   string
		msg    string
		finish string // "" omits finish_reason
		want   string
	}{
		{name: "stop", msg: text, finish: "stop", want: model.StopEnd},
		{name: "length", msg: text, finish: "length", want: model.StopLength},
		{name: "tool_calls", msg: oneCall, finish: "tool_calls", want: model.StopToolUse},
		{name: "function_call (legacy)", msg: oneCall, finish: "function_call", want: model.StopToolUse},
		{name: "content_filter is a normal stop", msg: text, finish: "content_filter", want: model.StopEnd},
		{name: "absent is a normal stop", msg: text, want: model.StopEnd},
		{name: "unknown is a normal stop", msg: text, finish: "eos", want: model.StopEnd},
		{name: "tool calls with stop are tool use", msg: oneCall, finish: "stop", want: model.StopToolUse},
		{name: "tool calls without a reason are tool use", msg: oneCall, want: model.StopToolUse},
		{name: "tool calls cut by length stay length", msg: oneCall, finish: "length", want: model.StopLength},
		{name: "tool_calls without calls is still tool use", msg: text, finish: "tool_calls", want: model.StopToolUse},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, answer(tc.msg, tc.finish, smallUsage))
			c, err := New(Config{APIKey: testKey, BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Complete(context.Background(), history)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if got.StopReason != tc.want {
				t.Errorf("StopReason = %q, want %q", got.StopReason, tc.want)
			}
		})
	}
}

// redirect sends every request to target, whatever host its URL names, so a
// client configured for api.openai.com talks to a test server.
type redirect struct{ target string }

func (r redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	u, err := url.Parse(r.target)
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = u.Scheme, u.Host
	return http.DefaultTransport.RoundTrip(req)
}

func TestTokenLimitField(t *testing.T) {
	tests := []struct {
		name      string
		baseURL   string // "" is the test server itself
		maxTokens int
		wantField string // "" for no limit at all
	}{
		{name: "api.openai.com gets max_completion_tokens", baseURL: DefaultBaseURL, maxTokens: 512, wantField: "max_completion_tokens"},
		{name: "api.openai.com without a limit", baseURL: DefaultBaseURL},
		{name: "a compatible server gets max_tokens", maxTokens: 512, wantField: "max_tokens"},
		{name: "a compatible server without a limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, completion("ok", "stop", 1, 1, 2))
			cfg := Config{APIKey: testKey, BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()}
			if tc.baseURL != "" {
				cfg.BaseURL = tc.baseURL
				cfg.HTTPClient = &http.Client{Transport: redirect{target: srv.URL}}
			}
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			req := history
			req.MaxTokens = tc.maxTokens
			if _, err := c.Complete(context.Background(), req); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal(srv.requests()[0].raw, &body); err != nil {
				t.Fatal(err)
			}
			for _, field := range []string{"max_tokens", "max_completion_tokens"} {
				v, sent := body[field]
				switch {
				case field == tc.wantField && string(v) != strconv.Itoa(tc.maxTokens):
					t.Errorf("%s = %s, want %d", field, v, tc.maxTokens)
				case field != tc.wantField && sent:
					t.Errorf("%s = %s was sent, want it absent", field, v)
				}
			}
		})
	}
}
