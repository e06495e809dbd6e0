package telegram

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
)

const testToken = "7000000001:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"

// botCall is one request the fake Bot API received.
type botCall struct {
	Method string
	Params map[string]json.RawMessage
}

func (c botCall) text(t *testing.T) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(c.Params["text"], &s); err != nil {
		t.Fatalf("text field: %v", err)
	}
	return s
}

// fakeBot speaks the Bot API wire format. It answers with replies in order,
// then with {"ok":true,...} once they run out.
type fakeBot struct {
	t       *testing.T
	mu      sync.Mutex
	calls   []botCall
	replies []string // "<status> <json body>"
}

func newFakeBot(t *testing.T, replies ...string) (*fakeBot, *Client) {
	f := &fakeBot{t: t, replies: replies}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c := NewClient(srv.URL+"/", testToken, srv.Client())
	c.backoff = time.Millisecond
	return f, c
}

func (f *fakeBot) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	method, ok := strings.CutPrefix(r.URL.Path, "/bot"+testToken+"/")
	if !ok || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		f.t.Errorf("unexpected request %s %s (Content-Type %q)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"ok":false,"error_code":404,"description":"Not Found"}`)
		return
	}
	call := botCall{Method: method}
	if err := json.NewDecoder(r.Body).Decode(&call.Params); err != nil {
		f.t.Errorf("request body is not a JSON object: %v", err)
	}
	f.mu.Lock()
	f.calls = append(f.calls, call)
	reply := `200 {"ok":true,"result":{"message_id":1,"date":1767225600,"chat":{"id":1,"type":"private"},"text":"x"}}`
	if len(f.replies) > 0 {
		reply, f.replies = f.replies[0], f.replies[1:]
	}
	f.mu.Unlock()
	status, body, _ := strings.Cut(reply, " ")
	code, err := strconv.Atoi(status)
	if err != nil {
		f.t.Errorf("bad scripted reply %q", reply)
		code = http.StatusTeapot
	}
	w.Header().Set("Content-Type", "application/json")
	if strings.HasPrefix(body, "<") {
		w.Header().Set("Content-Type", "text/html")
	}
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}

func (f *fakeBot) received() []botCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]botCall(nil), f.calls...)
}

func TestClientSend(t *testing.T) {
	tests := []struct {
		name       string
		to         session.DeliveryContext
		text       string
		wantChatID string // raw JSON
		wantThread string // raw JSON, "" when absent
		wantTexts  []string
	}{
		{
			name:       "private chat",
			to:         session.DeliveryContext{Channel: "telegram", To: "123456789"},
			text:       "Hello <Ada> & **welcome**",
			wantChatID: "123456789",
			wantTexts:  []string{"Hello &lt;Ada&gt; &amp; <b>welcome</b>"},
		},
		{
			name:       "forum topic keeps sign and thread",
			to:         session.DeliveryContext{Channel: "telegram", To: "-1009876543210", ThreadID: "42"},
			text:       "In the topic",
			wantChatID: "-1009876543210",
			wantThread: "42",
			wantTexts:  []string{"In the topic"},
		},
		{
			name:       "channel username is sent as a string",
			to:         session.DeliveryContext{To: "@zero_news"},
			text:       "Release",
			wantChatID: `"@zero_news"`,
			wantTexts:  []string{"Release"},
		},
		{
			name:       "empty text sends nothing",
			to:         session.DeliveryContext{To: "1"},
			text:       "",
			wantChatID: "1",
		},
		{
			name:       "long text is split into pieces in order",
			to:         session.DeliveryContext{To: "1"},
			text:       strings.Repeat("a", 4000) + "\n\n" + strings.Repeat("b", 4000) + "\n\n" + strings.Repeat("c", 100),
			wantChatID: "1",
			wantTexts:  []string{strings.Repeat("a", 4000), strings.Repeat("b", 4000), strings.Repeat("c", 100)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bot, c := newFakeBot(t)
			if err := c.Send(context.Background(), tt.to, tt.text); err != nil {
				t.Fatalf("Send: %v", err)
			}
			calls := bot.received()
			if len(calls) != len(tt.wantTexts) {
				t.Fatalf("got %d sendMessage calls, want %d", len(calls), len(tt.wantTexts))
			}
			for i, call := range calls {
				if call.Method != "sendMessage" {
					t.Errorf("call %d: method %q", i, call.Method)
				}
				if got := string(call.Params["chat_id"]); got != tt.wantChatID {
					t.Errorf("call %d: chat_id %s, want %s", i, got, tt.wantChatID)
				}
				if got := string(call.Params["message_thread_id"]); got != tt.wantThread {
					t.Errorf("call %d: message_thread_id %q, want %q", i, got, tt.wantThread)
				}
				if got := string(call.Params["parse_mode"]); got != `"HTML"` {
					t.Errorf("call %d: parse_mode %s, want \"HTML\"", i, got)
				}
				text := call.text(t)
				if text != tt.wantTexts[i] {
					t.Errorf("call %d: text %q, want %q", i, text, tt.wantTexts[i])
				}
				if n := visibleLength(text); n < 1 || n > maxMessageLength {
					t.Errorf("call %d: %d visible characters", i, n)
				}
			}
		})
	}
}

