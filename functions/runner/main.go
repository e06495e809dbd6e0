// Command runner is the Lambda that consumes the FIFO work queue and the
// sub-agent queue (two event source mappings, one per lane) and runs each
// inbound message as one turn of its session (shared/turn).
//
// Its environment is settings.Runner (functions/internal/settings), read
// once at cold start. Its secrets (the bot tokens, the model and Brave
// keys) are SSM SecureString parameters named there: read with one call
// at cold start and again every ZERO_SECRETS_TTL, the clients holding
// them rebuilt when one changed.
package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/functions/internal/ingress"
	"github.com/zero-gateway/zero/functions/internal/settings"
	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/dynamo"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/lambdalog"
	"github.com/zero-gateway/zero/shared/sqsqueue"
	"github.com/zero-gateway/zero/shared/ssmparam"
	"github.com/zero-gateway/zero/shared/turn"
)

// maxCollect is the most messages one runner call takes together: an SQS
// batch holds at most 10.
const maxCollect = 10

const systemPrompt = "You are ZERO, a personal assistant. Answer briefly and helpfully."

func main() {
	logger := lambdalog.Install(os.Stderr) // JSON lines with the request id; slog's default too
	calls := awsconfig.NewCounter()
	app, err := setup(context.Background(), logger, calls)
	if err != nil {
		// Failing init makes Lambda report the error and SQS redeliver the
		// batch later, so a bad config loses no message.
		logger.Error("runner init failed", "err", err)
		os.Exit(1)
	}
	lambda.Start(func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		// One invocation at a time per instance, so the counter is per batch.
		calls.Reset()
		start := time.Now()
		resp := app.consumer.Consume(ctx, ev)
		logger.InfoContext(ctx, "batch done", "records", len(ev.Records), "failed", len(resp.BatchItemFailures),
			"aws_calls", calls.Total(), "aws_ops", calls.String(), "duration_ms", float64(time.Since(start).Microseconds())/1000)
		return resp, nil
	})
}

// app is the runner's wiring: the turn processor and the queue consumer
// that feeds it.
type app struct {
	proc     *turn.Processor
	consumer *sqsqueue.Consumer
}

// setup reads the settings once, builds the clients (the secrets with one
// GetParameters: a missing bot token stops here, named), wires them into
// the turn processor and the consumer. The error names what is missing
// or wrong, never a secret's value.
func setup(ctx context.Context, logger *slog.Logger, calls *awsconfig.Counter) (*app, error) {
	var s settings.Runner
	if err := settings.Load(&s); err != nil {
		return nil, err
	}
	awsCfg, err := awsconfig.Load(ctx, calls)
	if err != nil {
		return nil, err
	}
	ssmClient := ssm.NewFromConfig(awsCfg)
	secrets := ssmparam.NewSecrets(ssmClient, settings.SecretParameters(s), s.Secrets.TTL, logger)
	if err := secrets.Load(ctx); err != nil {
		return nil, err
	}
	models, err := newModels(ctx, s, secrets, bedrockruntime.NewFromConfig(awsCfg), logger)
	if err != nil {
		return nil, err
	}
	senders, err := newSenders(ctx, s, secrets, logger)
	if err != nil {
		return nil, err
	}
	d := deps{aws: awsCfg, ssm: ssmClient, store: dynamo.New(dynamodb.NewFromConfig(awsCfg), s.Table),
		config: ingress.ConfigCache(ssmClient, s.Config, logger), secrets: secrets, log: logger}
	proc := newProcessor(s, d, models, senders)
	// A session's consecutive messages go together, so queue mode collect
	// can answer them as one turn; different sessions run concurrently.
	consumer := newConsumer(s.Consumer, logger)
	consumer.Handler, consumer.Failed = tallied(proc.HandleGroup), proc.Failed
	proc.CallsOf = awsconfig.TallyOf
	proc.MaxReceives = consumer.MaxReceives // debounce never holds a message into the dead-letter queue
	wireQueues(s, d, proc, consumer)
	return &app{proc: proc, consumer: consumer}, nil
}

// newConsumer is the queue consumer of c's limits and backoff.
func newConsumer(c settings.Consumer, logger *slog.Logger) *sqsqueue.Consumer {
	return &sqsqueue.Consumer{
		Concurrency: c.GroupConcurrency, MaxRun: maxCollect, MinBudget: seconds(c.MinBudgetSeconds), MaxReceives: c.MaxReceiveCount,
		Backoff: sqsqueue.Backoff{Base: seconds(c.RetryBaseSeconds), Max: seconds(c.RetryMaxSeconds)},
		Log:     logger,
	}
}

func seconds(n int) time.Duration { return time.Duration(n) * time.Second }

// tallied gives each session's run of messages its own AWS call tally
// (awsconfig.WithTally), so a turn prices its own calls (a sub-agent's
// announce) while other sessions of the batch run beside it.
func tallied(h sqsqueue.GroupHandler) sqsqueue.GroupHandler {
	return func(ctx context.Context, msgs []inbound.Message, attempts []int) (int, error) {
		return h(awsconfig.WithTally(ctx), msgs, attempts)
	}
}
