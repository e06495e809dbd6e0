// Package webchat is the WebChat channel: the chat box of the control page
// served by the gateway (shared/webui). A WebChat message is sent through
// the gateway's agent method with channel "webchat"; it goes through the
// ingest door as the operator's and its turn is recorded like any
// channel's. The reply is not pushed anywhere: the page reads it with
// agent.wait and chat.history, so the runner's sender for the channel
// delivers nothing.
//
// It is core: the standard library and ZERO's core packages only.
package webchat

import (
	"context"

	"github.com/zero-gateway/zero/shared/session"
)

// Channel is the channel name WebChat messages carry.
const Channel = "webchat"

// To is the recipient a WebChat message's delivery context names: the
// page, which polls for the reply.
const To = "webchat"

// Sender is the runner's sender for Channel (turn.Sender): the reply stays
// in the transcript and the message record, where the page reads it.
type Sender struct{}

// Render returns the reply as one message: the page renders Markdown
// itself and has no length limit.
func (Sender) Render(text string) []string { return []string{text} }

// Post delivers nothing: the page fetches the reply through the gateway.
func (Sender) Post(context.Context, session.DeliveryContext, string) error { return nil }
