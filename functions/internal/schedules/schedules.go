// Package schedules wires the cron jobs' EventBridge Scheduler adapter
// from a function's settings, for the mains that manage jobs (the
// gateway's cron.* methods and the runner's cron tool).
package schedules

import (
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsscheduler "github.com/aws/aws-sdk-go-v2/service/scheduler"

	"github.com/zero-gateway/zero/functions/internal/settings"
	"github.com/zero-gateway/zero/shared/scheduler"
)

// New returns the schedules of s.Group, whose schedules invoke
// s.TargetARN as s.RoleARN; nil, with a warning naming who, when any of
// them is unset: jobs are then stored but never fire.
func New(cfg aws.Config, s settings.Schedules, logger *slog.Logger, who string) *scheduler.Schedules {
	if !s.Complete() {
		logger.Warn(who + ": ZERO_CRON_GROUP, ZERO_CRON_TARGET_ARN or ZERO_CRON_ROLE_ARN not set; jobs are stored but never fire")
		return nil
	}
	return scheduler.New(awsscheduler.NewFromConfig(cfg), scheduler.Config{Group: s.Group, TargetARN: s.TargetARN, RoleARN: s.RoleARN})
}
