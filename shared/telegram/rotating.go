package telegram

import (
	"context"
	"net/http"

	"github.com/zero-gateway/zero/shared/chataction"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/session"
)

// RotatingClient is a Client that follows the bot token: every call goes
// through the Client built from the token in force (secret.Derived),
// built again when a re-read finds the token rotated. It has Client's
// reply, message tool and attachment methods (the runner's sender for
// channel telegram). Safe for concurrent use; the zero value renders and
// reports Supports, but its calls panic.
type RotatingClient struct {
	client *secret.Derived[*Client]
}

// NewRotatingClient returns the client of the bot whose token tokens gives
// (secret.TelegramBotToken), on baseURL ("": DefaultBaseURL) through
// httpClient (nil: see NewClient).
func NewRotatingClient(tokens secret.Getter, baseURL string, httpClient *http.Client) *RotatingClient {
	return &RotatingClient{client: secret.Derive(tokens, secret.TelegramBotToken, func(token string) (*Client, error) {
		return NewClient(baseURL, token, httpClient), nil
	})}
}

// Current is the Client of the token in force; the error names the
// secret when it cannot be read.
func (r *RotatingClient) Current(ctx context.Context) (*Client, error) { return r.client.Get(ctx) }

// Render is Client.Render: it needs no token.
func (r *RotatingClient) Render(text string) []string { return formatHTML(text, maxMessageLength) }

// Post is Client.Post with the token in force.
func (r *RotatingClient) Post(ctx context.Context, to session.DeliveryContext, message string) error {
	c, err := r.Current(ctx)
	if err != nil {
		return err
	}
	return c.Post(ctx, to, message)
}

// Supports is Client.Supports: it needs no token.
func (r *RotatingClient) Supports(action string) bool { return (*Client)(nil).Supports(action) }

// Do is Client.Do with the token in force.
func (r *RotatingClient) Do(ctx context.Context, a chataction.Action) (chataction.Result, error) {
	c, err := r.Current(ctx)
	if err != nil {
		return chataction.Result{}, err
	}
	return c.Do(ctx, a)
}

// FetchAttachment is Client.FetchAttachment (getFile, then the file) with
// the token in force.
func (r *RotatingClient) FetchAttachment(ctx context.Context, a inbound.Attachment, maxBytes int64) ([]byte, error) {
	c, err := r.Current(ctx)
	if err != nil {
		return nil, err
	}
	return c.FetchAttachment(ctx, a, maxBytes)
}
