// Command telegram-webhook is the Lambda behind POST /webhooks/telegram: it
// checks Telegram's secret header, turns the update into an ingest.Request
// and hands it to the ingest door, which routes it to its agent and session
// key, admits the sender, marks a /stop and queues it on the FIFO work
// queue (one message group per session). It answers 2xx once the update is
// queued (or refused or ignored for good).
//
// Its environment is settings.TelegramWebhook (functions/internal/settings):
// the bot's numeric id (the webhook never sees the token), the SSM
// parameter holding setWebhook's secret_token (read at cold start, again
// every ZERO_SECRETS_TTL, so a rotation applies within it), the work
// queue, zero.json's parameter (routing, session keys,
// channels.telegram.allowFrom) and the table where a /stop is marked the
// moment it arrives (without it /stop waits its turn in the queue).
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"

	"github.com/zero-gateway/zero/functions/internal/ingress"
	"github.com/zero-gateway/zero/functions/internal/settings"
	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/httpapi"
	"github.com/zero-gateway/zero/shared/lambdalog"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/ssmparam"
	"github.com/zero-gateway/zero/shared/telegram"
)

func main() {
	logger := lambdalog.Install(os.Stderr) // JSON lines with the request id; slog's default too
	calls := awsconfig.NewCounter()
	webhook, err := setup(context.Background(), logger, calls)
	if err != nil {
		// Telegram sees a 5xx and redelivers, so a bad config loses no update.
		logger.Error("telegram-webhook init failed", "err", err)
		os.Exit(1)
	}
	httpapi.Start(logger, calls, webhook)
}

// setup reads the settings once, the secret (one GetParameters) and builds
// the handler; the error names what is missing, never the secret's value.
func setup(ctx context.Context, logger *slog.Logger, calls *awsconfig.Counter) (http.Handler, error) {
	var s settings.TelegramWebhook
	if err := settings.Load(&s); err != nil {
		return nil, err
	}
	in, err := ingress.New(ctx, ingress.Settings{Config: s.Config, Queue: s.Queue, Table: s.Table}, calls, logger)
	if err != nil {
		return nil, err
	}
	secrets := ssmparam.NewSecrets(in.SSM, settings.SecretParameters(s), s.Secrets.TTL, logger)
	// The cold start's one read: a missing or short secret stops here,
	// named, and Telegram redelivers once it is fixed.
	if err := secrets.Load(ctx); err != nil {
		return nil, err
	}
	// The handler holds the secret; it is built again when a re-read
	// finds the secret rotated.
	handler := secret.Derive(secrets, secret.TelegramWebhookSecret, func(value string) (http.Handler, error) {
		return telegram.NewWebhook(telegram.WebhookConfig{Secret: value, BotID: s.BotID, Door: in.Door, Log: logger}), nil
	})
	if _, err := handler.Get(ctx); err != nil {
		return nil, err
	}
	// A deleted secret: refuse, and Telegram retries once it is back.
	return httpapi.Rotating(handler, logger, "telegram webhook: no secret to check against", `{"ok":false,"error":"unavailable"}`), nil
}
