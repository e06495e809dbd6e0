// Package rotating holds the clients that follow a secret: every call goes
// through the client built from the secret's value in force
// (secret.Derived), built again when a re-read finds the value rotated.
// Model follows a model provider's API key, Chat a channel's bot token;
// the adapters build the client and add what needs no secret.
package rotating

import (
	"context"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/secret"
)

// Model is a model.Client that follows an API key. Safe for concurrent use.
type Model[C model.Client] struct {
	client *secret.Derived[C]
}

// NewModel returns the client build makes from the key keys gives for
// spec ("" when it is not set: the key is optional, and only a server
// that needs none accepts the client).
func NewModel[C model.Client](keys secret.Getter, spec secret.Spec, build func(key string) (C, error)) *Model[C] {
	return &Model[C]{client: secret.Derive(secret.OrEmpty(keys), spec, build)}
}

// Current is the client of the key in force: the error is build's, or
// names the secret when it cannot be read. At cold start it tells whether
// the provider is configured.
func (r *Model[C]) Current(ctx context.Context) (C, error) { return r.client.Get(ctx) }

// Complete is the client's Complete with the key in force.
func (r *Model[C]) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	c, err := r.Current(ctx)
	if err != nil {
		return model.Response{}, err
	}
	return c.Complete(ctx, req)
}

// Stream is the client's streamed call with the key in force
// (model.CompleteStreaming: Complete and one delta when the client does
// not stream).
func (r *Model[C]) Stream(ctx context.Context, req model.Request, sink model.TextSink) (model.Response, error) {
	c, err := r.Current(ctx)
	if err != nil {
		return model.Response{}, err
	}
	return model.CompleteStreaming(ctx, c, req, sink)
}
