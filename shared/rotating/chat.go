package rotating

import (
	"context"

	"github.com/zero-gateway/zero/shared/chataction"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/session"
)

// ChatClient is what Chat forwards to: a channel's reply, message tool and
// attachment methods. Supports must answer on C's zero value (a nil
// pointer): it needs no token.
type ChatClient interface {
	Post(ctx context.Context, to session.DeliveryContext, message string) error
	Supports(action string) bool
	Do(ctx context.Context, a chataction.Action) (chataction.Result, error)
	FetchAttachment(ctx context.Context, a inbound.Attachment, maxBytes int64) ([]byte, error)
}

// Chat is a channel client that follows the bot token. Safe for concurrent
// use; the zero value reports Supports, but its calls panic.
type Chat[C ChatClient] struct {
	client *secret.Derived[C]
}

// NewChat returns the client build makes from the bot token tokens gives
// for spec.
func NewChat[C ChatClient](tokens secret.Getter, spec secret.Spec, build func(token string) (C, error)) Chat[C] {
	return Chat[C]{client: secret.Derive(tokens, spec, build)}
}

// Current is the client of the token in force; the error names the
// secret when it cannot be read.
func (r *Chat[C]) Current(ctx context.Context) (C, error) { return r.client.Get(ctx) }

// Post is the client's Post with the token in force.
func (r *Chat[C]) Post(ctx context.Context, to session.DeliveryContext, message string) error {
	c, err := r.Current(ctx)
	if err != nil {
		return err
	}
	return c.Post(ctx, to, message)
}

// Supports is the client's Supports, asked of C's zero value: it needs no
// token.
func (r *Chat[C]) Supports(action string) bool {
	var c C
	return c.Supports(action)
}

// Do is the client's Do with the token in force.
func (r *Chat[C]) Do(ctx context.Context, a chataction.Action) (chataction.Result, error) {
	c, err := r.Current(ctx)
	if err != nil {
		return chataction.Result{}, err
	}
	return c.Do(ctx, a)
}

// FetchAttachment is the client's FetchAttachment with the token in force.
func (r *Chat[C]) FetchAttachment(ctx context.Context, a inbound.Attachment, maxBytes int64) ([]byte, error) {
	c, err := r.Current(ctx)
	if err != nil {
		return nil, err
	}
	return c.FetchAttachment(ctx, a, maxBytes)
}
