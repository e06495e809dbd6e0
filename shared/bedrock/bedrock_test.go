package bedrock

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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// testModel has the ':' of real Bedrock model ids, which the SDK escapes in
// the path.
const testModel = "anthropic.claude-test-v1:0"

// Wire shapes of a Converse request, as the SDK sends them. Unknown fields
// are rejected by decode, so a block the adapter should not send fails the
// test instead of going unnoticed.
type (
	wireBlock struct {
		Text       *string         `json:"text,omitempty"`
		ToolUse    *wireToolUse    `json:"toolUse,omitempty"`
		ToolResult *wireToolResult `json:"toolResult,omitempty"`
	}
	wireToolUse struct {
		ToolUseID string          `json:"toolUseId"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	}
	wireToolResult struct {
		ToolUseID string      `json:"toolUseId"`
		Content   []wireBlock `json:"content"`
		Status    string      `json:"status"`
	}
	wireMessage struct {
		Role    string      `json:"role"`
		Content []wireBlock `json:"content"`
	}
	wireToolSpec struct {
		Name        string  `json:"name"`
		Description *string `json:"description,omitempty"`
		InputSchema struct {
			JSON json.RawMessage `json:"json"`
		} `json:"inputSchema"`
	}
	wireRequest struct {
		Messages   []wireMessage `json:"messages"`
		System     []wireBlock   `json:"system,omitempty"`
		ToolConfig *struct {
			Tools []struct {
				ToolSpec wireToolSpec `json:"toolSpec"`
			} `json:"tools"`
		} `json:"toolConfig,omitempty"`
		InferenceConfig *struct {
			MaxTokens *int `json:"maxTokens,omitempty"`
		} `json:"inferenceConfig,omitempty"`
	}
)

// received is one request as the fake server saw it.
type received struct {
	method, path string
	header       http.Header
	body         wireRequest
}

// reply is one canned HTTP answer.
type reply struct {
	status int
	header map[string]string
	body   string
}

// fakeBedrock speaks the Converse wire format: POST /model/{modelId}/converse
// with a JSON body. It answers with replies in order (the last one repeats)
// and records every request; a body it cannot decode fails the test.
type fakeBedrock struct {
	*httptest.Server
	t       *testing.T
	mu      sync.Mutex
	replies []reply
	got     []received
}

func newFakeBedrock(t *testing.T, replies ...reply) *fakeBedrock {
	t.Helper()
	f := &fakeBedrock{t: t, replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeBedrock) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	var body wireRequest
	if err := dec.Decode(&body); err != nil {
		f.t.Errorf("fake Bedrock: undecodable request body %s: %v", raw, err)
	}
	f.mu.Lock()
	f.got = append(f.got, received{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), body: body})
	rep := f.replies[min(len(f.got), len(f.replies))-1]
	f.mu.Unlock()

	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	_, _ = io.WriteString(w, rep.body)
}

func (f *fakeBedrock) requests() []received {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]received(nil), f.got...)
}

// client is a Client on the fake server: static credentials, us-east-1,
// and no SDK retries so every answer is seen once.
func (f *fakeBedrock) client() *Client {
	return New(newRuntime(f.URL, f.Client()))
}

func newRuntime(endpoint string, httpClient *http.Client) *bedrockruntime.Client {
	if httpClient == nil {
		httpClient = http.DefaultClient // a typed nil in Options.HTTPClient would not be replaced
	}
	return bedrockruntime.New(bedrockruntime.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDTEST", SecretAccessKey: "secret-test"}, nil
		}),
		HTTPClient:       httpClient,
		RetryMaxAttempts: 1,
	})
}

// converse is a 200 Converse answer with the given content blocks (JSON).
func converse(stop string, usage string, blocks ...string) reply {
	return reply{status: http.StatusOK, body: fmt.Sprintf(
		`{"output":{"message":{"role":"assistant","content":[%s]}},"stopReason":%q,"usage":%s,"metrics":{"latencyMs":42}}`,
		strings.Join(blocks, ","), stop, usage)}
}

func text(s string) string { return fmt.Sprintf(`{"text":%q}`, s) }

func toolUse(id, name, input string) string {
	return fmt.Sprintf(`{"toolUse":{"toolUseId":%q,"name":%q,"input":%s}}`, id, name, input)
}

const smallUsage = `{"inputTokens":10,"outputTokens":5,"totalTokens":15}`

// awsError is an error answer as Bedrock sends it: the code in the
// X-Amzn-ErrorType header (with Coral's namespace suffix) and the message
// in the body.
func awsError(status int, code, message string) reply {
	return reply{
		status: status,
		header: map[string]string{"X-Amzn-ErrorType": code + ":http://internal.amazon.com/coral/com.amazon.bedrock/"},
		body:   fmt.Sprintf(`{"message":%q}`, message),
	}
}

func str(s string) *string { return &s }

func user(s string) model.Message      { return model.Message{Role: model.User, Content: s} }
func assistant(s string) model.Message { return model.Message{Role: model.Assistant, Content: s} }

var weatherTool = model.ToolSpec{
	Name:        "get_weather",
	Description: "Current weather for a city.",
	Schema:      json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","maximum":10}},"required":["city"]}`),
}

