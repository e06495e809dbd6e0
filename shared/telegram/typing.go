package telegram

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/zero-gateway/zero/shared/fault"

	"github.com/zero-gateway/zero/shared/session"
)

// ActionTyping is the sendChatAction action that shows "typing…": Telegram
// shows it for about 5 s, or until the bot's next message arrives.
const ActionTyping = "typing"

type chatActionParams struct {
	ChatID          any    `json:"chat_id"`
	MessageThreadID int64  `json:"message_thread_id,omitempty"`
	Action          string `json:"action"`
}

// Typing shows "typing…" in the chat (and forum topic) of to with
// sendChatAction. It makes one request and never retries or waits: a
// missed typing is harmless and the caller's next tick sends another, so
// a slow or rate-limited Telegram never holds a turn back. Errors are
// classified (fault.RateLimited for a 429, fault.Invalid for a bad chat
// id, fault.NotFound for a chat the bot may not write to, fault.Unavailable
// for no answer or a 5xx).
// Repeating it changes nothing.
func (c *Client) Typing(ctx context.Context, to session.DeliveryContext) error {
	send, err := sendParams(to)
	if err != nil {
		return err
	}
	body, err := json.Marshal(chatActionParams{ChatID: send.ChatID, MessageThreadID: send.MessageThreadID, Action: ActionTyping})
	if err != nil {
		return fault.Wrap(fault.Internal, err, "telegram sendChatAction: encode request")
	}
	a := c.do(ctx, "sendChatAction", body)
	switch {
	case a.err != nil:
		return a.err
	case a.resp.ErrorCode == http.StatusTooManyRequests:
		return fault.New(fault.RateLimited, "telegram sendChatAction: rate limited, retry after %s", a.resp.retryAfter())
	case !a.resp.OK:
		return a.resp.err("sendChatAction")
	}
	return nil
}

// Typing is Client.Typing with the token in force.
func (r *RotatingClient) Typing(ctx context.Context, to session.DeliveryContext) error {
	c, err := r.Current(ctx)
	if err != nil {
		return err
	}
	return c.Typing(ctx, to)
}
