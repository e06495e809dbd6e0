package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/zero-gateway/zero/functions/internal/settings"
	"github.com/zero-gateway/zero/shared/discord"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/telegram"
	"github.com/zero-gateway/zero/shared/turn"
	"github.com/zero-gateway/zero/shared/webchat"
)

// newSenders builds the channels' reply senders, each following its token
// (rebuilt when a re-read finds it rotated): Telegram always, its token
// read now (a missing or malformed one stops the cold start, named);
// WebChat always; Discord where its application id is set (its bot token
// optional).
func newSenders(ctx context.Context, s settings.Runner, secrets secret.Getter, logger *slog.Logger) (map[string]turn.Sender, error) {
	httpClient := &http.Client{Timeout: 60 * time.Second}
	tg := telegram.NewRotatingClient(secrets, s.Telegram.APIBaseURL, httpClient)
	if _, err := tg.Current(ctx); err != nil {
		return nil, err
	}
	// WebChat's replies stay in the transcript; the control page reads them.
	senders := map[string]turn.Sender{"telegram": tg, webchat.Channel: webchat.Sender{}}
	if d := s.Discord; d.ApplicationID != "" {
		var tokens secret.Getter // nil: no bot token
		if d.BotTokenParameter != "" {
			tokens = secrets
		}
		senders[discord.Channel] = discord.NewRotatingClient(tokens, discord.ClientConfig{
			BaseURL: d.APIBaseURL, CDNBaseURL: d.CDNBaseURL, ApplicationID: d.ApplicationID, HTTPClient: httpClient,
		})
		logger.Info("discord replies on", "application_id", d.ApplicationID)
	}
	return senders, nil
}
