// Command gateway is the Lambda behind POST /rpc and the control page
// (GET / and /assets/..., shared/webui): the gateway API
// (shared/gateway) over the session table, the transcript bucket, the work
// queue and the config parameter. Clients (the zero CLI, a web page) ask it
// instead of reading storage themselves.
//
// Environment: ZERO_GATEWAY_TOKEN_PARAMETER (the SSM SecureString parameter
// holding the bearer token, at least 32 characters: read at cold start and
// again every ZERO_SECRETS_TTL; not set: every call is refused), ZERO_TABLE, ZERO_BUCKET, ZERO_QUEUE_URL, ZERO_SUBAGENT_QUEUE_URL
// (optional: the sub-agent lane), ZERO_CONFIG_PARAMETER and ZERO_CONFIG_TTL;
// for cron, ZERO_CRON_GROUP (the stack's schedule group),
// ZERO_CRON_TARGET_ARN (the cron function) and ZERO_CRON_ROLE_ARN (the
// role Scheduler invokes it as): without them cron jobs are stored but
// get no schedule. ZERO_DLQ_URL and ZERO_SUBAGENT_DLQ_URL (optional): the
// dead-letter queues whose depth status reports.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/functions/internal/ingress"
	"github.com/zero-gateway/zero/functions/internal/schedules"
	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/dynamo"
	"github.com/zero-gateway/zero/shared/gateway"
	"github.com/zero-gateway/zero/shared/httpapi"
	"github.com/zero-gateway/zero/shared/lambdalog"
	"github.com/zero-gateway/zero/shared/s3store"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/sqsqueue"
	"github.com/zero-gateway/zero/shared/ssmparam"
	"github.com/zero-gateway/zero/shared/transcript"
	"github.com/zero-gateway/zero/shared/webui"
)

func main() {
	logger := lambdalog.Install(os.Stderr) // JSON lines with the request id; slog's default too
	calls := awsconfig.NewCounter()
	api, err := setup(context.Background(), logger, calls)
	if err != nil {
		logger.Error("gateway init failed", "err", err)
		os.Exit(1)
	}
	httpapi.Start(logger, calls, api)
}

func setup(ctx context.Context, logger *slog.Logger, calls *awsconfig.Counter) (http.Handler, error) {
	env := map[string]string{}
	for _, name := range []string{"ZERO_TABLE", "ZERO_BUCKET", "ZERO_QUEUE_URL", "ZERO_CONFIG_PARAMETER"} {
		v := os.Getenv(name)
		if v == "" {
			return nil, fmt.Errorf("environment variable %s is required", name)
		}
		env[name] = v
	}
	awsCfg, err := awsconfig.Load(ctx, calls)
	if err != nil {
		return nil, err
	}
	ssmClient := ssm.NewFromConfig(awsCfg)
	settings, err := ssmparam.SettingsFromEnv(ssmClient, logger)
	if err != nil {
		return nil, err
	}
	secrets, err := ssmparam.SecretsFromEnv(ssmClient, logger, secret.GatewayToken)
	if err != nil {
		return nil, err
	}
	// The cold start's one read; a token under 32 characters stops here.
	if err := secrets.Load(ctx); err != nil {
		return nil, err
	}
	deps, err := newDeps(awsCfg, env, settings, logger)
	if err != nil {
		return nil, err
	}
	// The gateway holds the token; it is built again when a re-read finds
	// the token rotated. No token: the gateway refuses every call.
	api := secret.Derive(secret.OrEmpty(secrets), secret.GatewayToken, func(token string) (http.Handler, error) {
		d := deps
		d.Token = token
		return gateway.New(d), nil
	})
	if _, err := api.Get(ctx); err != nil {
		return nil, err
	}
	if !secrets.Has(ctx, secret.GatewayToken) {
		logger.Error("gateway: no token; every call is refused", "secret", secret.GatewayToken.Name,
			"parameter", secrets.Parameter(secret.GatewayToken.Name))
	}
	ui, err := webui.New() // the control page at GET / and /assets/...
	if err != nil {
		return nil, err
	}
	return webui.Mount(ui, httpapi.Rotating(api, logger, "gateway: token unreadable", `{"ok":false,"error":{"code":"unavailable","message":"try again"}}`)), nil
}

// newDeps is the gateway's wiring but its token: the table, the bucket,
// the config parameter, the lanes, the cron schedules and the dead-letter
// queues.
func newDeps(awsCfg aws.Config, env map[string]string, settings gateway.Settings, logger *slog.Logger) (gateway.Deps, error) {
	local := os.Getenv("AWS_ENDPOINT_URL") != "" || os.Getenv("AWS_ENDPOINT_URL_S3") != ""
	s3Client := s3.NewFromConfig(awsCfg, func(o *s3.Options) { o.UsePathStyle = local })
	store := dynamo.New(dynamodb.NewFromConfig(awsCfg), env["ZERO_TABLE"])
	sqsClient := sqs.NewFromConfig(awsCfg)
	lanes, _, err := ingress.Lanes(sqsClient)
	if err != nil {
		return gateway.Deps{}, err
	}
	return gateway.Deps{
		Settings:    settings,
		Config:      ssmparam.New(ssm.NewFromConfig(awsCfg), env["ZERO_CONFIG_PARAMETER"]),
		Sessions:    store,
		Runs:        store.Runs(),
		Transcripts: transcript.NewLog(s3store.New(s3Client, env["ZERO_BUCKET"])),
		Queue:       lanes,          // a sub-agent session's run on the sub-agent lane (ZERO_SUBAGENT_QUEUE_URL)
		Stops:       store,          // agent/chat.send mark a /stop the moment it arrives
		Outbox:      store.Outbox(), // outbox.list: announces pending, sent, dead
		Cron:        cronDeps(awsCfg, store, logger),
		DeadLetters: deadLetters(sqsClient), // status: the DLQs' depth
		Store: fmt.Sprintf("dynamodb table %s, s3 bucket %s, config parameter %s",
			env["ZERO_TABLE"], env["ZERO_BUCKET"], env["ZERO_CONFIG_PARAMETER"]),
		Now: time.Now,
		Log: logger,
	}, nil
}

// deadLetters are the dead-letter queues named by ZERO_DLQ_URL and
// ZERO_SUBAGENT_DLQ_URL (each optional), for status.
func deadLetters(client *sqs.Client) []gateway.DeadLetterQueue {
	var out []gateway.DeadLetterQueue
	for _, q := range []struct{ name, env string }{{"work", "ZERO_DLQ_URL"}, {"subagent", "ZERO_SUBAGENT_DLQ_URL"}} {
		if url := os.Getenv(q.env); url != "" {
			out = append(out, gateway.DeadLetterQueue{Name: q.name, Queue: sqsqueue.NewDLQ(client, url)})
		}
	}
	return out
}

// cronDeps is the cron store on the table and, when the environment names
// the schedule group, target and role, the jobs' schedules on EventBridge
// Scheduler.
func cronDeps(awsCfg aws.Config, store *dynamo.Store, logger *slog.Logger) *gateway.CronDeps {
	d := &gateway.CronDeps{Store: store.Cron()}
	if sch := schedules.FromEnv(awsCfg, logger, "cron"); sch != nil {
		d.Schedules = sch
	}
	return d
}
