package main

import (
	"context"

	"github.com/zero-gateway/zero/shared/chataction"
	"github.com/zero-gateway/zero/shared/discord"
	"github.com/zero-gateway/zero/shared/telegram"
	"github.com/zero-gateway/zero/shared/turn"
)

// messengersOf is the message tool's channels: every reply sender that is
// also a turn.Messenger (Telegram, and Discord where it is configured),
// each acting with the token in force.
func messengersOf(senders map[string]turn.Sender) map[string]turn.Messenger {
	return sendersThatAre[turn.Messenger](senders)
}

// sendersThatAre returns, by channel, the senders that also implement T.
func sendersThatAre[T any](senders map[string]turn.Sender) map[string]T {
	out := map[string]T{}
	for channel, s := range senders {
		if t, ok := s.(T); ok {
			out[channel] = t
		}
	}
	return out
}

// Supports needs no token: every client supports the same actions.
func (s *telegramSender) Supports(action string) bool {
	return telegram.NewClient("", "", nil).Supports(action)
}

// Do runs a message tool action with the bot token in force.
func (s *telegramSender) Do(ctx context.Context, a chataction.Action) (chataction.Result, error) {
	c, err := s.client.Get(ctx)
	if err != nil {
		return chataction.Result{}, err
	}
	return c.Do(ctx, a)
}

// Supports needs no token; Do answers when the bot token is missing.
func (s *discordSender) Supports(action string) bool {
	return discord.NewClient(discord.ClientConfig{}).Supports(action)
}

// Do runs a message tool action with the bot token in force.
func (s *discordSender) Do(ctx context.Context, a chataction.Action) (chataction.Result, error) {
	c, err := s.current(ctx)
	if err != nil {
		return chataction.Result{}, err
	}
	return c.Do(ctx, a)
}
