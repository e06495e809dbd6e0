package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

const testKey = "sk-ant-test-0123456789abcdef"

// reply is one canned HTTP answer of the fake server.
type reply struct {
	status int
	body   string
	header map[string]string
}

// wireBlock, wireMessage, wireTool and wireRequest decode what the adapter
// sends. Content is a block array: a string content would fail to decode
// and fail the test, so the tests also pin the array form.
type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   []wireBlock     `json:"content"`
	IsError   *bool           `json:"is_error"`
}

type wireMessage struct {
	Role    string      `json:"role"`
	Content []wireBlock `json:"content"`
}

type wireTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type wireRequest struct {
	Model     string        `json:"model"`
	MaxTokens int64         `json:"max_tokens"`
	System    []wireBlock   `json:"system"`
	Messages  []wireMessage `json:"messages"`
	Tools     []wireTool    `json:"tools"`
	Stream    bool          `json:"stream"`
}

// received is one request as the fake server saw it.
type received struct {
	method, path string
	header       http.Header
	body         wireRequest
}

// fakeServer speaks the Messages wire format. It answers with replies in
// order (the last one repeats), runs step checks on the requests as they
// arrive, and records every request.
type fakeServer struct {
	*httptest.Server
	t       *testing.T
	mu      sync.Mutex
	replies []reply
	checks  []func(t *testing.T, r wireRequest) // checks[i] sees request i; may be shorter
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
	var body wireRequest
	decodeErr := json.NewDecoder(r.Body).Decode(&body)

	f.mu.Lock()
	f.got = append(f.got, received{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), body: body})
	n := len(f.got)
	var check func(*testing.T, wireRequest)
	if n <= len(f.checks) {
		check = f.checks[n-1]
	}
	f.mu.Unlock()

	if decodeErr != nil {
		f.t.Errorf("request %d: body is not the Messages wire format: %v", n, decodeErr)
		writeReply(w, apiError(400, "invalid_request_error", "test server: bad JSON body"))
		return
	}
	if check != nil {
		check(f.t, body)
	}
	writeReply(w, f.replies[min(n, len(f.replies))-1])
}

func writeReply(w http.ResponseWriter, rep reply) {
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(rep.status)
	_, _ = w.Write([]byte(rep.body))
}

func (f *fakeServer) requests() []received {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]received(nil), f.got...)
}

// usage is the token accounting of a canned answer.
type usage struct{ in, out, cacheRead, cacheWrite int }

// answer is a 200 Messages answer with the given content blocks (raw JSON).
func answer(stop string, u usage, blocks ...string) reply {
	return reply{status: http.StatusOK, header: map[string]string{"request-id": "req_ok"}, body: fmt.Sprintf(`{
  "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
  "content": [%s],
  "stop_reason": %q, "stop_sequence": null, "stop_details": null,
  "usage": {"input_tokens": %d, "output_tokens": %d, "cache_read_input_tokens": %d, "cache_creation_input_tokens": %d,
            "service_tier": "standard"}
}`, strings.Join(blocks, ","), stop, u.in, u.out, u.cacheRead, u.cacheWrite)}
}

func textBlock(s string) string { return fmt.Sprintf(`{"type":"text","text":%q,"citations":null}`, s) }

func thinkingBlock(s string) string {
	return fmt.Sprintf(`{"type":"thinking","thinking":%q,"signature":"sig"}`, s)
}

func toolUseBlock(id, name, input string) string {
	return fmt.Sprintf(`{"type":"tool_use","id":%q,"name":%q,"input":%s}`, id, name, input)
}

// apiError is an error answer in Anthropic's error format.
func apiError(status int, typ, message string) reply {
	return reply{status: status, header: map[string]string{"request-id": "req_err"},
		body: fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_err"}`, typ, message)}
}

// quick makes the SDK's retry wait 1 ms instead of its backoff.
func quick(r reply) reply {
	h := map[string]string{"Retry-After-Ms": "1"}
	for k, v := range r.header {
		h[k] = v
	}
	r.header = h
	return r
}

// summary renders wire messages compactly, so a test states the whole
// conversation the API receives in one readable value.
func summary(msgs []wireMessage) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		parts := make([]string, 0, len(m.Content))
		for _, b := range m.Content {
			parts = append(parts, blockSummary(b))
		}
		out = append(out, m.Role+": "+strings.Join(parts, " | "))
	}
	return out
}

