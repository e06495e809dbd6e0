package cron

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
)

// Schedule context attributes EventBridge Scheduler substitutes in a
// templated target's Input on every invocation (the local stack's firing
// ticker substitutes them too).
const (
	AttrScheduledTime = "<aws.scheduler.scheduled-time>"
	AttrExecutionID   = "<aws.scheduler.execution-id>"
)

// FireRequest is what a job's schedule sends the cron function: the job
// and the fire's scheduled time (RFC 3339, UTC), the same on every retry
// of one fire.
type FireRequest struct {
	JobID         string `json:"jobId"`
	ScheduledTime string `json:"scheduledTime"`
}

// FireInput is the Input of job id's schedule target: a FireRequest whose
// scheduledTime Scheduler fills in per fire.
func FireInput(id string) string {
	// Not json.Marshal: it would write < and > as \u003c and \u003e,
	// which Scheduler does not recognise as its placeholder.
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(FireRequest{JobID: id, ScheduledTime: AttrScheduledTime})
	return strings.TrimSpace(b.String())
}

// FireKey names one fire of a job: its scheduled time, to the second, in
// UTC ("20261126T070000Z"). It is part of the run's message id.
func FireKey(scheduled time.Time) string { return scheduled.UTC().Format("20060102T150405Z") }

// ScheduleSpec is the one schedule a job has while it can fire: its name
// in the stack's schedule group (the job id), its expression, whether it
// is enabled, and the target's input.
type ScheduleSpec struct {
	Name       string
	Expression Expression
	Enabled    bool
	Input      string
}

// Schedules keeps the jobs' schedules (shared/scheduler is one, on
// EventBridge Scheduler). Both methods are idempotent; errors are
// fault-classified.
type Schedules interface {
	// Put creates the schedule or replaces an existing one of that name.
	Put(ctx context.Context, s ScheduleSpec) error
	// Delete removes the schedule; a missing one is not an error.
	Delete(ctx context.Context, name string) error
}

// SpecOf is j's schedule, ok=false when j has none: a job that cannot
// fire again (a one-shot whose time has passed, NextRunAtMs 0 while
// enabled). A disabled job keeps a DISABLED schedule, so enabling it is
// one update. An every schedule starts at the job's next run, so
// Scheduler's rate fires on the job's anchor (epoch-aligned without one).
func SpecOf(j Job, now time.Time) (ScheduleSpec, bool, error) {
	e, err := SchedulerExpression(j.Schedule)
	if err != nil {
		return ScheduleSpec{}, false, err
	}
	next := NextRunAtMs(j.Schedule, now)
	if next == 0 {
		return ScheduleSpec{}, false, nil
	}
	if j.Schedule.Kind == KindEvery {
		t := time.UnixMilli(next).UTC()
		e.Start = &t
	}
	return ScheduleSpec{Name: j.ID, Expression: e, Enabled: j.Enabled, Input: FireInput(j.ID)}, true, nil
}

// Sync makes j's schedule match j (SpecOf): put when it has one, else
// delete. Idempotent: call it again after any failure.
func Sync(ctx context.Context, s Schedules, j Job, now time.Time) error {
	spec, ok, err := SpecOf(j, now)
	if err != nil {
		return err
	}
	if !ok {
		return s.Delete(ctx, j.ID)
	}
	return s.Put(ctx, spec)
}

// MemorySchedules is an in-memory Schedules, for tests. The zero value is
// ready; it is not safe for concurrent use.
type MemorySchedules struct {
	Specs map[string]ScheduleSpec
	Err   error // returned by every call when set
}

// Put implements Schedules.
func (m *MemorySchedules) Put(_ context.Context, s ScheduleSpec) error {
	if m.Err != nil {
		return m.Err
	}
	if s.Name == "" {
		return fault.New(fault.Invalid, "schedule: a name is required")
	}
	if m.Specs == nil {
		m.Specs = map[string]ScheduleSpec{}
	}
	m.Specs[s.Name] = s
	return nil
}

// Delete implements Schedules.
func (m *MemorySchedules) Delete(_ context.Context, name string) error {
	if m.Err != nil {
		return m.Err
	}
	delete(m.Specs, name)
	return nil
}
