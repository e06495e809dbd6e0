package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/functions/internal/schedules"
	"github.com/zero-gateway/zero/functions/internal/settings"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/dynamo"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/ssmparam"
)

// cronService is the cron tool's core: the jobs on the table and, when
// s names the group, target and role (as for the gateway), their
// schedules on EventBridge Scheduler; without them jobs are stored but
// never fire.
func cronService(awsCfg aws.Config, store *dynamo.Store, s settings.Schedules, logger *slog.Logger) *cron.Service {
	svc := &cron.Service{Store: store.Cron(), Now: time.Now}
	if sch := schedules.New(awsCfg, s, logger, "cron tool"); sch != nil {
		svc.Schedules = sch
	}
	return svc
}

// configDoc is the gateway tool's zero.json: the parameter name,
// writable (compare-and-set) only when writes is on (ZERO_CONFIG_WRITES,
// the stack parameter AgentConfigWrites, which also grants the role
// ssm:PutParameter); else its writes answer that they are off.
func configDoc(client *ssm.Client, name string, writes bool) config.DocumentStore {
	param := ssmparam.New(client, name)
	if writes {
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
