package main

import (
	"context"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/turn"
)

// attachmentsOf returns the senders that can fetch a message's attachments
// (turn.AttachmentSource), by channel: Telegram's and Discord's.
func attachmentsOf(senders map[string]turn.Sender) map[string]turn.AttachmentSource {
	return sendersThatAre[turn.AttachmentSource](senders)
}

// FetchAttachment downloads a Telegram attachment (getFile, then the file)
// with the bot token in force.
func (s *telegramSender) FetchAttachment(ctx context.Context, a inbound.Attachment, maxBytes int64) ([]byte, error) {
	c, err := s.client.Get(ctx)
	if err != nil {
		return nil, err
	}
	return c.FetchAttachment(ctx, a, maxBytes)
}

// FetchAttachment downloads a Discord attachment from its CDN URL (signed;
// no bot token is needed, so it works without one).
func (s *discordSender) FetchAttachment(ctx context.Context, a inbound.Attachment, maxBytes int64) ([]byte, error) {
	c, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	return c.FetchAttachment(ctx, a, maxBytes)
}
