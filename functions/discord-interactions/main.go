// Command discord-interactions is the Lambda behind POST /webhooks/discord,
// the application's Interactions Endpoint URL: it verifies Discord's
// Ed25519 signature, answers PING, turns an application command into an
// ingest.Request and hands it to the ingest door (which routes it to its
// agent and session key, admits the sender, marks a /stop and queues it on
// the FIFO work queue), then answers with a deferred response that the
// runner edits with the reply.
//
// Its environment is settings.DiscordInteractions
// (functions/internal/settings): the application's public key (hex; when
// missing or malformed every request is refused with 401), its id
// (logged; the interactions carry it), the work queue, zero.json's
// parameter (routing, session keys, channels.discord.allowFrom) and the
// table where a /stop is marked the moment it arrives (without it /stop
// waits its turn). It reads no secret: the public key is public.
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"

	"github.com/zero-gateway/zero/functions/internal/ingress"
	"github.com/zero-gateway/zero/functions/internal/settings"
	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/discord"
	"github.com/zero-gateway/zero/shared/httpapi"
	"github.com/zero-gateway/zero/shared/lambdalog"
)

func main() {
	logger := lambdalog.Install(os.Stderr) // JSON lines with the request id; slog's default too
	calls := awsconfig.NewCounter()
	handler, err := setup(context.Background(), logger, calls)
	if err != nil {
		logger.Error("discord-interactions init failed", "err", err)
		os.Exit(1)
	}
	httpapi.Start(logger, calls, handler)
}

// setup reads the settings once and builds the handler; the error names
// what is missing.
func setup(ctx context.Context, logger *slog.Logger, calls *awsconfig.Counter) (http.Handler, error) {
	var s settings.DiscordInteractions
	if err := settings.Load(&s); err != nil {
		return nil, err
	}
	in, err := ingress.New(ctx, ingress.Settings{Config: s.Config, Queue: s.Queue, Table: s.Table}, calls, logger)
	if err != nil {
		return nil, err
	}
	logger.Info("discord interactions endpoint", "application_id", s.ApplicationID)
	return discord.NewInteractions(discord.InteractionsConfig{PublicKey: s.PublicKey, Door: in.Door, Log: logger}), nil
}
