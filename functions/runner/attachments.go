package main

import (
	"github.com/zero-gateway/zero/shared/turn"
)

// attachmentsOf returns the senders that can fetch a message's attachments
// (turn.AttachmentSource), by channel: Telegram's and Discord's.
func attachmentsOf(senders map[string]turn.Sender) map[string]turn.AttachmentSource {
	return sendersThatAre[turn.AttachmentSource](senders)
}
