package openai

import (
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/rotating"
	"github.com/zero-gateway/zero/shared/secret"
)

// RotatingClient is a model.Client for the OpenAI-compatible API that follows the API key
// (rotating.Model): every call goes through the Client built from the key
// in force. Current tells at cold start whether the provider is configured.
type RotatingClient = rotating.Model[*Client]

var _ model.Client = (*RotatingClient)(nil)

// NewRotatingClient returns the client of cfg whose APIKey is the one keys
// gives (secret.OpenAIAPIKey; "" when it is not set, which only a server other
// than api.openai.com accepts: see New).
func NewRotatingClient(keys secret.Getter, cfg Config) *RotatingClient {
	return rotating.NewModel(keys, secret.OpenAIAPIKey, func(key string) (*Client, error) {
		c := cfg
		c.APIKey = key
		return New(c)
	})
}
