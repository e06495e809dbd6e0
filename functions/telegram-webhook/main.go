// Command telegram-webhook is the Lambda behind POST /webhooks/telegram: it
// checks Telegram's secret header, turns the update into an ingest.Request
// and hands it to the ingest door, which routes it to its agent and session
// key, admits the sender, marks a /stop and queues it on the FIFO work
// queue (one message group per session). It answers 2xx once the update is
// queued (or refused or ignored for good).
//
// Environment: TELEGRAM_WEBHOOK_SECRET_PARAMETER (the SSM SecureString
// parameter holding the setWebhook secret_token: read at cold start, again
// every ZERO_SECRETS_TTL, so a rotation applies within it), TELEGRAM_BOT_ID
// (the bot's numeric id, for the dedup ids: the webhook never sees the
// token), ZERO_QUEUE_URL,
// ZERO_CONFIG_PARAMETER (the SSM parameter holding zero.json: routing,
// session keys, channels.telegram.allowFrom), ZERO_CONFIG_TTL and ZERO_TABLE
// (where a /stop is marked the moment it arrives; without it /stop waits
// its turn in the queue).
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/zero-gateway/zero/functions/internal/ingress"
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

func setup(ctx context.Context, logger *slog.Logger, calls *awsconfig.Counter) (http.Handler, error) {
	botID := os.Getenv("TELEGRAM_BOT_ID")
	if botID == "" || strings.Trim(botID, "0123456789") != "" {
		return nil, fmt.Errorf("environment variable TELEGRAM_BOT_ID is required: the bot's numeric id (the bot token's part before ':')")
	}
	in, err := ingress.FromEnv(ctx, calls, logger)
	if err != nil {
		return nil, err
	}
	secrets, err := ssmparam.SecretsFromEnv(in.SSM, logger, secret.TelegramWebhookSecret)
	if err != nil {
		return nil, err
	}
	// The cold start's one read: a missing or short secret stops here,
	// named, and Telegram redelivers once it is fixed.
	if err := secrets.Load(ctx); err != nil {
		return nil, err
	}
	door := in.Door
	// The handler holds the secret; it is built again when a re-read
	// finds the secret rotated.
	handler := secret.Derive(secrets, secret.TelegramWebhookSecret, func(value string) (http.Handler, error) {
		return telegram.NewWebhook(telegram.WebhookConfig{Secret: value, BotID: botID, Door: door, Log: logger}), nil
	})
	if _, err := handler.Get(ctx); err != nil {
		return nil, err
	}
	// A deleted secret: refuse, and Telegram retries once it is back.
	return httpapi.Rotating(handler, logger, "telegram webhook: no secret to check against", `{"ok":false,"error":"unavailable"}`), nil
}
