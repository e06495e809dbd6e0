package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

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

// wireMessage and wireRequest decode what the adapter sends. Content is a
// string: a content-part array would fail to decode and fail the test.
type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type wireRequest struct {
	Model    string        `json:"model"`
	Messages []wireMessage `json:"messages"`
}

// received is one request as the fake server saw it.
type received struct {
	method, path string
	header       http.Header
	body         wireRequest
}

// fakeServer speaks the Chat Completions wire format under /v1. It answers
// with replies in order (the last one repeats) and records every request.
type fakeServer struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	got     []received
}

func newFakeServer(t *testing.T, replies ...reply) *fakeServer {
	t.Helper()
	f := &fakeServer{replies: replies}
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
	f.mu.Unlock()

	if decodeErr != nil {
		http.Error(w, `{"error":{"message":"test server: bad JSON body","type":"invalid_request_error","code":null}}`, http.StatusBadRequest)
		return
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

// completion is a 200 Chat Completions answer.
func completion(content, finish string, prompt, completionTokens, total int) reply {
	return reply{status: http.StatusOK, body: fmt.Sprintf(`{
  "id": "chatcmpl-123",
  "object": "chat.completion",
  "created": 1700000000,
  "model": "gpt-test",
  "choices": [{"index": 0, "message": {"role": "assistant", "content": %q, "refusal": null}, "logprobs": null, "finish_reason": %q}],
  "usage": {"prompt_tokens": %d, "completion_tokens": %d, "total_tokens": %d}
}`, content, finish, prompt, completionTokens, total)}
}

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
		wantCalls  int
		check      func(t *testing.T, got []received)
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
				if !reflect.DeepEqual(r.body.Messages, want) {
					t.Errorf("messages = %+v, want %+v", r.body.Messages, want)
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
				if !reflect.DeepEqual(got[0].body.Messages, want) {
					t.Errorf("messages = %+v, want %+v", got[0].body.Messages, want)
				}
			},
		},
		{
			name:      "usage mapping",
			req:       history,
			replies:   []reply{completion("ok", "stop", 1234, 56, 1290)},
			want:      model.Response{Text: "ok", StopReason: "stop", Usage: model.Usage{Input: 1234, Output: 56, Total: 1290}},
			wantCalls: 1,
		},
		{
			name:      "total derived when the server omits it",
			req:       history,
			replies:   []reply{completion("ok", "stop", 5, 3, 0)},
			want:      model.Response{Text: "ok", StopReason: "stop", Usage: model.Usage{Input: 5, Output: 3, Total: 8}},
			wantCalls: 1,
		},
		{
			name:      "finish_reason length",
			req:       history,
			replies:   []reply{completion("cut", "length", 1, 1, 2)},
			want:      model.Response{Text: "cut", StopReason: "length", Usage: model.Usage{Input: 1, Output: 1, Total: 2}},
			wantCalls: 1,
		},
		{
			name:      "finish_reason tool_calls",
			req:       history,
			replies:   []reply{completion("", "tool_calls", 1, 1, 2)},
			want:      model.Response{Text: "", StopReason: "toolUse", Usage: model.Usage{Input: 1, Output: 1, Total: 2}},
			wantCalls: 1,
		},
		{
			name:      "finish_reason content_filter",
			req:       history,
			replies:   []reply{completion("", "content_filter", 1, 0, 1)},
			want:      model.Response{Text: "", StopReason: "error", Usage: model.Usage{Input: 1, Output: 0, Total: 1}},
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
			name:       "400 context_length_exceeded is a context overflow",
			req:        history,
			replies:    []reply{apiError(400, "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", "invalid_request_error", "context_length_exceeded")},
			wantCode:   fault.Invalid,
			wantPrefix: "context overflow:",
			wantSubstr: "128000 tokens",
			wantCalls:  1,
		},
		{
			name:       "400 overflow without a code (vLLM) is a context overflow",
			req:        history,
			replies:    []reply{apiError(400, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.", "BadRequestError", "")},
			wantCode:   fault.Invalid,
			wantPrefix: "context overflow:",
			wantCalls:  1,
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
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("response = %+v, want %+v", got, tc.want)
				}
			} else {
				checkFault(t, err, tc.wantCode, tc.wantPrefix, tc.wantSubstr)
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
