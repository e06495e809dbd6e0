package discord_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/discord"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/session"
)

// botToken is a secret.Getter with one bot token.
type botToken string

func (b botToken) Get(context.Context, secret.Spec) (string, error) { return string(b), nil }

// TestRotatingClient: a message past its interaction token goes out with
// the bot token in force; without a bot token getter it cannot go out.
func TestRotatingClient(t *testing.T) {
	to := session.DeliveryContext{Channel: discord.Channel, To: "100"}
	tests := []struct {
		name     string
		tokens   secret.Getter
		wantAuth string // "": the post fails for want of a bot token
	}{
		{name: "bot token", tokens: botToken("bot-token"), wantAuth: "Bot bot-token"},
		{name: "no bot token", tokens: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeDiscord{}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			c := discord.NewRotatingClient(tt.tokens, discord.ClientConfig{BaseURL: srv.URL, ApplicationID: "999"})
			err := c.Post(context.Background(), to, "hi")
			if tt.wantAuth == "" {
				if err == nil || len(fake.calls) != 0 {
					t.Fatalf("Post = %v with calls %v; want an error and no call", err, fake.calls)
				}
				return
			}
			if err != nil || len(fake.calls) != 1 || fake.calls[0].Auth != tt.wantAuth {
				t.Fatalf("Post = %v with calls %+v; want one call as %q", err, fake.calls, tt.wantAuth)
			}
		})
	}
	if !strings.Contains(strings.Join((&discord.RotatingClient{}).Render("a b"), ""), "a b") {
		t.Error("Render needs no token")
	}
}
