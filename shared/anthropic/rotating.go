package anthropic

import (
	"context"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/secret"
)

// RotatingClient is a model.Client for Anthropic's Messages API that follows the API key:
// every call goes through the Client built from the key in force
// (secret.Derived), built again when a re-read finds the key rotated.
// Safe for concurrent use.
type RotatingClient struct {
	client *secret.Derived[*Client]
}

var _ model.Client = (*RotatingClient)(nil)

// NewRotatingClient returns the client of cfg whose APIKey is the one keys
// gives (secret.AnthropicAPIKey; "" when it is not set, which only a server other
// than api.anthropic.com accepts: see New).
func NewRotatingClient(keys secret.Getter, cfg Config) *RotatingClient {
	return &RotatingClient{client: secret.Derive(secret.OrEmpty(keys), secret.AnthropicAPIKey, func(key string) (*Client, error) {
		c := cfg
		c.APIKey = key
		return New(c)
	})}
}

// Current is the Client of the key in force: the error is New's, or names
// the secret when it cannot be read. At cold start it tells whether the
// provider is configured.
func (r *RotatingClient) Current(ctx context.Context) (*Client, error) { return r.client.Get(ctx) }

// Complete is Client.Complete with the key in force.
func (r *RotatingClient) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	c, err := r.Current(ctx)
	if err != nil {
		return model.Response{}, err
	}
	return c.Complete(ctx, req)
}