func TestComplete(t *testing.T) {
	tests := []struct {
		name      string
		req       model.Request
		replies   []reply
		want      model.Response
		wantCalls int
		check     func(t *testing.T, got received)
	}{
		{
			name: "plain text with system prompt, history and max tokens",
			req: model.Request{Model: testModel, System: "You are terse.", MaxTokens: 512,
				Messages: []model.Message{user("hi"), assistant("hello"), user("what is 2+2?")}},
			replies:   []reply{converse("end_turn", smallUsage, text("4"))},
			want:      model.Response{Text: "4", StopReason: model.StopEnd, Usage: model.Usage{Input: 10, Output: 5, Total: 15}},
			wantCalls: 1,
			check: func(t *testing.T, got received) {
				if got.method != http.MethodPost || got.path != "/model/"+testModel+"/converse" {
					t.Errorf("request = %s %s, want POST /model/%s/converse", got.method, got.path, testModel)
				}
				if a := got.header.Get("Authorization"); !strings.HasPrefix(a, "AWS4-HMAC-SHA256 Credential=AKIDTEST/") || !strings.Contains(a, "/us-east-1/bedrock/aws4_request") {
					t.Errorf("Authorization = %q, want a SigV4 signature for bedrock in us-east-1", a)
				}
				wantSystem := []wireBlock{{Text: str("You are terse.")}}
				if diff := cmp.Diff(wantSystem, got.body.System); diff != "" {
					t.Errorf("system (-want +got):\n%s", diff)
				}
				want := []wireMessage{
					{Role: "user", Content: []wireBlock{{Text: str("hi")}}},
					{Role: "assistant", Content: []wireBlock{{Text: str("hello")}}},
					{Role: "user", Content: []wireBlock{{Text: str("what is 2+2?")}}},
				}
				if diff := cmp.Diff(want, got.body.Messages); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
				if ic := got.body.InferenceConfig; ic == nil || ic.MaxTokens == nil || *ic.MaxTokens != 512 {
					t.Errorf("inferenceConfig = %s, want maxTokens 512", js(ic))
				}
				if got.body.ToolConfig != nil {
					t.Errorf("toolConfig = %s, want none without tools", js(got.body.ToolConfig))
				}
			},
		},
		{
			name:      "no system, no max tokens: neither field is sent",
			req:       model.Request{Model: testModel, Messages: []model.Message{user("hi")}},
			replies:   []reply{converse("end_turn", smallUsage, text("hello"))},
			want:      model.Response{Text: "hello", StopReason: model.StopEnd, Usage: model.Usage{Input: 10, Output: 5, Total: 15}},
			wantCalls: 1,
			check: func(t *testing.T, got received) {
				if got.body.System != nil || got.body.InferenceConfig != nil {
					t.Errorf("system = %s, inferenceConfig = %s; want neither", js(got.body.System), js(got.body.InferenceConfig))
				}
			},
		},
		{
			name: "tool schema sent",
			req: model.Request{Model: testModel, Messages: []model.Message{user("weather?")}, Tools: []model.ToolSpec{
				weatherTool,
				{Name: "now"}, // no description, no schema
			}},
			replies:   []reply{converse("end_turn", smallUsage, text("sunny"))},
			want:      model.Response{Text: "sunny", StopReason: model.StopEnd, Usage: model.Usage{Input: 10, Output: 5, Total: 15}},
			wantCalls: 1,
			check: func(t *testing.T, got received) {
				tc := got.body.ToolConfig
				if tc == nil || len(tc.Tools) != 2 {
					t.Fatalf("toolConfig = %s, want 2 tools", js(tc))
				}
				w := tc.Tools[0].ToolSpec
				if w.Name != "get_weather" || w.Description == nil || *w.Description != weatherTool.Description {
					t.Errorf("tool 0 = %s", js(w))
				}
				sameJSON(t, "tool 0 schema", w.InputSchema.JSON, string(weatherTool.Schema))
				n := tc.Tools[1].ToolSpec
				if n.Name != "now" || n.Description != nil {
					t.Errorf("tool 1 = %s, want name now and no description (Converse rejects a blank one)", js(n))
				}
				sameJSON(t, "tool 1 schema", n.InputSchema.JSON, `{"type":"object","properties":{}}`)
			},
		},
		{
			name:      "total derived when Bedrock omits it",
			req:       model.Request{Model: testModel, Messages: []model.Message{user("hi")}},
			replies:   []reply{converse("end_turn", `{"inputTokens":7,"outputTokens":3,"cacheReadInputTokens":10}`, text("ok"))},
			want:      model.Response{Text: "ok", StopReason: model.StopEnd, Usage: model.Usage{Input: 7, Output: 3, CacheRead: 10, Total: 20}},
			wantCalls: 1,
		},
		{
			name: "tool use answer: text, calls with exact arguments, reasoning",
			req:  model.Request{Model: testModel, Messages: []model.Message{user("weather in Paris?")}, Tools: []model.ToolSpec{weatherTool}},
			replies: []reply{converse("tool_use", smallUsage,
				`{"reasoningContent":{"reasoningText":{"text":"The user wants weather.","signature":"sig"}}}`,
				text("Let me check."),
				toolUse("tooluse_1", "get_weather", `{"city":"Paris","chat":9007199254740993,"ratio":0.5}`),
				toolUse("tooluse_2", "now", `{}`))},
			want: model.Response{
				Text: "Let me check.", Thinking: "The user wants weather.", StopReason: model.StopToolUse,
				ToolCalls: []model.ToolCall{
					{ID: "tooluse_1", Name: "get_weather", Arguments: `{"chat":9007199254740993,"city":"Paris","ratio":0.5}`},
					{ID: "tooluse_2", Name: "now", Arguments: `{}`},
				},
				Usage: model.Usage{Input: 10, Output: 5, Total: 15}},
			wantCalls: 1,
		},
		{
			name: "invalid or non-object arguments are sent as {}, valid ones exactly",
			req: model.Request{Model: testModel, Tools: []model.ToolSpec{weatherTool}, Messages: []model.Message{
				user("go"),
				{Role: model.Assistant, ToolCalls: []model.ToolCall{
					{ID: "a", Name: "get_weather", Arguments: `{"city": "Par`},
					{ID: "b", Name: "get_weather", Arguments: `null`},
					{ID: "c", Name: "get_weather", Arguments: `[1,2]`},
					{ID: "d", Name: "get_weather", Arguments: `{"city":"Oslo"} {"x":1}`},
					{ID: "e", Name: "get_weather", Arguments: ``},
					{ID: "f", Name: "get_weather", Arguments: `{"city":"Rome","days":3,"big":12345678901234567890,"tags":["a",null,false],"nested":{"x":0,"s":""}}`},
				}},
				{Role: model.ToolResult, ToolCallID: "a", ToolName: "get_weather", Content: "invalid arguments", IsError: true},
				{Role: model.ToolResult, ToolCallID: "b", ToolName: "get_weather", Content: "invalid arguments", IsError: true},
				{Role: model.ToolResult, ToolCallID: "c", ToolName: "get_weather", Content: "invalid arguments", IsError: true},
				{Role: model.ToolResult, ToolCallID: "d", ToolName: "get_weather", Content: "invalid arguments", IsError: true},
				{Role: model.ToolResult, ToolCallID: "e", ToolName: "get_weather", Content: "invalid arguments", IsError: true},
				{Role: model.ToolResult, ToolCallID: "f", ToolName: "get_weather", Content: "12°C"},
			}},
			replies:   []reply{converse("end_turn", smallUsage, text("done"))},
			want:      model.Response{Text: "done", StopReason: model.StopEnd, Usage: model.Usage{Input: 10, Output: 5, Total: 15}},
			wantCalls: 1,
			check: func(t *testing.T, got received) {
				if len(got.body.Messages) != 3 {
					t.Fatalf("messages = %s, want user, assistant, user", js(got.body.Messages))
				}
				blocks := got.body.Messages[1].Content
				want := []string{`{}`, `{}`, `{}`, `{}`, `{}`,
					`{"city":"Rome","days":3,"big":12345678901234567890,"tags":["a",null,false],"nested":{"x":0,"s":""}}`}
				if len(blocks) != len(want) {
					t.Fatalf("assistant blocks = %s, want %d toolUse blocks", js(blocks), len(want))
				}
				for i, b := range blocks {
					if b.ToolUse == nil {
						t.Fatalf("block %d = %s, want toolUse", i, js(b))
					}
					sameJSON(t, "input of "+b.ToolUse.ToolUseID, b.ToolUse.Input, want[i])
				}
				// 12345678901234567890 must stay exact, not become 1.2345678901234567e19.
				if !strings.Contains(string(blocks[5].ToolUse.Input), "12345678901234567890") {
					t.Errorf("big number not kept exactly: %s", blocks[5].ToolUse.Input)
				}
			},
		},
		{
			name: "adjacent same-role messages merged; blank messages dropped",
			req: model.Request{Model: testModel, Messages: []model.Message{
				user("first"), user("  "), user("second"), assistant(""), assistant("answer"), user("third"),
			}},
			replies:   []reply{converse("end_turn", smallUsage, text("ok"))},
			want:      model.Response{Text: "ok", StopReason: model.StopEnd, Usage: model.Usage{Input: 10, Output: 5, Total: 15}},
			wantCalls: 1,
			check: func(t *testing.T, got received) {
				want := []wireMessage{
					{Role: "user", Content: []wireBlock{{Text: str("first")}, {Text: str("second")}}},
					{Role: "assistant", Content: []wireBlock{{Text: str("answer")}}},
					{Role: "user", Content: []wireBlock{{Text: str("third")}}},
				}
				if diff := cmp.Diff(want, got.body.Messages); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "empty tool result sent as a placeholder, user text after results joins them",
			req: model.Request{Model: testModel, Tools: []model.ToolSpec{weatherTool}, Messages: []model.Message{
				user("go"),
				{Role: model.Assistant, ToolCalls: []model.ToolCall{{ID: "t1", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}},
				{Role: model.ToolResult, ToolCallID: "t1", ToolName: "get_weather", Content: ""},
				user("and tomorrow?"),
			}},
			replies:   []reply{converse("end_turn", smallUsage, text("ok"))},
			want:      model.Response{Text: "ok", StopReason: model.StopEnd, Usage: model.Usage{Input: 10, Output: 5, Total: 15}},
			wantCalls: 1,
			check: func(t *testing.T, got received) {
				if len(got.body.Messages) != 3 {
					t.Fatalf("messages = %s, want 3", js(got.body.Messages))
				}
				want := []wireBlock{
					{ToolResult: &wireToolResult{ToolUseID: "t1", Status: "success", Content: []wireBlock{{Text: str(emptyResult)}}}},
					{Text: str("and tomorrow?")},
				}
				if diff := cmp.Diff(wireMessage{Role: "user", Content: want}, got.body.Messages[2]); diff != "" {
					t.Errorf("last message (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "without tools, past tool calls and results travel as text",
			req: model.Request{Model: testModel, System: "Summarize.", Messages: []model.Message{
				user("weather?"),
				{Role: model.Assistant, Content: "Checking.", ToolCalls: []model.ToolCall{{ID: "t1", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}},
				{Role: model.ToolResult, ToolCallID: "t1", ToolName: "get_weather", Content: "down", IsError: true},
				assistant("It failed."),
			}},
			replies:   []reply{converse("end_turn", smallUsage, text("summary"))},
			want:      model.Response{Text: "summary", StopReason: model.StopEnd, Usage: model.Usage{Input: 10, Output: 5, Total: 15}},
			wantCalls: 1,
			check: func(t *testing.T, got received) {
				want := []wireMessage{
					{Role: "user", Content: []wireBlock{{Text: str("weather?")}}},
					{Role: "assistant", Content: []wireBlock{{Text: str("Checking.")}, {Text: str(`[called tool get_weather with {"city":"Oslo"}]`)}}},
					{Role: "user", Content: []wireBlock{{Text: str("[tool get_weather failed]\ndown")}}},
					{Role: "assistant", Content: []wireBlock{{Text: str("It failed.")}}},
				}
				if diff := cmp.Diff(want, got.body.Messages); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:      "max_tokens is length",
			req:       model.Request{Model: testModel, Messages: []model.Message{user("long")}},
			replies:   []reply{converse("max_tokens", smallUsage, text("cut"))},
			want:      model.Response{Text: "cut", StopReason: model.StopLength, Usage: model.Usage{Input: 10, Output: 5, Total: 15}},
			wantCalls: 1,
		},
		{
			name:      "stop_sequence is a normal stop",
			req:       model.Request{Model: testModel, Messages: []model.Message{user("x")}},
			replies:   []reply{converse("stop_sequence", smallUsage, text("y"))},
			want:      model.Response{Text: "y", StopReason: model.StopEnd, Usage: model.Usage{Input: 10, Output: 5, Total: 15}},
			wantCalls: 1,
		},
		{
			name:      "guardrail_intervened ends the turn with Bedrock's text",
			req:       model.Request{Model: testModel, Messages: []model.Message{user("x")}},
			replies:   []reply{converse("guardrail_intervened", smallUsage, text("Sorry, the model cannot answer this question."))},
			want:      model.Response{Text: "Sorry, the model cannot answer this question.", StopReason: model.StopEnd, Usage: model.Usage{Input: 10, Output: 5, Total: 15}},
			wantCalls: 1,
		},
		{
			name:      "content_filtered with no text ends the turn",
			req:       model.Request{Model: testModel, Messages: []model.Message{user("x")}},
			replies:   []reply{converse("content_filtered", smallUsage)},
			want:      model.Response{StopReason: model.StopEnd, Usage: model.Usage{Input: 10, Output: 5, Total: 15}},
			wantCalls: 1,
		},
		{
			name:      "malformed_tool_use is an error stop",
			req:       model.Request{Model: testModel, Messages: []model.Message{user("x")}},
			replies:   []reply{converse("malformed_tool_use", smallUsage)},
			want:      model.Response{StopReason: model.StopError, Usage: model.Usage{Input: 10, Output: 5, Total: 15}},
			wantCalls: 1,
		},
		{
			name:      "model_context_window_exceeded is length",
			req:       model.Request{Model: testModel, Messages: []model.Message{user("x")}},
			replies:   []reply{converse("model_context_window_exceeded", smallUsage, text("partial"))},
			want:      model.Response{Text: "partial", StopReason: model.StopLength, Usage: model.Usage{Input: 10, Output: 5, Total: 15}},
			wantCalls: 1,
		},
		{
			name:      "several text blocks read as paragraphs",
			req:       model.Request{Model: testModel, Messages: []model.Message{user("x")}},
			replies:   []reply{converse("end_turn", smallUsage, text("one"), text(""), text("two"))},
			want:      model.Response{Text: "one\n\ntwo", StopReason: model.StopEnd, Usage: model.Usage{Input: 10, Output: 5, Total: 15}},
			wantCalls: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeBedrock(t, tc.replies...)
			got, err := srv.client().Complete(context.Background(), tc.req)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			reqs := srv.requests()
			if len(reqs) != tc.wantCalls {
				t.Fatalf("server got %d requests, want %d", len(reqs), tc.wantCalls)
			}
			if tc.check != nil {
				tc.check(t, reqs[0])
			}
		})
	}
}

func TestErrors(t *testing.T) {
	req := model.Request{Model: testModel, Messages: []model.Message{user("hi")}}
	tests := []struct {
		name       string
		req        model.Request
		reply      reply
		wantCode   fault.Code
		overflow   bool   // errors.Is(err, model.ErrContextOverflow)
		wantSubstr string // in the user message
		wantCalls  int
	}{
		{"429 ThrottlingException is rate limited", req,
			awsError(429, "ThrottlingException", "Too many requests, please wait before trying again."),
			fault.RateLimited, false, "Too many requests", 1},
		{"400 ServiceQuotaExceededException is rate limited", req,
			awsError(400, "ServiceQuotaExceededException", "Your request exceeds the service quota for your account."),
			fault.RateLimited, false, "service quota", 1},
		{"bare 429 is rate limited", req,
			reply{status: 429, body: "slow down"},
			fault.RateLimited, false, "HTTP 429", 1},
		{"503 ServiceUnavailableException is unavailable", req,
			awsError(503, "ServiceUnavailableException", "Bedrock is unable to process your request."),
			fault.Unavailable, false, "unable to process", 1},
		{"503 without a JSON body is unavailable", req,
			reply{status: 503, body: "<html>upstream down</html>"},
			fault.Unavailable, false, "", 1},
		{"500 InternalServerException is unavailable", req,
			awsError(500, "InternalServerException", "An internal server error occurred."),
			fault.Unavailable, false, "internal server error", 1},
		{"429 ModelNotReadyException is unavailable", req,
			awsError(429, "ModelNotReadyException", "Model is not ready to serve inference requests."),
			fault.Unavailable, false, "not ready", 1},
		{"408 ModelTimeoutException is unavailable", req,
			awsError(408, "ModelTimeoutException", "Model has timed out in processing the request."),
			fault.Unavailable, false, "timed out", 1},
		{"424 ModelErrorException is unavailable", req,
			awsError(424, "ModelErrorException", "The system encountered an unexpected error during processing."),
			fault.Unavailable, false, "unexpected error", 1},
		{"403 AccessDeniedException is unauthorized", req,
			awsError(403, "AccessDeniedException", "You don't have access to the model with the specified model ID."),
			fault.Unauthorized, false, "bedrock:InvokeModel", 1},
		{"403 UnrecognizedClientException is unauthorized", req,
			awsError(403, "UnrecognizedClientException", "The security token included in the request is invalid."),
			fault.Unauthorized, false, "security token", 1},
		{"404 ResourceNotFoundException is not found", req,
			awsError(404, "ResourceNotFoundException", "Could not resolve the foundation model from the provided model identifier."),
			fault.NotFound, false, testModel, 1},
		{"400 ValidationException is invalid", req,
			awsError(400, "ValidationException", "The model returned the following errors: temperature: range: 0..1"),
			fault.Invalid, false, "temperature: range", 1},
		{"400 code in the __type body field is read too", req,
			reply{status: 400, body: `{"__type":"com.amazonaws.bedrockruntime#ValidationException","message":"Malformed input request"}`},
			fault.Invalid, false, "Malformed input request", 1},
		{"input is too long is a context overflow", req,
			awsError(400, "ValidationException", "Input is too long for requested model."),
			fault.Invalid, true, "too long", 1},
		{"prompt is too long is a context overflow", req,
			awsError(400, "ValidationException", "The model returned the following errors: prompt is too long: 210000 tokens > 200000 maximum"),
			fault.Invalid, true, "210000 tokens", 1},
		{"too many input tokens is a context overflow", req,
			awsError(400, "ValidationException", "Too many input tokens. Max input tokens: 8192, request input token count: 9000"),
			fault.Invalid, true, "8192", 1},
		{"maximum context length is a context overflow", req,
			awsError(400, "ValidationException", "This model's maximum context length is 32768 tokens."),
			fault.Invalid, true, "32768", 1},
		{"unknown role is invalid and sends nothing",
			model.Request{Model: testModel, Messages: []model.Message{{Role: "tool", Content: "x"}}},
			reply{status: 200}, fault.Invalid, false, `unsupported role "tool"`, 0},
		{"empty model is invalid and sends nothing",
			model.Request{Messages: []model.Message{user("hi")}},
			reply{status: 200}, fault.Invalid, false, "no model id", 0},
		{"nothing but blank messages is invalid and sends nothing",
			model.Request{Model: testModel, Messages: []model.Message{user(" "), assistant("")}},
			reply{status: 200}, fault.Invalid, false, "no message with content", 0},
		{"tool schema that is not an object is invalid and sends nothing",
			model.Request{Model: testModel, Messages: []model.Message{user("hi")},
				Tools: []model.ToolSpec{{Name: "bad", Schema: json.RawMessage(`[1]`)}}},
			reply{status: 200}, fault.Invalid, false, `tool "bad"`, 0},
		{"200 without a message is unavailable", req,
			reply{status: 200, body: `{"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":0,"totalTokens":1}}`},
			fault.Unavailable, false, "no message", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeBedrock(t, tc.reply)
			_, err := srv.client().Complete(context.Background(), tc.req)
			checkFault(t, err, tc.wantCode, tc.wantSubstr)
			if got := errors.Is(err, model.ErrContextOverflow); got != tc.overflow {
				t.Errorf("errors.Is(err, ErrContextOverflow) = %v, want %v (err: %v)", got, tc.overflow, err)
			}
			if n := len(srv.requests()); n != tc.wantCalls {
				t.Errorf("server got %d requests, want %d", n, tc.wantCalls)
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
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := New(newRuntime(srv.URL, srv.Client())).Complete(ctx, model.Request{Model: testModel, Messages: []model.Message{user("hi")}})
		checkFault(t, err, fault.Unavailable, "did not answer in time")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want it to wrap context.DeadlineExceeded", err)
		}
	})
	t.Run("refused connection is unavailable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		addr := srv.URL
		srv.Close()
		_, err := New(newRuntime(addr, nil)).Complete(context.Background(), model.Request{Model: testModel, Messages: []model.Message{user("hi")}})
		checkFault(t, err, fault.Unavailable, "could not reach")
	})
}

// TestModelIDEscaping checks that an ARN (with ':' and '/') reaches the
// service intact as the {modelId} path segment.
func TestModelIDEscaping(t *testing.T) {
	arn := "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-test-v1:0"
	srv := newFakeBedrock(t, converse("end_turn", smallUsage, text("ok")))
	var escaped string
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		escaped = r.URL.EscapedPath()
		srv.serve(w, r)
	})
	if _, err := srv.client().Complete(context.Background(), model.Request{Model: arn, Messages: []model.Message{user("hi")}}); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	rest, ok := strings.CutPrefix(escaped, "/model/")
	id, ok2 := strings.CutSuffix(rest, "/converse")
	if !ok || !ok2 {
		t.Fatalf("path = %s, want /model/{modelId}/converse", escaped)
	}
	if got, err := url.PathUnescape(id); err != nil || got != arn {
		t.Errorf("modelId segment %q unescapes to %q, want %q", id, got, arn)
	}
}

// checkFault asserts err's class and that its user message contains substr.
func checkFault(t *testing.T, err error, code fault.Code, substr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("Complete succeeded, want a %s fault", code)
	}
	if got := fault.CodeOf(err); got != code {
		t.Errorf("fault code = %s, want %s (err: %v)", got, code, err)
	}
	if msg := fault.Message(err); !strings.Contains(msg, substr) {
		t.Errorf("message = %q, want it to contain %q", msg, substr)
	}
}

// sameJSON compares JSON texts by value.
func sameJSON(t *testing.T, what string, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	gd := json.NewDecoder(strings.NewReader(string(got)))
	gd.UseNumber()
	wd := json.NewDecoder(strings.NewReader(want))
	wd.UseNumber()
	if err := gd.Decode(&g); err != nil {
		t.Errorf("%s: %s is not JSON: %v", what, got, err)
		return
	}
	if err := wd.Decode(&w); err != nil {
		t.Fatalf("%s: bad expectation %s: %v", what, want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

// js renders v for failure messages.
func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
