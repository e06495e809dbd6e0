package firing

import (
	"context"
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sch "github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/scheduler/types"

	"github.com/zero-gateway/zero/shared/cron"
)

// check reads the schedule again when it changed, then fires what is due
// between its cursor and now.
func (t *Ticker) check(ctx context.Context, s types.ScheduleSummary, now time.Time) error {
	arn := aws.ToString(s.Arn)
	modified := aws.ToTime(s.LastModificationDate)
	tr, ok := t.seen[arn]
	if !ok || !tr.modified.Equal(modified) {
		full, err := t.cfg.API.GetSchedule(ctx, &sch.GetScheduleInput{Name: s.Name, GroupName: s.GroupName})
		if err != nil {
			return err
		}
		if !ok {
			tr = &tracked{cursor: modified}
			t.seen[arn] = tr
		}
		tr.modified, tr.s = modified, full
		if modified.After(tr.cursor) {
			tr.cursor = modified
		}
	}
	if tr.s.State == types.ScheduleStateDisabled {
		tr.cursor = now
		return nil
	}
	for range maxFiresPerTick {
		due, ok, err := cron.NextFire(aws.ToString(tr.s.ScheduleExpression), aws.ToString(tr.s.ScheduleExpressionTimezone),
			tr.s.StartDate, aws.ToTime(tr.s.CreationDate), tr.cursor)
		if err != nil || !ok || due.After(now) {
			if err == nil && !ok && tr.s.ActionAfterCompletion == types.ActionAfterCompletionDelete {
				return t.complete(ctx, arn, tr.s)
			}
			tr.cursor = now
			return err
		}
		tr.cursor = due
		t.fire(ctx, tr.s, due)
	}
	tr.cursor = now
	return nil
}

// complete deletes a one-shot schedule after its fire (ActionAfterCompletion
// DELETE).
func (t *Ticker) complete(ctx context.Context, arn string, s *sch.GetScheduleOutput) error {
	_, err := t.cfg.API.DeleteSchedule(ctx, &sch.DeleteScheduleInput{Name: s.Name, GroupName: s.GroupName})
	if err != nil {
		return fmt.Errorf("delete completed one-shot: %w", err)
	}
	delete(t.seen, arn)
	t.cfg.Logf("scheduler emulation: one-shot schedule %s completed and deleted", aws.ToString(s.Name))
	return nil
}

// fire invokes the schedule's target with its Input, context attributes
// filled in.
func (t *Ticker) fire(ctx context.Context, s *sch.GetScheduleOutput, due time.Time) {
	name := aws.ToString(s.Name)
	if s.Target == nil {
		t.cfg.Logf("scheduler emulation: schedule %s has no target", name)
		return
	}
	fn, ok := t.cfg.Functions[aws.ToString(s.Target.Arn)]
	if !ok {
		t.cfg.Logf("scheduler emulation: schedule %s targets %s, which is no local function: not fired", name, aws.ToString(s.Target.Arn))
		return
	}
	payload := Input(aws.ToString(s.Target.Input), aws.ToString(s.Arn), due)
	out, err := t.cfg.Invoke(ctx, fn, []byte(payload))
	if err != nil {
		t.cfg.Logf("scheduler emulation: fire of %s at %s: %v", name, due.UTC().Format(time.RFC3339), err)
		return
	}
	t.cfg.Logf("scheduler emulation: fired %s (scheduled %s) -> %s: %s", name, due.UTC().Format(time.RFC3339), fn, out)
}

// Input is a target's input with Scheduler's context attributes filled
// in for a fire of schedule arn due at due.
func Input(input, arn string, due time.Time) string {
	var id [16]byte
	rand.Read(id[:])
	return strings.NewReplacer(
		cron.AttrScheduledTime, due.UTC().Format(time.RFC3339),
		cron.AttrExecutionID, fmt.Sprintf("%x", id),
		"<aws.scheduler.schedule-arn>", arn,
		"<aws.scheduler.attempt-number>", strconv.Itoa(1),
	).Replace(input)
}
