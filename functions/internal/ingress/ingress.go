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
// ZERO_QUEUE_URL (required), ZERO_CONFIG_PARAMETER (required; see
// ssmparam.SettingsFromEnv) and ZERO_TABLE (optional: where a /stop is
// marked the moment it arrives; without it a /stop waits its turn in the
// queue). AWS calls are counted by calls. Errors name the missing variable.
func FromEnv(ctx context.Context, calls *awsconfig.Counter, logger *slog.Logger) (*Wiring, error) {
	queueURL := os.Getenv("ZERO_QUEUE_URL")
	if queueURL == "" {
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
	w.Door = ingest.NewDoor(ingest.Deps{Settings: w.Settings, Stops: stops, Queue: sqsqueue.New(sqs.NewFromConfig(awsCfg), queueURL)})
	return w, nil
}