func TestClientSendRejectsBadDelivery(t *testing.T) {
	tests := []struct {
		name string
		to   session.DeliveryContext
	}{
		{"no chat id", session.DeliveryContext{Channel: "telegram"}},
		{"thread id not a number", session.DeliveryContext{To: "1", ThreadID: "general"}},
		{"another channel", session.DeliveryContext{Channel: "discord", To: "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bot, c := newFakeBot(t)
			if err := c.Send(context.Background(), tt.to, "hi"); !fault.Is(err, fault.Invalid) {
				t.Errorf("Send = %v, want fault.Invalid", err)
			}
			if n := len(bot.received()); n != 0 {
				t.Errorf("%d calls made for a bad delivery context", n)
			}
		})
	}
}

func TestClientSendErrors(t *testing.T) {
	tests := []struct {
		name      string
		replies   []string
		timeout   time.Duration
		wantCode  fault.Code // "" means success
		wantCalls int
		wantInErr string
	}{
		{
			name:      "chat not found is invalid",
			replies:   []string{`400 {"ok":false,"error_code":400,"description":"Bad Request: chat not found"}`},
			wantCode:  fault.Invalid,
			wantCalls: 1,
			wantInErr: "Bad Request: chat not found",
		},
		{
			name:      "bad token is unauthorized",
			replies:   []string{`401 {"ok":false,"error_code":401,"description":"Unauthorized"}`},
			wantCode:  fault.Unauthorized,
			wantCalls: 1,
			wantInErr: "401 Unauthorized",
		},
		{
			name:      "blocked by the user is not found (the recipient is gone)",
			replies:   []string{`403 {"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}`},
			wantCode:  fault.NotFound,
			wantCalls: 1,
			wantInErr: "bot was blocked by the user",
		},
		{
			name:      "unknown token path is unauthorized",
			replies:   []string{`404 {"ok":false,"error_code":404,"description":"Not Found"}`},
			wantCode:  fault.Unauthorized,
			wantCalls: 1,
			wantInErr: "Not Found",
		},
		{
			name:      "5xx is retried then unavailable",
			replies:   []string{`500 {"ok":false,"error_code":500,"description":"Internal Server Error"}`, `502 <html>bad gateway</html>`, `500 {}`},
			wantCode:  fault.Unavailable,
			wantCalls: 3,
			wantInErr: "500",
		},
		{
			name:      "5xx then success",
			replies:   []string{`502 <html>bad gateway</html>`},
			wantCalls: 2,
		},
		{
			name:      "429 longer than the deadline is rate limited at once",
			replies:   []string{`429 {"ok":false,"error_code":429,"description":"Too Many Requests: retry after 30","parameters":{"retry_after":30}}`},
			timeout:   2 * time.Second,
			wantCode:  fault.RateLimited,
			wantCalls: 1,
			wantInErr: "retry after 30s",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bot, c := newFakeBot(t, tt.replies...)
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			start := time.Now()
			err := c.Send(ctx, session.DeliveryContext{To: "123"}, "hi")
			if elapsed := time.Since(start); elapsed > time.Second {
				t.Errorf("Send took %s; it should not wait here", elapsed)
			}
			if got := fault.CodeOf(err); got != tt.wantCode {
				t.Fatalf("Send error %v (class %q), want class %q", err, got, tt.wantCode)
			}
			if n := len(bot.received()); n != tt.wantCalls {
				t.Errorf("%d calls, want %d", n, tt.wantCalls)
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantInErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantInErr)
			}
			if err != nil && strings.Contains(err.Error(), testToken) {
				t.Errorf("error leaks the token: %q", err)
			}
		})
	}
}

