package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/functions/internal/schedules"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/dynamo"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/ssmparam"
)

// cronService is the cron tool's core: the jobs on the table and, when
// ZERO_CRON_GROUP, ZERO_CRON_TARGET_ARN and ZERO_CRON_ROLE_ARN name them
// (as for the gateway), their schedules on EventBridge Scheduler; without
// them jobs are stored but never fire.
func cronService(awsCfg aws.Config, store *dynamo.Store, logger *slog.Logger) *cron.Service {
	svc := &cron.Service{Store: store.Cron(), Now: time.Now}
	if sch := schedules.FromEnv(awsCfg, logger, "cron tool"); sch != nil {
		svc.Schedules = sch
	}
	return svc
}

// configDoc is the gateway tool's zero.json: the ZERO_CONFIG_PARAMETER
// parameter, writable (compare-and-set) only when ZERO_CONFIG_WRITES is
// "true" (the stack parameter AgentConfigWrites, which also grants the
// role ssm:PutParameter); else its writes answer that they are off.
func configDoc(client *ssm.Client) config.DocumentStore {
	param := ssmparam.New(client, os.Getenv("ZERO_CONFIG_PARAMETER"))
	if os.Getenv("ZERO_CONFIG_WRITES") == "true" {
		return param
	}
	return readOnlyDoc{param}
}

// readOnlyDoc is a config document the agent may read, not write.
type readOnlyDoc struct{ *ssmparam.Parameter }

var errConfigWritesOff = fault.New(fault.Unauthorized,
	"this deployment does not let the agent change the configuration (stack parameter AgentConfigWrites=false); an operator can with `zero config`")

func (readOnlyDoc) Put(context.Context, []byte) (string, error) { return "", errConfigWritesOff }

func (readOnlyDoc) PutIfVersion(context.Context, []byte, string) (string, error) {
	return "", errConfigWritesOff
}
