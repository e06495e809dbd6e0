// Command cron is the Lambda a cron job's EventBridge Scheduler schedule
// invokes with {"jobId", "scheduledTime"} (cron.FireInput): it loads the
// job, skips the fire when the job's previous run is still going, queues
// the run's message through the ingest door and records the run and the
// job's state (shared/cron/fire has the contract). An error makes
// Scheduler retry the invocation, which is safe: a fire is idempotent on
// its scheduled time.
//
// Its environment is settings.Cron (functions/internal/settings): the
// table (jobs, their run records, the runs), the work queue and
// zero.json's parameter.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/zero-gateway/zero/functions/internal/ingress"
	"github.com/zero-gateway/zero/functions/internal/settings"
	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/cron/fire"
	"github.com/zero-gateway/zero/shared/dynamo"
	"github.com/zero-gateway/zero/shared/lambdalog"
)

func main() {
	logger := lambdalog.Install(os.Stderr) // JSON lines with the request id; slog's default too
	calls := awsconfig.NewCounter()
	f, err := setup(context.Background(), logger, calls)
	if err != nil {
		logger.Error("cron init failed", "err", err)
		os.Exit(1)
	}
	lambda.Start(func(ctx context.Context, req cron.FireRequest) (fire.Result, error) {
		calls.Reset() // one invocation at a time per instance
		res, err := f.Fire(ctx, req)
		logger.InfoContext(ctx, "fire done", "job", req.JobID, "scheduled", req.ScheduledTime, "outcome", res.Outcome,
			"run_id", res.RunID, "err", err, "aws_calls", calls.Total(), "aws_ops", calls.String())
		return res, err
	})
}

// setup reads the settings once and builds the firer; the error names
// what is missing.
func setup(ctx context.Context, logger *slog.Logger, calls *awsconfig.Counter) (*fire.Firer, error) {
	var s settings.Cron
	if err := settings.Load(&s); err != nil {
		return nil, err
	}
	in, err := ingress.New(ctx, ingress.Settings{Config: s.Config, Queue: s.Queue, Table: s.Table}, calls, logger)
	if err != nil {
		return nil, err
	}
	store := dynamo.New(dynamodb.NewFromConfig(in.AWS), s.Table)
	return fire.New(fire.Deps{Store: store.Cron(), Runs: store.Runs(), Door: in.Door, Settings: in.Settings}), nil
}
