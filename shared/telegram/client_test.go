package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
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
// then with {"ok":true,...} once they run out. A reply is "<status> <json
// body>", or "hang" (never answer) or "reset" (close the connection without
// an answer); either way the request was read whole and counted.
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
	switch reply {
	case "hang":
		// Telegram got the request and is slow to answer: wait until the
		// client gives up.
		<-r.Context().Done()
		return
	case "reset":
		// Telegram got the request, then the connection breaks before an
		// answer.
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			f.t.Errorf("hijack: %v", err)
			return
		}
		if tcp, ok := conn.(*net.TCPConn); ok {
			_ = tcp.SetLinger(0) // RST, not FIN
		}
		_ = conn.Close()
		return
	}
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

func TestClientNetworkErrorHidesToken(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // connection refused from now on
	c := NewClient(base, testToken, nil)
	c.backoff = time.Millisecond
	err := c.Send(context.Background(), session.DeliveryContext{To: "1"}, "hi")
	if !fault.Is(err, fault.Unavailable) || errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("Send = %v, want fault.Unavailable, and not an unknown outcome (nothing was sent)", err)
	}
	if strings.Contains(err.Error(), testToken) || strings.Contains(err.Error(), "AAHdqTcv") {
		t.Errorf("error leaks the token: %q", err)
	}
	if !strings.Contains(err.Error(), "/bot<token>/sendMessage") {
		t.Errorf("error %q should still show the redacted URL", err)
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
