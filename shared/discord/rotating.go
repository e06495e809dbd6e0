package discord

import (
	"context"

	"github.com/zero-gateway/zero/shared/chataction"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/session"
)

// RotatingClient is a Client that follows the bot token: every call goes
// through the Client built from the token in force (secret.Derived),
// built again when a re-read finds the token rotated. Without a bot token
// (it is optional) only the interaction webhooks work, for 15 minutes
// after each interaction. It has Client's reply, message tool and
// attachment methods (the runner's sender for channel discord). Safe for
// concurrent use; the zero value renders and reports Supports, but its
// calls panic.
type RotatingClient struct {
	client *secret.Derived[*Client]
}

// NewRotatingClient returns the client of cfg whose BotToken is the one
// tokens gives (secret.DiscordBotToken; "" when it is not set); a nil
// tokens gives none.
func NewRotatingClient(tokens secret.Getter, cfg ClientConfig) *RotatingClient {
	if tokens == nil {
		tokens = noToken{}
	}
	return &RotatingClient{client: secret.Derive(secret.OrEmpty(tokens), secret.DiscordBotToken, func(token string) (*Client, error) {
		c := cfg
		c.BotToken = token
		return NewClient(c), nil
	})}
}

// noToken is a getter with no bot token ("").
type noToken struct{}

func (noToken) Get(context.Context, secret.Spec) (string, error) { return "", nil }

// Current is the Client of the token in force; the error names the
// secret when it cannot be read.
func (r *RotatingClient) Current(ctx context.Context) (*Client, error) { return r.client.Get(ctx) }

// Render is Client.Render: it needs no token.
func (r *RotatingClient) Render(text string) []string { return split(text, MaxMessageLength) }

// Post is Client.Post with the token in force.
func (r *RotatingClient) Post(ctx context.Context, to session.DeliveryContext, message string) error {
	c, err := r.Current(ctx)
	if err != nil {
		return err
	}
	return c.Post(ctx, to, message)
}

// PostPart is Client.PostPart with the token in force.
func (r *RotatingClient) PostPart(ctx context.Context, to session.DeliveryContext, part int, message string) error {
	c, err := r.Current(ctx)
	if err != nil {
		return err
	}
	return c.PostPart(ctx, to, part, message)
}

// Supports is Client.Supports: it needs no token; Do answers when the bot
// token is missing.
func (r *RotatingClient) Supports(action string) bool { return (*Client)(nil).Supports(action) }

// Do is Client.Do with the token in force.
func (r *RotatingClient) Do(ctx context.Context, a chataction.Action) (chataction.Result, error) {
	c, err := r.Current(ctx)
	if err != nil {
		return chataction.Result{}, err
	}
	return c.Do(ctx, a)
}

// FetchAttachment is Client.FetchAttachment: from the attachment's signed
// CDN URL, so it works without a bot token.
func (r *RotatingClient) FetchAttachment(ctx context.Context, a inbound.Attachment, maxBytes int64) ([]byte, error) {
	c, err := r.Current(ctx)
	if err != nil {
		return nil, err
	}
	return c.FetchAttachment(ctx, a, maxBytes)
}
