// Package schedules wires the cron jobs' EventBridge Scheduler adapter
// from a function's environment, for the mains that manage jobs (the
// gateway's cron.* methods and the runner's cron tool).
package schedules

import (
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsscheduler "github.com/aws/aws-sdk-go-v2/service/scheduler"

	"github.com/zero-gateway/zero/shared/scheduler"
)

// FromEnv returns the schedules of the group ZERO_CRON_GROUP, whose
// schedules invoke ZERO_CRON_TARGET_ARN as ZERO_CRON_ROLE_ARN; nil, with
// a warning naming who, when any of them is unset: jobs are then stored
// but never fire.
func FromEnv(cfg aws.Config, logger *slog.Logger, who string) *scheduler.Schedules {
	group, target, role := os.Getenv("ZERO_CRON_GROUP"), os.Getenv("ZERO_CRON_TARGET_ARN"), os.Getenv("ZERO_CRON_ROLE_ARN")
	if group == "" || target == "" || role == "" {
		logger.Warn(who + ": ZERO_CRON_GROUP, ZERO_CRON_TARGET_ARN or ZERO_CRON_ROLE_ARN not set; jobs are stored but never fire")
		return nil
	}
	return scheduler.New(awsscheduler.NewFromConfig(cfg), scheduler.Config{Group: group, TargetARN: target, RoleARN: role})
}
