package main

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/functions/internal/ingress"
	"github.com/zero-gateway/zero/functions/internal/schedules"
	"github.com/zero-gateway/zero/functions/internal/settings"
	"github.com/zero-gateway/zero/shared/dynamo"
	"github.com/zero-gateway/zero/shared/gateway"
	"github.com/zero-gateway/zero/shared/s3store"
	"github.com/zero-gateway/zero/shared/sqsqueue"
	"github.com/zero-gateway/zero/shared/ssmparam"
	"github.com/zero-gateway/zero/shared/transcript"
)

// newDeps is the gateway's wiring but its token: the table, the bucket,
// the config parameter, the lanes, the cron schedules and the dead-letter
// queues.
func newDeps(awsCfg aws.Config, ssmClient *ssm.Client, s settings.Gateway, logger *slog.Logger) gateway.Deps {
	s3Client := s3.NewFromConfig(awsCfg, func(o *s3.Options) { o.UsePathStyle = s.Endpoints.S3PathStyle() })
	store := dynamo.New(dynamodb.NewFromConfig(awsCfg), s.Table)
	sqsClient := sqs.NewFromConfig(awsCfg)
	lanes, _ := ingress.Lanes(sqsClient, s.Queue, s.SubagentQueue)
	return gateway.Deps{
		Settings:    ingress.ConfigCache(ssmClient, s.Config, logger),
		Config:      ssmparam.New(ssmClient, s.Config.Parameter),
		Sessions:    store,
		Runs:        store.Runs(),
		Transcripts: transcript.NewLog(s3store.New(s3Client, s.Bucket)),
		Queue:       lanes,          // a sub-agent session's run on the sub-agent lane
		Stops:       store,          // agent/chat.send mark a /stop the moment it arrives
		Outbox:      store.Outbox(), // outbox.list: announces pending, sent, dead
		Cron:        cronDeps(awsCfg, store, s.Schedules, logger),
		DeadLetters: deadLetters(sqsClient, s), // status: the DLQs' depth
		Store:       fmt.Sprintf("dynamodb table %s, s3 bucket %s, config parameter %s", s.Table, s.Bucket, s.Config.Parameter),
		Now:         time.Now,
		Log:         logger,
	}
}

// deadLetters are the dead-letter queues s names (each optional), for
// status.
func deadLetters(client *sqs.Client, s settings.Gateway) []gateway.DeadLetterQueue {
	var out []gateway.DeadLetterQueue
	for _, q := range []struct{ name, url string }{{"work", s.DLQ}, {"subagent", s.SubagentDLQ}} {
		if q.url != "" {
			out = append(out, gateway.DeadLetterQueue{Name: q.name, Queue: sqsqueue.NewDLQ(client, q.url)})
		}
	}
	return out
}

// cronDeps is the cron store on the table and, when s names the schedule
// group, target and role, the jobs' schedules on EventBridge Scheduler.
func cronDeps(awsCfg aws.Config, store *dynamo.Store, s settings.Schedules, logger *slog.Logger) *gateway.CronDeps {
	d := &gateway.CronDeps{Store: store.Cron()}
	if sch := schedules.New(awsCfg, s, logger, "cron"); sch != nil {
		d.Schedules = sch
	}
	return d
}
