package scheduler

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sch "github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/scheduler/types"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/emulator"
	"github.com/zero-gateway/zero/shared/fault"
)

var testClient *sch.Client

func TestMain(m *testing.M) {
	os.Exit(emulator.RunTests(m, awsconfig.NewCounter(), func(_ context.Context, cfg aws.Config) (func(), error) {
		testClient = sch.NewFromConfig(cfg)
		return nil, nil
	}))
}

// newGroup makes a fresh schedule group and the adapter on it.
func newGroup(t *testing.T) (*Schedules, string) {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	group := "zero-test-" + hex.EncodeToString(b)
	if _, err := testClient.CreateScheduleGroup(context.Background(), &sch.CreateScheduleGroupInput{Name: aws.String(group)}); err != nil {
		t.Fatal(err)
	}
	return New(testClient, Config{Group: group, TargetARN: "arn:aws:lambda:us-east-1:123456789012:function:cron",
		RoleARN: "arn:aws:iam::123456789012:role/scheduler"}), group
}

func get(t *testing.T, group, name string) (*sch.GetScheduleOutput, error) {
	t.Helper()
	out, err := testClient.GetSchedule(context.Background(), &sch.GetScheduleInput{Name: aws.String(name), GroupName: aws.String(group)})
	return out, classify(err, "get")
}

func TestSchedules(t *testing.T) {
	ctx := context.Background()
	start := time.Now().Add(time.Minute).UTC().Truncate(time.Minute)
	tests := []struct {
		name  string
		specs []cron.ScheduleSpec // put in order
		check func(t *testing.T, out *sch.GetScheduleOutput)
	}{
		{"a recurring job: created enabled, in its zone, invoking the function with the fire input",
			[]cron.ScheduleSpec{{Name: "digest", Expression: cron.Expression{Expr: "cron(0 7 ? * MON-FRI *)", TimeZone: "Europe/Berlin"}, Enabled: true, Input: cron.FireInput("digest")}},
			func(t *testing.T, out *sch.GetScheduleOutput) {
				if aws.ToString(out.ScheduleExpression) != "cron(0 7 ? * MON-FRI *)" || aws.ToString(out.ScheduleExpressionTimezone) != "Europe/Berlin" ||
					out.State != types.ScheduleStateEnabled || aws.ToString(out.Target.Input) != cron.FireInput("digest") ||
					aws.ToString(out.Target.Arn) != "arn:aws:lambda:us-east-1:123456789012:function:cron" || aws.ToString(out.Target.RoleArn) == "" {
					t.Errorf("schedule %+v target %+v", out, out.Target)
				}
			}},
		{"a one-shot deletes itself after its fire",
			[]cron.ScheduleSpec{{Name: "once", Expression: cron.Expression{Expr: "at(2030-01-01T07:00:00)", TimeZone: "UTC", OneShot: true}, Enabled: true, Input: "{}"}},
			func(t *testing.T, out *sch.GetScheduleOutput) {
				if out.ActionAfterCompletion != types.ActionAfterCompletionDelete {
					t.Errorf("ActionAfterCompletion = %q; want DELETE", out.ActionAfterCompletion)
				}
			}},
		{"a second put updates: disabled, new expression, start date",
			[]cron.ScheduleSpec{
				{Name: "every", Expression: cron.Expression{Expr: "rate(5 minutes)", TimeZone: "UTC"}, Enabled: true, Input: "{}"},
				{Name: "every", Expression: cron.Expression{Expr: "rate(1 minute)", TimeZone: "UTC", Start: &start}, Enabled: false, Input: "{}"},
			},
			func(t *testing.T, out *sch.GetScheduleOutput) {
				if aws.ToString(out.ScheduleExpression) != "rate(1 minute)" || out.State != types.ScheduleStateDisabled ||
					out.StartDate == nil || !out.StartDate.Equal(start) {
					t.Errorf("schedule %+v", out)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, group := newGroup(t)
			for _, spec := range tt.specs {
				if err := s.Put(ctx, spec); err != nil {
					t.Fatalf("put %+v: %v", spec, err)
				}
			}
			out, err := get(t, group, tt.specs[0].Name)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, out)
		})
	}
}

func TestDeleteIsIdempotent(t *testing.T) {
	ctx := context.Background()
	s, group := newGroup(t)
	if err := s.Put(ctx, cron.ScheduleSpec{Name: "j", Expression: cron.Expression{Expr: "rate(1 hour)", TimeZone: "UTC"}, Enabled: true, Input: "{}"}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := s.Delete(ctx, "j"); err != nil {
			t.Fatalf("delete %d: %v", i+1, err)
		}
	}
	if _, err := get(t, group, "j"); !fault.Is(err, fault.NotFound) {
		t.Errorf("after delete: %v; want not found", err)
	}
}