func TestClientSendWaitsOut429(t *testing.T) {
	bot, c := newFakeBot(t,
		`429 {"ok":false,"error_code":429,"description":"Too Many Requests: retry after 1","parameters":{"retry_after":1}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := c.Send(ctx, session.DeliveryContext{To: "123"}, "after the wait"); err != nil {
		t.Fatalf("Send: %v", err)
	}
	if elapsed := time.Since(start); elapsed < time.Second {
		t.Errorf("retried after %s, before retry_after (1s)", elapsed)
	}
	calls := bot.received()
	if len(calls) != 2 || calls[1].text(t) != "after the wait" {
		t.Fatalf("calls = %+v, want the same message twice", calls)
	}
}

func TestClientNetworkErrorHidesToken(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // connection refused from now on
	c := NewClient(base, testToken, nil)
	c.backoff = time.Millisecond
	err := c.Send(context.Background(), session.DeliveryContext{To: "1"}, "hi")
	if !fault.Is(err, fault.Unavailable) {
		t.Fatalf("Send = %v, want fault.Unavailable", err)
	}
	if strings.Contains(err.Error(), testToken) || strings.Contains(err.Error(), "AAHdqTcv") {
		t.Errorf("error leaks the token: %q", err)
	}
	if !strings.Contains(err.Error(), "/bot<token>/sendMessage") {
		t.Errorf("error %q should still show the redacted URL", err)
	}
}

func TestSetWebhook(t *testing.T) {
	tests := []struct {
		name     string
		secret   string
		wantCode fault.Code
	}{
		{name: "valid secret", secret: "dev-secret_123"},
		{name: "empty secret", secret: "", wantCode: fault.Invalid},
		{name: "secret with a space", secret: "dev secret", wantCode: fault.Invalid},
		{name: "secret too long", secret: strings.Repeat("s", 257), wantCode: fault.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bot, c := newFakeBot(t, `200 {"ok":true,"result":true,"description":"Webhook was set"}`)
			err := c.SetWebhook(context.Background(), "https://example.com/webhooks/telegram", tt.secret)
			if got := fault.CodeOf(err); got != tt.wantCode {
				t.Fatalf("SetWebhook = %v, want class %q", err, tt.wantCode)
			}
			calls := bot.received()
			if tt.wantCode != "" {
				if len(calls) != 0 {
					t.Errorf("setWebhook called with an invalid secret")
				}
				if err != nil && tt.secret != "" && strings.Contains(err.Error(), tt.secret) {
					t.Errorf("error leaks the secret: %q", err)
				}
				return
			}
			if len(calls) != 1 || calls[0].Method != "setWebhook" {
				t.Fatalf("calls = %+v, want one setWebhook", calls)
			}
			p := calls[0].Params
			for field, want := range map[string]string{
				"url":             `"https://example.com/webhooks/telegram"`,
				"secret_token":    `"dev-secret_123"`,
				"allowed_updates": `["message","channel_post"]`,
			} {
				if got := string(p[field]); got != want {
					t.Errorf("%s = %s, want %s", field, got, want)
				}
			}
		})
	}
}

func TestClientRenderThenPost(t *testing.T) {
	f, c := newFakeBot(t)
	msgs := c.Render("a <b> & **bold**\n\n" + strings.Repeat("word ", 1000))
	if len(msgs) != 2 || !strings.HasPrefix(msgs[0], "a &lt;b&gt; &amp; <b>bold</b>") {
		t.Fatalf("Render = %d messages starting %.40q; want 2, the first escaped and styled", len(msgs), msgs[0])
	}
	to := session.DeliveryContext{Channel: "telegram", To: "42", ThreadID: "3"}
	for _, m := range msgs {
		if err := c.Post(context.Background(), to, m); err != nil {
			t.Fatalf("Post: %v", err)
		}
	}
	if len(f.calls) != 2 {
		t.Fatalf("%d calls; want 2", len(f.calls))
	}
	for i, call := range f.calls {
		// Post sends the rendered message verbatim: no second escaping.
		if call.Method != "sendMessage" || call.text(t) != msgs[i] || string(call.Params["chat_id"]) != "42" || string(call.Params["message_thread_id"]) != "3" {
			t.Fatalf("call %d = %s %v; want sendMessage of message %d to 42/3", i, call.Method, call.Params, i)
		}
	}
}
