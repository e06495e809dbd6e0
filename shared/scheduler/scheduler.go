// Package scheduler is the cron.Schedules adapter on Amazon EventBridge
// Scheduler: one schedule per cron job, named after the job, in the
// stack's schedule group, whose target invokes the cron function with
// the job's FireRequest (cron.FireInput; Scheduler fills in the scheduled
// time). A one-shot (at) schedule is created with ActionAfterCompletion
// DELETE, so it removes itself after its fire; a disabled job's schedule
// is kept with State DISABLED.
//
// Cost: schedules cost nothing while idle; each fire is one Scheduler
// invocation (docs/cron.md).
package scheduler

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	sch "github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/scheduler/types"

	"github.com/zero-gateway/zero/shared/awserr"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
)

// API is the part of the Scheduler client the adapter uses.
type API interface {
	CreateSchedule(ctx context.Context, in *sch.CreateScheduleInput, opts ...func(*sch.Options)) (*sch.CreateScheduleOutput, error)
	UpdateSchedule(ctx context.Context, in *sch.UpdateScheduleInput, opts ...func(*sch.Options)) (*sch.UpdateScheduleOutput, error)
	DeleteSchedule(ctx context.Context, in *sch.DeleteScheduleInput, opts ...func(*sch.Options)) (*sch.DeleteScheduleOutput, error)
}

// Config names where the schedules live and what they invoke.
type Config struct {
	Group     string // the stack's schedule group
	TargetARN string // the cron function
	RoleARN   string // the execution role Scheduler assumes to invoke it
}

// Retry policy of a fire that fails to invoke the function: the fire is
// idempotent, so retrying is safe; after an hour it is dropped (the next
// fire comes anyway).
const (
	maxRetries  = 5
	maxEventAge = 3600
)

// Schedules implements cron.Schedules.
type Schedules struct {
	api API
	cfg Config
}

var _ cron.Schedules = (*Schedules)(nil)

// New returns the adapter.
func New(api API, cfg Config) *Schedules { return &Schedules{api: api, cfg: cfg} }

// codes are Scheduler's own error codes; awserr handles the common ones.
var codes = map[string]fault.Code{
	"ResourceNotFoundException": fault.NotFound, "ConflictException": fault.Conflict,
	"ValidationException": fault.Invalid, "ServiceQuotaExceededException": fault.Unavailable,
}

func classify(err error, format string, args ...any) error {
	return awserr.Classify(err, codes, format, args...)
}

// Put updates the schedule (UpdateSchedule replaces every field) and
// creates it when there is none; a create that races another is retried
// as an update. One call when the schedule exists, two when it does not;
// none for a spec without a name, which is fault.Invalid.
func (s *Schedules) Put(ctx context.Context, spec cron.ScheduleSpec) error {
	if spec.Name == "" {
		return fault.New(fault.Invalid, "schedule: a name is required")
	}
	err := s.update(ctx, spec)
	if !fault.Is(err, fault.NotFound) {
		return err
	}
	u := s.updateInput(spec)
	in := &sch.CreateScheduleInput{
		Name: u.Name, GroupName: u.GroupName, ScheduleExpression: u.ScheduleExpression,
		ScheduleExpressionTimezone: u.ScheduleExpressionTimezone, StartDate: u.StartDate, State: u.State,
		Target: u.Target, FlexibleTimeWindow: u.FlexibleTimeWindow, Description: u.Description,
		ActionAfterCompletion: u.ActionAfterCompletion,
	}
	_, err = s.api.CreateSchedule(ctx, in)
	if err == nil {
		return nil
	}
	err = classify(err, "create schedule %s/%s", s.cfg.Group, spec.Name)
	if fault.Is(err, fault.Conflict) {
		return s.update(ctx, spec)
	}
	return err
}

func (s *Schedules) update(ctx context.Context, spec cron.ScheduleSpec) error {
	_, err := s.api.UpdateSchedule(ctx, s.updateInput(spec))
	return classify(err, "update schedule %s/%s", s.cfg.Group, spec.Name)
}

// updateInput is the whole schedule of spec (an update replaces every
// field; a create takes the same ones).
func (s *Schedules) updateInput(spec cron.ScheduleSpec) *sch.UpdateScheduleInput {
	in := &sch.UpdateScheduleInput{
		Name: aws.String(spec.Name), GroupName: aws.String(s.cfg.Group),
		ScheduleExpression: aws.String(spec.Expression.Expr), ScheduleExpressionTimezone: aws.String(spec.Expression.TimeZone),
		StartDate: spec.Expression.Start, State: state(spec), Target: s.target(spec),
		FlexibleTimeWindow: &types.FlexibleTimeWindow{Mode: types.FlexibleTimeWindowModeOff},
		Description:        aws.String("ZERO cron job " + spec.Name),
	}
	if spec.Expression.OneShot {
		in.ActionAfterCompletion = types.ActionAfterCompletionDelete
	}
	return in
}

// Delete removes the schedule; a missing one is not an error.
func (s *Schedules) Delete(ctx context.Context, name string) error {
	_, err := s.api.DeleteSchedule(ctx, &sch.DeleteScheduleInput{Name: aws.String(name), GroupName: aws.String(s.cfg.Group)})
	if err = classify(err, "delete schedule %s/%s", s.cfg.Group, name); fault.Is(err, fault.NotFound) {
		return nil
	}
	return err
}

func (s *Schedules) target(spec cron.ScheduleSpec) *types.Target {
	return &types.Target{
		Arn: aws.String(s.cfg.TargetARN), RoleArn: aws.String(s.cfg.RoleARN), Input: aws.String(spec.Input),
		RetryPolicy: &types.RetryPolicy{MaximumRetryAttempts: aws.Int32(maxRetries), MaximumEventAgeInSeconds: aws.Int32(maxEventAge)},
	}
}

func state(spec cron.ScheduleSpec) types.ScheduleState {
	if spec.Enabled {
		return types.ScheduleStateEnabled
	}
	return types.ScheduleStateDisabled
}
