// Package ingress wires the ingest door the way every function that takes
// messages in needs it: the zero.json cache from SSM, the FIFO work queue
// and, where the function may write them, the sessions' stop marks. It is
// wiring for the mains (it reaches several adapters), not a core package;
// the values come from the function's settings (functions/internal/settings).
package ingress

import (
	"context"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/functions/internal/settings"
	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/dynamo"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/sqsqueue"
	"github.com/zero-gateway/zero/shared/ssmparam"
)

// Settings is the door's part of a function's settings.
type Settings struct {
	Config settings.Config
	// Queue is the work queue's URL (required: the function's settings
	// have checked it).
	Queue string
	// SubagentQueue is the sub-agent lane's ("": see Lanes).
	SubagentQueue string
	// Table is where a /stop is marked the moment it arrives (and a steer
	// message recorded, a session's own queue mode read); "": a /stop
	// waits its turn in the queue.
	Table string
}

// Wiring is what New builds: the AWS config and SSM client (for the
// function's own secrets), the config cache and the door.
type Wiring struct {
	AWS      aws.Config
	SSM      *ssm.Client
	Settings *config.Cache
	Door     *ingest.Door
}

// New builds the door from s, once per cold start. AWS calls are counted
// by calls; nothing is read from AWS yet.
func New(ctx context.Context, s Settings, calls *awsconfig.Counter, logger *slog.Logger) (*Wiring, error) {
	awsCfg, err := awsconfig.Load(ctx, calls)
	if err != nil {
		return nil, err
	}
	w := &Wiring{AWS: awsCfg, SSM: ssm.NewFromConfig(awsCfg)}
	w.Settings = ConfigCache(w.SSM, s.Config, logger)
	var stops ingest.StopMarker
	if s.Table != "" {
		// Marks, steer records, and sessions' own queue modes read once
		// per config TTL (ingest.CachedModes).
		stops = ingest.NewCachedModes(dynamo.New(dynamodb.NewFromConfig(awsCfg), s.Table), s.Config.TTL, nil)
	}
	lanes, _ := Lanes(sqs.NewFromConfig(awsCfg), s.Queue, s.SubagentQueue)
	w.Door = ingest.NewDoor(ingest.Deps{Settings: w.Settings, Stops: stops, Queue: lanes})
	return w, nil
}

// ConfigCache is the zero.json cache every function shares: c's parameter,
// read again every c.TTL. Nothing is read until its first use.
func ConfigCache(client *ssm.Client, c settings.Config, logger *slog.Logger) *config.Cache {
	return config.NewCache(ssmparam.New(client, c.Parameter), c.TTL, logger)
}

// Lanes returns the work queue's lanes: Main on queueURL and Subagent on
// subagentURL, where a function that may queue for a sub-agent session
// (agent:<id>:subagent:<x>) has it; without it ("") those messages go to
// the main queue too. It also returns the queues themselves, main first
// (the runner delays a failed record on its own queue).
func Lanes(client *sqs.Client, queueURL, subagentURL string) (ingest.Lanes, []*sqsqueue.Queue) {
	main := sqsqueue.New(client, queueURL)
	lanes, queues := ingest.Lanes{Main: main}, []*sqsqueue.Queue{main}
	if subagentURL != "" {
		sub := sqsqueue.New(client, subagentURL)
		lanes.Subagent, queues = sub, append(queues, sub)
	}
	return lanes, queues
}
