package main

import (
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/zero-gateway/zero/shared/cost"
	"github.com/zero-gateway/zero/shared/metrics"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/functions/internal/ingress"
	"github.com/zero-gateway/zero/functions/internal/settings"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/contextstore"
	"github.com/zero-gateway/zero/shared/dynamo"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/memory"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/s3store"
	"github.com/zero-gateway/zero/shared/sqsqueue"
	"github.com/zero-gateway/zero/shared/ssmparam"
	"github.com/zero-gateway/zero/shared/tools/builtin"
	"github.com/zero-gateway/zero/shared/tools/web"
	"github.com/zero-gateway/zero/shared/transcript"
	"github.com/zero-gateway/zero/shared/turn"
	"github.com/zero-gateway/zero/shared/workspace"
)

// deps are the clients the runner builds once per cold start.
type deps struct {
	aws     aws.Config
	ssm     *ssm.Client
	store   *dynamo.Store
	config  *config.Cache // zero.json
	secrets *ssmparam.Secrets
	log     *slog.Logger
}

// newProcessor builds the turn processor over the table and the bucket,
// with every tool's backend (the queues come later: wireQueues).
func newProcessor(s settings.Runner, d deps, models map[string]model.Client, senders map[string]turn.Sender) *turn.Processor {
	s3Client := s3.NewFromConfig(d.aws, func(o *s3.Options) { o.UsePathStyle = s.Endpoints.S3PathStyle() })
	bucket := s3store.New(s3Client, s.Bucket)
	def, _ := s.DefaultModel()                             // checked by Validate
	prices, _ := cost.For(d.aws.Region, cost.DeployedArch) // a region the table lacks: us-east-1's
	return &turn.Processor{
		Store:      d.store,
		Runs:       d.store.Runs(),
		Transcript: transcript.NewLog(bucket),
		Contexts:   contextstore.New(bucket), // long contexts' base objects under contexts/
		Workspace:  workspace.NewLoader(bucket, workspace.DefaultTTL, d.log),
		Tools: builtin.Deps{
			Memory:     memory.NewIndex(bucket),
			Files:      bucket, // read, write, edit, apply_patch; conditional PutObject/DeleteObject
			WebFetch:   web.CachedFetcher(newWebFetcher(), d.store.WebCache(), d.log),
			WebSearch:  web.CachedSearcher(newWebSearcher(d.secrets, s.Brave), d.store.WebCache(), d.log),
			ImageFetch: newWebFetcher(),                                      // the image tool's URLs, under web_fetch's SSRF guard
			Cron:       cronService(d.aws, d.store, s.Schedules, d.log),      // the cron tool (automation.go)
			ConfigDoc:  configDoc(d.ssm, s.Config.Parameter, s.ConfigWrites), // the gateway tool, when commands.restart enables it
			Messengers: messengersOf(senders),                                // the message tool
		},
		Models:       models,
		DefaultModel: def,
		Senders:      senders,
		Attachments:  attachmentsOf(senders), // photos sent to the bot (Telegram getFile)
		Settings:     d.config,
		System:       systemPrompt,
		Log:          d.log,
		Now:          time.Now,
		// Each turn's CloudWatch metrics, as EMF lines in the function's
		// logs (no API call); template.yaml's dashboard and alarms read them.
		Metrics: metrics.NewEMF(d.log, lambdacontext.FunctionName),
		Prices:  &prices,
	}
}

// wireQueues gives the processor and the consumer the work queues (when
// the settings name the work queue): the delays of failed records, the
// early deletes of finished sessions' records (per-record completion,
// docs/queues.md), the ingest door for sessions_send and sessions_spawn,
// and the outbox's deliveries.
func wireQueues(s settings.Runner, d deps, proc *turn.Processor, consumer *sqsqueue.Consumer) {
	if s.Queue == "" {
		d.log.Warn("ZERO_QUEUE_URL is not set: a failed message waits for the queue's visibility timeout instead of a backoff, sessions_send is not offered, and announces are dropped (no outbox)")
		return
	}
	// The lanes: the work queue, and the sub-agent queue where the
	// settings name it (docs/queues.md).
	lanes, queues := ingress.Lanes(sqs.NewFromConfig(d.aws), s.Queue, s.SubagentQueue)
	queue := queues[0]
	// A failed record is delayed, and a finished session's records are
	// deleted, on the queue they came from (either lane).
	consumer.Delayer, consumer.Delayers = queue, delayersOf(queues)
	consumer.Deleter, consumer.Deleters = queue, deletersOf(queues)
	// sessions_send and sessions_spawn queue for other sessions through
	// the ingest door, a sub-agent's session on the sub-agent lane.
	proc.Door = ingest.NewDoor(ingest.Deps{Settings: d.config, Queue: lanes, Stops: d.store})
	// Announces are kept in the outbox and delivered from their own
	// KindDeliver messages on this queue.
	proc.Outbox, proc.Work = d.store.Outbox(), queue
}

// delayersOf maps each queue's name to the queue, for
// sqsqueue.Consumer.Delayers.
func delayersOf(queues []*sqsqueue.Queue) map[string]sqsqueue.Delayer {
	out := make(map[string]sqsqueue.Delayer, len(queues))
	for _, q := range queues {
		out[q.Name()] = q
	}
	return out
}

// deletersOf maps each queue's name to the queue, for
// sqsqueue.Consumer.Deleters.
func deletersOf(queues []*sqsqueue.Queue) map[string]sqsqueue.Deleter {
	out := make(map[string]sqsqueue.Deleter, len(queues))
	for _, q := range queues {
		out[q.Name()] = q
	}
	return out
}
