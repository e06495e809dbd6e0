package telegram

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/session"
)

// tokenBox is a secret.Getter whose bot token a test can change ("":
// not set).
type tokenBox struct {
	mu    sync.Mutex
	token string
}

func (b *tokenBox) Get(_ context.Context, s secret.Spec) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.token == "" {
		return "", fault.New(fault.NotFound, "secret %s is not set", s.Name)
	}
	return b.token, nil
}

func (b *tokenBox) set(token string) {
	b.mu.Lock()
	b.token = token
	b.mu.Unlock()
}

// TestRotatingClientFollowsTheToken: each call goes out with the token in
// force; without one the call fails naming the secret, and nothing is
// sent.
func TestRotatingClientFollowsTheToken(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		fmt.Fprint(w, `{"ok":true,"result":{"message_id":1,"date":1,"chat":{"id":7,"type":"private"}}}`)
	}))
	defer srv.Close()
	tokens := &tokenBox{}
	c := NewRotatingClient(tokens, srv.URL, nil)
	to := session.DeliveryContext{Channel: "telegram", To: "7"}
	tests := []struct {
		name     string
		token    string
		wantPath string // "": the call fails
	}{
		{name: "first token", token: "1:old", wantPath: "/bot1:old/sendMessage"},
		{name: "rotated", token: "1:new", wantPath: "/bot1:new/sendMessage"},
		{name: "deleted", token: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tokens.set(tt.token)
			paths = nil
			err := c.Post(context.Background(), to, "hi")
			if tt.wantPath == "" {
				if err == nil || !strings.Contains(err.Error(), secret.TelegramBotToken.Name) || len(paths) != 0 {
					t.Fatalf("Post = %v, sent %v; want an error naming the secret and nothing sent", err, paths)
				}
				return
			}
			if err != nil || len(paths) != 1 || paths[0] != tt.wantPath {
				t.Fatalf("Post = %v, sent %v; want one call to %s", err, paths, tt.wantPath)
			}
		})
	}
	if (&RotatingClient{}).Supports("thread-list") || !(&RotatingClient{}).Supports("send") {
		t.Error("Supports needs no token: send, not thread-list")
	}
}
