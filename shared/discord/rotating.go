package discord

import (
	"context"

	"github.com/zero-gateway/zero/shared/rotating"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/session"
)

// RotatingClient is a Client that follows the bot token (rotating.Chat):
// every call goes through the Client built from the token in force, built
// again when a re-read finds the token rotated. Without a bot token (it
// is optional) only the interaction webhooks work, for 15 minutes after
// each interaction. It has Client's reply, message tool and attachment
// methods (the runner's sender for channel discord); Do answers when the
// bot token is missing, and FetchAttachment works without one (the
// attachment's signed CDN URL). Safe for concurrent use; the zero value
// renders and reports Supports, but its calls panic.
type RotatingClient struct {
	rotating.Chat[*Client]
}

// NewRotatingClient returns the client of cfg whose BotToken is the one
// tokens gives (secret.DiscordBotToken; "" when it is not set); a nil
// tokens gives none.
func NewRotatingClient(tokens secret.Getter, cfg ClientConfig) *RotatingClient {
	if tokens == nil {
		tokens = noToken{}
	}
	return &RotatingClient{rotating.NewChat(secret.OrEmpty(tokens), secret.DiscordBotToken, func(token string) (*Client, error) {
		c := cfg
		c.BotToken = token
		return NewClient(c), nil
	})}
}

// noToken is a getter with no bot token ("").
type noToken struct{}

func (noToken) Get(context.Context, secret.Spec) (string, error) { return "", nil }

// Render is Client.Render: it needs no token.
func (r *RotatingClient) Render(text string) []string { return split(text, MaxMessageLength) }

// PostPart is Client.PostPart with the token in force.
func (r *RotatingClient) PostPart(ctx context.Context, to session.DeliveryContext, part int, message string) error {
	c, err := r.Current(ctx)
	if err != nil {
		return err
	}
	return c.PostPart(ctx, to, part, message)
}
