package scheduler

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sch "github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/cron/crontest"
	"github.com/zero-gateway/zero/shared/emulator"
)

var testClient *sch.Client

func TestMain(m *testing.M) {
	os.Exit(emulator.RunTests(m, awsconfig.NewCounter(), func(_ context.Context, cfg aws.Config) (func(), error) {
		testClient = sch.NewFromConfig(cfg)
		return nil, nil
	}))
}

const (
	targetARN = "arn:aws:lambda:us-east-1:123456789012:function:cron"
	roleARN   = "arn:aws:iam::123456789012:role/scheduler"
)

// newGroup makes a fresh schedule group, deleted after the test, and the
// adapter on it.
func newGroup(t *testing.T) (*Schedules, string) {
	t.Helper()
	group := awstest.Name("zero-test-")
	if _, err := testClient.CreateScheduleGroup(context.Background(), &sch.CreateScheduleGroupInput{Name: aws.String(group)}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		testClient.DeleteScheduleGroup(context.Background(), &sch.DeleteScheduleGroupInput{Name: aws.String(group)})
	})
	return New(testClient, Config{Group: group, TargetARN: targetARN, RoleARN: roleARN}), group
}

// get is the schedule name in group, GetSchedule's answer.
func get(ctx context.Context, group, name string) (*sch.GetScheduleOutput, error) {
	out, err := testClient.GetSchedule(ctx, &sch.GetScheduleInput{Name: aws.String(name), GroupName: aws.String(group)})
	return out, classify(err, "get schedule %s/%s", group, name)
}

// TestSchedulesConformance runs the cron.Schedules suite on the emulator
// (moto): a fresh schedule group per case, read back with GetSchedule.
func TestSchedulesConformance(t *testing.T) {
	crontest.TestSchedules(t, func(t *testing.T) crontest.Schedules {
		s, group := newGroup(t)
		return crontest.Schedules{Schedules: s, Get: func(ctx context.Context, name string) (cron.ScheduleSpec, error) {
			out, err := get(ctx, group, name)
			if err != nil {
				return cron.ScheduleSpec{}, err
			}
			return cron.ScheduleSpec{
				Name: aws.ToString(out.Name),
				Expression: cron.Expression{Expr: aws.ToString(out.ScheduleExpression), TimeZone: aws.ToString(out.ScheduleExpressionTimezone),
					Start: out.StartDate, OneShot: out.ActionAfterCompletion == types.ActionAfterCompletionDelete},
				Enabled: out.State == types.ScheduleStateEnabled,
				Input:   aws.ToString(out.Target.Input),
			}, nil
		}}
	})
}

// TestScheduleTarget: what the suite cannot see, the schedule's target
// and timing: the cron function, invoked with the execution role, at the
// exact time, retried for an hour.
func TestScheduleTarget(t *testing.T) {
	ctx := context.Background()
	s, group := newGroup(t)
	spec := cron.ScheduleSpec{Name: "digest", Expression: cron.Expression{Expr: "cron(0 7 * * ? *)", TimeZone: "UTC"}, Enabled: true, Input: cron.FireInput("digest")}
	if err := s.Put(ctx, spec); err != nil {
		t.Fatal(err)
	}
	out, err := get(ctx, group, "digest")
	if err != nil {
		t.Fatal(err)
	}
	type target struct {
		Arn, RoleArn, Input, Window string
		Retries, MaxAge             int32
	}
	got := target{Arn: aws.ToString(out.Target.Arn), RoleArn: aws.ToString(out.Target.RoleArn), Input: aws.ToString(out.Target.Input)}
	if out.FlexibleTimeWindow != nil {
		got.Window = string(out.FlexibleTimeWindow.Mode)
	}
	if p := out.Target.RetryPolicy; p != nil {
		got.Retries, got.MaxAge = aws.ToInt32(p.MaximumRetryAttempts), aws.ToInt32(p.MaximumEventAgeInSeconds)
	}
	want := target{Arn: targetARN, RoleArn: roleARN, Input: cron.FireInput("digest"), Window: "OFF", Retries: maxRetries, MaxAge: maxEventAge}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("target (-want +got):\n%s", diff)
	}
}

// TestConcurrentPutsOfANewSchedule: puts racing to create one schedule all
// succeed (the create that loses is retried as an update) and one of the
// specs is the schedule.
func TestConcurrentPutsOfANewSchedule(t *testing.T) {
	ctx := context.Background()
	s, group := newGroup(t)
	inputs := make([]string, 4)
	errs := make([]error, len(inputs))
	var wg sync.WaitGroup
	for i := range inputs {
		inputs[i] = fmt.Sprintf(`{"put":%d}`, i)
		wg.Go(func() {
			errs[i] = s.Put(ctx, cron.ScheduleSpec{Name: "j", Expression: cron.Expression{Expr: "rate(1 hour)", TimeZone: "UTC"}, Enabled: true, Input: inputs[i]})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("put %d: %v", i, err)
		}
	}
	out, err := get(ctx, group, "j")
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(out.Target.Input); !slices.Contains(inputs, got) {
		t.Errorf("schedule input %q; want one of %q", got, inputs)
	}
}
