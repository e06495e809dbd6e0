package telegram

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/telegram/telegramtest"
)

// TestTyping: Typing is one sendChatAction "typing" to the chat and its
// forum topic, on the fake that refuses what Telegram refuses.
func TestTyping(t *testing.T) {
	for _, tc := range []struct {
		name string
		to   session.DeliveryContext
		want []telegramtest.ChatAction
	}{
		{"a private chat", session.DeliveryContext{Channel: Channel, To: "42"},
			[]telegramtest.ChatAction{{ChatID: "42", Action: "typing"}}},
		{"a forum topic", session.DeliveryContext{Channel: Channel, To: "-1001", ThreadID: "7"},
			[]telegramtest.ChatAction{{ChatID: "-1001", MessageThreadID: 7, Action: "typing"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := telegramtest.New(t, "123:abc")
			c := NewClient(fake.URL, "123:abc", fake.Client())
			if err := c.Typing(context.Background(), tc.to); err != nil {
				t.Fatalf("Typing: %v", err)
			}
			if diff := cmp.Diff(tc.want, fake.ChatActions(), cmpopts.IgnoreFields(telegramtest.ChatAction{}, "At")); diff != "" {
				t.Errorf("chat actions (-want +got):\n%s", diff)
			}
			if got := fake.Messages(); len(got) != 0 {
				t.Errorf("typing sent messages: %v", got)
			}
		})
	}
}

// TestTypingNeverWaits: a refused or rate-limited typing comes back at
// once, classified, after one request: the turn is never held back.
func TestTypingNeverWaits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   fault.Code
	}{
		{"rate limited", http.StatusTooManyRequests, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 30","parameters":{"retry_after":30}}`, fault.RateLimited},
		{"bot blocked", http.StatusForbidden, `{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}`, fault.NotFound},
		{"server error", http.StatusBadGateway, `{"ok":false,"error_code":502,"description":"Bad Gateway"}`, fault.Unavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls++
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			c := NewClient(srv.URL, "123:abc", srv.Client())
			start := time.Now()
			err := c.Typing(context.Background(), session.DeliveryContext{Channel: Channel, To: "42"})
			if err == nil || time.Since(start) > time.Second || calls != 1 {
				t.Fatalf("Typing = %v after %s and %d requests; want an error at once after one", err, time.Since(start), calls)
			}
			if got := fault.CodeOf(err); got != tc.want {
				t.Errorf("class %v, want %v (%v)", got, tc.want, err)
			}
		})
	}
}
