// Package ingress wires the ingest door the way every function that takes
// messages in needs it: the zero.json cache from SSM, the FIFO work queue
// and, where the function may write them, the sessions' stop marks. It is
// wiring for the mains (it reaches several adapters), not a core package.
package ingress

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/dynamo"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/sqsqueue"
	"github.com/zero-gateway/zero/shared/ssmparam"
)

// Wiring is what FromEnv builds: the AWS config and SSM client (for the
// function's own secrets), the config cache and the door.
type Wiring struct {
	AWS      aws.Config
	SSM      *ssm.Client
	Settings *config.Cache
	Door     *ingest.Door
}

// FromEnv builds the door from the environment, once per cold start:
// ZERO_QUEUE_URL (required) and ZERO_SUBAGENT_QUEUE_URL (optional; see
// Lanes), ZERO_CONFIG_PARAMETER (required; see
// ssmparam.SettingsFromEnv) and ZERO_TABLE (optional: where a /stop is
// marked the moment it arrives; without it a /stop waits its turn in the
// queue). AWS calls are counted by calls. Errors name the missing variable.
func FromEnv(ctx context.Context, calls *awsconfig.Counter, logger *slog.Logger) (*Wiring, error) {
	if os.Getenv("ZERO_QUEUE_URL") == "" {
		return nil, fmt.Errorf("environment variable ZERO_QUEUE_URL is required")
	}
	awsCfg, err := awsconfig.Load(ctx, calls)
	if err != nil {
		return nil, err
	}
	w := &Wiring{AWS: awsCfg, SSM: ssm.NewFromConfig(awsCfg)}
	if w.Settings, err = ssmparam.SettingsFromEnv(w.SSM, logger); err != nil {
		return nil, err
	}
	var stops ingest.StopMarker
	if table := os.Getenv("ZERO_TABLE"); table != "" {
		stops = dynamo.New(dynamodb.NewFromConfig(awsCfg), table)
	}
	lanes, _, err := Lanes(sqs.NewFromConfig(awsCfg))
	if err != nil {
		return nil, err
	}
	w.Door = ingest.NewDoor(ingest.Deps{Settings: w.Settings, Stops: stops, Queue: lanes})
	return w, nil
}

// Lanes returns the work queue's lanes from the environment: Main on
// ZERO_QUEUE_URL (required) and Subagent on ZERO_SUBAGENT_QUEUE_URL, where a
// function that may queue for a sub-agent session (agent:<id>:subagent:<x>)
// has it; without it, those messages go to the main queue too. It also
// returns the queues themselves, main first (the runner delays a failed
// record on its own queue). The error names the missing variable.
func Lanes(client *sqs.Client) (ingest.Lanes, []*sqsqueue.Queue, error) {
	url := os.Getenv("ZERO_QUEUE_URL")
	if url == "" {
		return ingest.Lanes{}, nil, fmt.Errorf("environment variable ZERO_QUEUE_URL is required")
	}
	main := sqsqueue.New(client, url)
	lanes, queues := ingest.Lanes{Main: main}, []*sqsqueue.Queue{main}
	if url := os.Getenv("ZERO_SUBAGENT_QUEUE_URL"); url != "" {
		sub := sqsqueue.New(client, url)
		lanes.Subagent, queues = sub, append(queues, sub)
	}
	return lanes, queues, nil
}