func blockSummary(b wireBlock) string {
	switch b.Type {
	case "text":
		return fmt.Sprintf("text %q", b.Text)
	case "tool_use":
		return fmt.Sprintf("tool_use %s %s %s", b.ID, b.Name, b.Input)
	case "tool_result":
		isErr := "<absent>"
		if b.IsError != nil {
			isErr = fmt.Sprint(*b.IsError)
		}
		texts := make([]string, 0, len(b.Content))
		for _, c := range b.Content {
			texts = append(texts, blockSummary(c))
		}
		return fmt.Sprintf("tool_result %s error=%s [%s]", b.ToolUseID, isErr, strings.Join(texts, ", "))
	}
	return "?" + b.Type
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(t *testing.T, got json.RawMessage, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("not JSON: %s (%v)", got, err)
		return false
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON %s: %v", want, err)
	}
	return reflect.DeepEqual(g, w)
}

var history = model.Request{
	Model:  "claude-test",
	System: "You are terse.",
	Messages: []model.Message{
		{Role: model.User, Content: "hi"},
		{Role: model.Assistant, Content: "hello"},
		{Role: model.User, Content: "what is 2+2?"},
	},
}

var apiVersion = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

func TestComplete(t *testing.T) {
	tests := []struct {
		name         string
		maxRetries   int
		cfgMaxTokens int
		req          model.Request
		replies      []reply
		want         model.Response
		wantCode     fault.Code // "" for success
		wantPrefix   string     // the user message starts with it
		wantSubstr   string     // the user message contains it
		wantOverflow bool       // errors.Is(err, model.ErrContextOverflow)
		wantCalls    int
		check        func(t *testing.T, got []received)
	}{
		{
			name:      "plain text turn: headers, system, history, default max_tokens",
			req:       history,
			replies:   []reply{answer("end_turn", usage{in: 20, out: 1}, textBlock("4"))},
			want:      model.Response{Text: "4", StopReason: model.StopEnd, Usage: model.Usage{Input: 20, Output: 1, Total: 21}},
			wantCalls: 1,
			check: func(t *testing.T, got []received) {
				r := got[0]
				if r.method != http.MethodPost || r.path != "/v1/messages" {
					t.Errorf("request = %s %s, want POST /v1/messages", r.method, r.path)
				}
				// The SDK sends an API key as a bearer credential.
				if a := r.header.Get("Authorization"); a != "Bearer "+testKey {
					t.Errorf("Authorization = %q, want Bearer <key>", a)
				}
				if v := r.header.Get("Anthropic-Version"); !apiVersion.MatchString(v) {
					t.Errorf("anthropic-version = %q, want a YYYY-MM-DD API version", v)
				}
				if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
					t.Errorf("Content-Type = %q", ct)
				}
				b := r.body
				if b.Model != "claude-test" || b.MaxTokens != DefaultMaxTokens || b.Stream {
					t.Errorf("model %q, max_tokens %d, stream %v; want claude-test, %d, false", b.Model, b.MaxTokens, b.Stream, DefaultMaxTokens)
				}
				if len(b.System) != 1 || b.System[0].Type != "text" || b.System[0].Text != "You are terse." {
					t.Errorf("system = %+v, want one text block", b.System)
				}
				want := []string{`user: text "hi"`, `assistant: text "hello"`, `user: text "what is 2+2?"`}
				if diff := cmp.Diff(want, summary(b.Messages)); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
				if b.Tools != nil {
					t.Errorf("tools = %+v, want none", b.Tools)
				}
			},
		},
		{
			name:      "no system field without a system prompt",
			req:       model.Request{Model: "claude-test", System: "  ", Messages: []model.Message{{Role: model.User, Content: "hi"}}},
			replies:   []reply{answer("end_turn", usage{in: 1, out: 1}, textBlock("hello"))},
			want:      model.Response{Text: "hello", StopReason: model.StopEnd, Usage: model.Usage{Input: 1, Output: 1, Total: 2}},
			wantCalls: 1,
			check: func(t *testing.T, got []received) {
				if got[0].body.System != nil {
					t.Errorf("system = %+v, want absent", got[0].body.System)
				}
			},
		},
		{
			name:      "request max tokens wins",
			req:       model.Request{Model: "claude-test", MaxTokens: 300, Messages: history.Messages},
			replies:   []reply{answer("end_turn", usage{in: 1, out: 1}, textBlock("ok"))},
			want:      model.Response{Text: "ok", StopReason: model.StopEnd, Usage: model.Usage{Input: 1, Output: 1, Total: 2}},
			wantCalls: 1,
			check: func(t *testing.T, got []received) {
				if got[0].body.MaxTokens != 300 {
					t.Errorf("max_tokens = %d, want 300", got[0].body.MaxTokens)
				}
			},
		},
		{
			name:         "configured max tokens is the default",
			cfgMaxTokens: 1234,
			req:          history,
			replies:      []reply{answer("end_turn", usage{in: 1, out: 1}, textBlock("ok"))},
			want:         model.Response{Text: "ok", StopReason: model.StopEnd, Usage: model.Usage{Input: 1, Output: 1, Total: 2}},
			wantCalls:    1,
			check: func(t *testing.T, got []received) {
				if got[0].body.MaxTokens != 1234 {
					t.Errorf("max_tokens = %d, want 1234", got[0].body.MaxTokens)
				}
			},
		},
		{
			name:      "text blocks concatenated, thinking blocks kept apart",
			req:       history,
			replies:   []reply{answer("end_turn", usage{in: 3, out: 9}, thinkingBlock("first"), textBlock("The answer "), thinkingBlock("second"), textBlock("is 4."))},
			want:      model.Response{Text: "The answer is 4.", Thinking: "first\n\nsecond", StopReason: model.StopEnd, Usage: model.Usage{Input: 3, Output: 9, Total: 12}},
			wantCalls: 1,
		},
		{
			name:      "stop_sequence is a normal stop",
			req:       history,
			replies:   []reply{answer("stop_sequence", usage{in: 1, out: 1}, textBlock("cut"))},
			want:      model.Response{Text: "cut", StopReason: model.StopEnd, Usage: model.Usage{Input: 1, Output: 1, Total: 2}},
			wantCalls: 1,
		},
		{
			name:      "max_tokens is length",
			req:       history,
			replies:   []reply{answer("max_tokens", usage{in: 1, out: 4096}, textBlock("long"))},
			want:      model.Response{Text: "long", StopReason: model.StopLength, Usage: model.Usage{Input: 1, Output: 4096, Total: 4097}},
			wantCalls: 1,
		},
		{
			name:      "model_context_window_exceeded is length",
			req:       history,
			replies:   []reply{answer("model_context_window_exceeded", usage{in: 1, out: 2}, textBlock("half"))},
			want:      model.Response{Text: "half", StopReason: model.StopLength, Usage: model.Usage{Input: 1, Output: 2, Total: 3}},
			wantCalls: 1,
		},
		{
			name:      "refusal with text keeps the text",
			req:       history,
			replies:   []reply{answer("refusal", usage{in: 1, out: 2}, textBlock("I can't help with that."))},
			want:      model.Response{Text: "I can't help with that.", StopReason: model.StopEnd, Usage: model.Usage{Input: 1, Output: 2, Total: 3}},
			wantCalls: 1,
		},
		{
			name: "refusal without text answers with the explanation",
			req:  history,
			replies: []reply{{status: 200, body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],
				"stop_reason":"refusal","stop_sequence":null,"stop_details":{"type":"refusal","category":"cyber","explanation":"This touches a restricted topic."},
				"usage":{"input_tokens":4,"output_tokens":0}}`}},
			want:      model.Response{Text: "This touches a restricted topic.", StopReason: model.StopEnd, Usage: model.Usage{Input: 4, Total: 4}},
			wantCalls: 1,
		},
		{
			name:      "refusal with neither text nor explanation is not silent",
			req:       history,
			replies:   []reply{answer("refusal", usage{in: 4})},
			want:      model.Response{Text: refusalFallback, StopReason: model.StopEnd, Usage: model.Usage{Input: 4, Total: 4}},
			wantCalls: 1,
		},
		{
			name:      "unknown stop reason is a normal stop",
			req:       history,
			replies:   []reply{answer("pause_turn", usage{in: 1, out: 1}, textBlock("so far"))},
			want:      model.Response{Text: "so far", StopReason: model.StopEnd, Usage: model.Usage{Input: 1, Output: 1, Total: 2}},
			wantCalls: 1,
		},
		{
			name: "tools sent with name, description and input_schema",
			req: model.Request{Model: "claude-test", Messages: history.Messages, Tools: []model.ToolSpec{
				{Name: "weather", Description: "Forecast for a city.", Schema: json.RawMessage(
					`{"type":"object","properties":{"city":{"type":"string","description":"City name","enum":["Oslo","Rome"]}},"required":["city"],"additionalProperties":false}`)},
				{Name: "clock"},
				{Name: "echo", Schema: json.RawMessage(`{"properties":{"text":{"type":"string"}}}`)},
			}},
			replies:   []reply{answer("end_turn", usage{in: 1, out: 1}, textBlock("ok"))},
			want:      model.Response{Text: "ok", StopReason: model.StopEnd, Usage: model.Usage{Input: 1, Output: 1, Total: 2}},
			wantCalls: 1,
			check: func(t *testing.T, got []received) {
				tools := got[0].body.Tools
				if len(tools) != 3 {
					t.Fatalf("tools = %+v, want 3", tools)
				}
				if tools[0].Name != "weather" || tools[0].Description != "Forecast for a city." ||
					!jsonEqual(t, tools[0].InputSchema, `{"type":"object","properties":{"city":{"type":"string","description":"City name","enum":["Oslo","Rome"]}},"required":["city"],"additionalProperties":false}`) {
					t.Errorf("tool 0 = %s %q %s, want the schema as written", tools[0].Name, tools[0].Description, tools[0].InputSchema)
				}
				if tools[1].Name != "clock" || tools[1].Description != "" || !jsonEqual(t, tools[1].InputSchema, `{"type":"object","properties":{}}`) {
					t.Errorf("tool 1 = %s %q %s, want an empty object schema", tools[1].Name, tools[1].Description, tools[1].InputSchema)
				}
				if !jsonEqual(t, tools[2].InputSchema, `{"type":"object","properties":{"text":{"type":"string"}}}`) {
					t.Errorf("tool 2 schema = %s, want type object added", tools[2].InputSchema)
				}
			},
		},
		{
			name: "invalid Arguments are sent as {} and the history goes on",
			req: model.Request{Model: "claude-test", Messages: []model.Message{
				{Role: model.User, Content: "go"},
				{Role: model.Assistant, ToolCalls: []model.ToolCall{
					{ID: "toolu_bad", Name: "weather", Arguments: `{"city": "Oslo"`},
					{ID: "toolu_arr", Name: "weather", Arguments: `["Oslo"]`},
					{ID: "toolu_none", Name: "clock", Arguments: ``},
					{ID: "toolu_ok", Name: "weather", Arguments: ` {"city":"Rome"} `},
				}},
				{Role: model.ToolResult, ToolCallID: "toolu_bad", ToolName: "weather", Content: "arguments are not valid JSON", IsError: true},
				{Role: model.ToolResult, ToolCallID: "toolu_arr", ToolName: "weather", Content: "arguments must be an object", IsError: true},
				{Role: model.ToolResult, ToolCallID: "toolu_none", ToolName: "clock", Content: "12:00"},
				{Role: model.ToolResult, ToolCallID: "toolu_ok", ToolName: "weather", Content: "sunny"},
			}},
			replies:   []reply{answer("end_turn", usage{in: 1, out: 1}, textBlock("done"))},
			want:      model.Response{Text: "done", StopReason: model.StopEnd, Usage: model.Usage{Input: 1, Output: 1, Total: 2}},
			wantCalls: 1,
			check: func(t *testing.T, got []received) {
				want := []string{
					`user: text "go"`,
					`assistant: tool_use toolu_bad weather {} | tool_use toolu_arr weather {} | tool_use toolu_none clock {} | tool_use toolu_ok weather {"city":"Rome"}`,
					`user: tool_result toolu_bad error=true [text "arguments are not valid JSON"] | tool_result toolu_arr error=true [text "arguments must be an object"] | ` +
						`tool_result toolu_none error=false [text "12:00"] | tool_result toolu_ok error=false [text "sunny"]`,
				}
				if diff := cmp.Diff(want, summary(got[0].body.Messages)); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "adjacent same-role messages are merged, tool results first, blanks dropped",
			req: model.Request{Model: "claude-test", Messages: []model.Message{
				{Role: model.User, Content: "one"},
				{Role: model.User, Content: "two"},
				{Role: model.Assistant, Content: "calling", ToolCalls: []model.ToolCall{{ID: "functions.lookup:0", Name: "lookup", Arguments: `{"q":"x"}`}}},
				{Role: model.User, Content: "also this"}, // arrived while the tool ran
				{Role: model.ToolResult, ToolCallID: "functions.lookup:0", ToolName: "lookup", Content: ""},
				{Role: model.Assistant, Content: " "}, // empty answer: dropped
				{Role: model.User, Content: "and then?"},
				{Role: model.Assistant, Content: "first part"},
				{Role: model.Assistant, Content: "second part"},
				{Role: model.User, Content: "ok"},
			}},
			replies:   []reply{answer("end_turn", usage{in: 1, out: 1}, textBlock("done"))},
			want:      model.Response{Text: "done", StopReason: model.StopEnd, Usage: model.Usage{Input: 1, Output: 1, Total: 2}},
			wantCalls: 1,
			check: func(t *testing.T, got []received) {
				want := []string{
					`user: text "one" | text "two"`,
					`assistant: text "calling" | tool_use functions_lookup_0 lookup {"q":"x"}`,
					`user: tool_result functions_lookup_0 error=false [] | text "also this" | text "and then?"`,
					`assistant: text "first part" | text "second part"`,
					`user: text "ok"`,
				}
				if diff := cmp.Diff(want, summary(got[0].body.Messages)); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:       "401 is unauthorized",
			req:        history,
			replies:    []reply{apiError(401, "authentication_error", "invalid x-api-key")},
			wantCode:   fault.Unauthorized,
			wantPrefix: "the model provider rejected the API key",
			wantCalls:  1,
		},
		{
			name:       "403 is unauthorized with the provider message",
			req:        history,
			replies:    []reply{apiError(403, "permission_error", "Your API key does not have permission to use the specified resource.")},
			wantCode:   fault.Unauthorized,
			wantPrefix: "the model provider refused access",
			wantSubstr: "does not have permission",
			wantCalls:  1,
		},
		{
			name:       "402 billing is unauthorized",
			req:        history,
			replies:    []reply{apiError(402, "billing_error", "Your credit balance is too low.")},
			wantCode:   fault.Unauthorized,
			wantPrefix: "the model provider refused the request for billing reasons",
			wantSubstr: "credit balance",
			wantCalls:  1,
		},
		{
			name:       "429 without retries is rate limited",
			req:        history,
			replies:    []reply{quick(apiError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")), answer("end_turn", usage{in: 1, out: 1}, textBlock("late"))},
			wantCode:   fault.RateLimited,
			wantPrefix: "the model provider is rate limiting requests",
			wantSubstr: "per-minute rate limit",
			wantCalls:  1,
		},
		{
			name:       "429 then 200 with one retry succeeds",
			maxRetries: 1,
			req:        history,
			replies:    []reply{quick(apiError(429, "rate_limit_error", "slow down")), answer("end_turn", usage{in: 1, out: 1}, textBlock("late"))},
			want:       model.Response{Text: "late", StopReason: model.StopEnd, Usage: model.Usage{Input: 1, Output: 1, Total: 2}},
			wantCalls:  2,
		},
		{
			name: "429 spend limit is rate limited with its own message",
			req:  history,
			replies: []reply{{status: 429, body: `{"type":"error","error":{"type":"rate_limit_error","message":"You have reached your monthly spend limit.",
				"details":{"error_code":"enforced_spend_limit_reached"}}}`}},
			wantCode:   fault.RateLimited,
			wantPrefix: "the model provider's spend limit is reached",
			wantCalls:  1,
		},
		{
			name:       "529 overloaded is unavailable",
			req:        history,
			replies:    []reply{quick(apiError(529, "overloaded_error", "Overloaded"))},
			wantCode:   fault.Unavailable,
			wantPrefix: "the model provider is overloaded (HTTP 529)",
			wantCalls:  1,
		},
		{
			name:       "529 then 200 with retries succeeds",
			maxRetries: 2,
			req:        history,
			replies:    []reply{quick(apiError(529, "overloaded_error", "Overloaded")), quick(apiError(529, "overloaded_error", "Overloaded")), answer("end_turn", usage{in: 1, out: 1}, textBlock("finally"))},
			want:       model.Response{Text: "finally", StopReason: model.StopEnd, Usage: model.Usage{Input: 1, Output: 1, Total: 2}},
			wantCalls:  3,
		},
		{
			name:       "500 is unavailable",
			req:        history,
			replies:    []reply{apiError(500, "api_error", "Internal server error")},
			wantCode:   fault.Unavailable,
			wantSubstr: "HTTP 500",
			wantCalls:  1,
		},
		{
			name:       "503 with a non-JSON body is unavailable",
			req:        history,
			replies:    []reply{{status: 503, body: "upstream down", header: map[string]string{"Content-Type": "text/plain"}}},
			wantCode:   fault.Unavailable,
			wantSubstr: "HTTP 503",
			wantCalls:  1,
		},
		{
			name:       "400 is invalid with the provider message, not an overflow",
			req:        history,
			replies:    []reply{apiError(400, "invalid_request_error", "messages.1.content.0.tool_use.name: String should have at most 128 characters")},
			wantCode:   fault.Invalid,
			wantPrefix: "the model provider rejected the request:",
			wantSubstr: "at most 128 characters",
			wantCalls:  1,
		},
		{
			name:         "400 prompt is too long is a context overflow",
			req:          history,
			replies:      []reply{apiError(400, "invalid_request_error", "prompt is too long: 212345 tokens > 200000 maximum")},
			wantCode:     fault.Invalid,
			wantPrefix:   "the conversation is too long for the model:",
			wantSubstr:   "212345 tokens > 200000 maximum",
			wantOverflow: true,
			wantCalls:    1,
		},
		{
			name:         "400 input and max_tokens exceed context limit is a context overflow",
			req:          history,
			replies:      []reply{apiError(400, "invalid_request_error", "input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000, decrease input length or `max_tokens` and try again")},
			wantCode:     fault.Invalid,
			wantOverflow: true,
			wantCalls:    1,
		},
		{
			name:         "413 request too large is a context overflow",
			req:          history,
			replies:      []reply{apiError(413, "request_too_large", "Request exceeds the maximum allowed number of bytes.")},
			wantCode:     fault.Invalid,
			wantOverflow: true,
			wantCalls:    1,
		},
		{
			name:       "404 unknown model is invalid with the provider message",
			req:        history,
			replies:    []reply{apiError(404, "not_found_error", "model: claude-nope")},
			wantCode:   fault.Invalid,
			wantSubstr: "model: claude-nope",
			wantCalls:  1,
		},
		{
			name:       "provider message echoing the key is scrubbed",
			req:        history,
			replies:    []reply{apiError(400, "invalid_request_error", "bad request from key "+testKey)},
			wantCode:   fault.Invalid,
			wantSubstr: "[redacted]",
			wantCalls:  1,
		},
		{
			name:       "empty model is invalid and sends nothing",
			req:        model.Request{Messages: history.Messages},
			wantCode:   fault.Invalid,
			wantSubstr: "no model name",
		},
		{
			name:       "unknown role is invalid and sends nothing",
			req:        model.Request{Model: "claude-test", Messages: []model.Message{{Role: "tool", Content: "x"}}},
			wantCode:   fault.Invalid,
			wantSubstr: `message 0: unsupported role "tool"`,
		},
		{
			name: "tool call without id is invalid and sends nothing",
			req: model.Request{Model: "claude-test", Messages: []model.Message{
				{Role: model.User, Content: "go"},
				{Role: model.Assistant, ToolCalls: []model.ToolCall{{Name: "clock", Arguments: "{}"}}},
			}},
			wantCode:   fault.Invalid,
			wantSubstr: "message 1: tool call 0 (clock) has no id",
		},
		{
			name:       "tool result without id is invalid and sends nothing",
			req:        model.Request{Model: "claude-test", Messages: []model.Message{{Role: model.ToolResult, ToolName: "clock", Content: "12:00"}}},
			wantCode:   fault.Invalid,
			wantSubstr: `tool result for "clock" has no tool call id`,
		},
		{
			name:       "tool schema that is not an object is invalid and sends nothing",
			req:        model.Request{Model: "claude-test", Messages: history.Messages, Tools: []model.ToolSpec{{Name: "bad", Schema: json.RawMessage(`["x"]`)}}},
			wantCode:   fault.Invalid,
			wantSubstr: `tool "bad": schema is not a JSON object`,
		},
		{
			name:       "context with nothing to send is invalid and sends nothing",
			req:        model.Request{Model: "claude-test", Messages: []model.Message{{Role: model.User, Content: " "}}},
			wantCode:   fault.Invalid,
			wantSubstr: "no message with content",
		},
		{
			name:       "max tokens too large for a non-streaming call is invalid and sends nothing",
			req:        model.Request{Model: "claude-test", MaxTokens: 64000, Messages: history.Messages},
			wantCode:   fault.Invalid,
			wantPrefix: "max tokens 64000 is too large for a non-streaming call",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, tc.replies...)
			c, err := New(Config{APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client(), MaxRetries: tc.maxRetries, MaxTokens: tc.cfgMaxTokens})
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
				if is := errors.Is(err, model.ErrContextOverflow); is != tc.wantOverflow {
					t.Errorf("errors.Is(err, ErrContextOverflow) = %v, want %v (err: %v)", is, tc.wantOverflow, err)
				}
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

func TestNoAmbientEnvironment(t *testing.T) {
	// Ambient SDK variables must not reach the server: what is sent is
	// what Config says.
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-ambient-should-not-be-sent")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "ambient-token")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1/never")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Ambient: yes")

	srv := newFakeServer(t, answer("end_turn", usage{in: 4, out: 3}, textBlock("hi from the gateway")))
	c, err := New(Config{BaseURL: srv.URL, MaxRetries: 0})
	if err != nil {
		t.Fatalf("New without key for a gateway: %v", err)
	}
	got, err := c.Complete(context.Background(), model.Request{Model: "claude-test", Messages: []model.Message{{Role: model.User, Content: "hi"}}})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if got.Text != "hi from the gateway" || got.Usage.Total != 7 {
		t.Errorf("response = %+v", got)
	}
	reqs := srv.requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	h := reqs[0].header
	for _, name := range []string{"Authorization", "X-Api-Key", "X-Ambient"} {
		if v := h.Get(name); v != "" {
			t.Errorf("%s = %q leaked from the environment", name, v)
		}
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
		{name: "default base URL without key", cfg: Config{}, wantErr: true, wantSubstr: "ANTHROPIC_API_KEY"},
		{name: "explicit api.anthropic.com without key", cfg: Config{BaseURL: "https://API.anthropic.com/"}, wantErr: true, wantSubstr: "ANTHROPIC_API_KEY"},
		{name: "gateway without key", cfg: Config{BaseURL: "https://gateway.example/anthropic"}},
		{name: "negative retries are clamped", cfg: Config{APIKey: testKey, MaxRetries: -3}},
		{name: "negative max tokens mean the default", cfg: Config{APIKey: testKey, MaxTokens: -1}},
		{name: "base URL without scheme", cfg: Config{APIKey: testKey, BaseURL: "api.anthropic.com"}, wantErr: true, wantSubstr: "not an http(s) URL"},
		{name: "unparsable base URL", cfg: Config{APIKey: testKey, BaseURL: "http://[::1"}, wantErr: true, wantSubstr: "not an http(s) URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(tc.cfg)
			if !tc.wantErr {
				if err != nil || c == nil {
					t.Fatalf("New = %v, %v; want a client", c, err)
				}
				if c.maxTokens <= 0 {
					t.Errorf("maxTokens = %d, want a positive default", c.maxTokens)
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
	t.Run("deadline is unavailable and stops the retries", func(t *testing.T) {
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
		c, err := New(Config{APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client(), MaxRetries: 5})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err = c.Complete(ctx, history)
		checkFault(t, err, fault.Unavailable, "the model provider did not answer in time", "")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want it to wrap context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Complete returned after %v, want soon after the 50ms deadline", d)
		}
	})
	t.Run("retry wait does not outlive the deadline", func(t *testing.T) {
		// 529 asking for a 30 s wait: the SDK must give up at the deadline.
		r := apiError(529, "overloaded_error", "Overloaded")
		r.header["Retry-After"] = "30"
		srv := newFakeServer(t, r)
		c, err := New(Config{APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client(), MaxRetries: 3})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err = c.Complete(ctx, history)
		if !fault.Is(err, fault.Unavailable) || !fault.Retryable(err) {
			t.Errorf("err = %v, want a retryable fault.Unavailable", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Complete returned after %v, want soon after the 100ms deadline", d)
		}
		if n := len(srv.requests()); n != 1 {
			t.Errorf("server got %d requests, want 1", n)
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
		srv := newFakeServer(t, reply{status: 200, body: "<html>proxy says hi</html>", header: map[string]string{"Content-Type": "text/html"}})
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
