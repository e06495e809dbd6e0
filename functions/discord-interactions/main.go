// Command discord-interactions is the Lambda behind POST /webhooks/discord,
// the application's Interactions Endpoint URL: it verifies Discord's
// Ed25519 signature, answers PING, turns an application command into an
// ingest.Request and hands it to the ingest door (which routes it to its
// agent and session key, admits the sender, marks a /stop and queues it on
// the FIFO work queue), then answers with a deferred response that the
// runner edits with the reply.
//
// Environment: DISCORD_PUBLIC_KEY (the application's public key, hex; when
// missing or malformed every request is refused with 401),
// DISCORD_APPLICATION_ID (logged; the interactions carry it),
// ZERO_QUEUE_URL, ZERO_CONFIG_PARAMETER (zero.json: routing, session keys,
// channels.discord.allowFrom), ZERO_CONFIG_TTL and ZERO_TABLE (where a
// /stop is marked the moment it arrives; without it /stop waits its turn).
// It reads no secret: the public key is public.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/discord"
	"github.com/zero-gateway/zero/shared/dynamo"
	"github.com/zero-gateway/zero/shared/httpapi"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/lambdalog"
	"github.com/zero-gateway/zero/shared/sqsqueue"
	"github.com/zero-gateway/zero/shared/ssmparam"
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

func setup(ctx context.Context, logger *slog.Logger, calls *awsconfig.Counter) (http.Handler, error) {
	queueURL := os.Getenv("ZERO_QUEUE_URL")
	if queueURL == "" {
		return nil, fmt.Errorf("environment variable ZERO_QUEUE_URL is required")
	}
	awsCfg, err := awsconfig.Load(ctx, calls)
	if err != nil {
		return nil, err
	}
	settings, err := ssmparam.SettingsFromEnv(ssm.NewFromConfig(awsCfg), logger)
	if err != nil {
		return nil, err
	}
	var stops ingest.StopMarker
	if table := os.Getenv("ZERO_TABLE"); table != "" {
		stops = dynamo.New(dynamodb.NewFromConfig(awsCfg), table)
	}
	door := ingest.NewDoor(ingest.Deps{
		Settings: settings,
		Stops:    stops,
		Queue:    sqsqueue.New(sqs.NewFromConfig(awsCfg), queueURL),
	})
	logger.Info("discord interactions endpoint", "application_id", os.Getenv("DISCORD_APPLICATION_ID"))
	return discord.NewInteractions(discord.InteractionsConfig{
		PublicKey: os.Getenv("DISCORD_PUBLIC_KEY"),
		Door:      door,
		Log:       logger,
	}), nil
}
