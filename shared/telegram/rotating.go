package telegram

import (
	"net/http"

	"github.com/zero-gateway/zero/shared/rotating"
	"github.com/zero-gateway/zero/shared/secret"
)

// RotatingClient is a Client that follows the bot token (rotating.Chat):
// every call goes through the Client built from the token in force, built
// again when a re-read finds the token rotated. It has Client's reply,
// message tool and attachment methods (the runner's sender for channel
// telegram; FetchAttachment is getFile, then the file). Safe for
// concurrent use; the zero value renders and reports Supports, but its
// calls panic.
type RotatingClient struct {
	rotating.Chat[*Client]
}

// NewRotatingClient returns the client of the bot whose token tokens gives
// (secret.TelegramBotToken), on baseURL ("": DefaultBaseURL) through
// httpClient (nil: see NewClient).
func NewRotatingClient(tokens secret.Getter, baseURL string, httpClient *http.Client) *RotatingClient {
	return &RotatingClient{rotating.NewChat(tokens, secret.TelegramBotToken, func(token string) (*Client, error) {
		return NewClient(baseURL, token, httpClient), nil
	})}
}

// Render is Client.Render: it needs no token.
func (r *RotatingClient) Render(text string) []string { return formatHTML(text, maxMessageLength) }
