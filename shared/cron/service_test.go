package cron

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
)

func serviceJob(id, msg string) Job {
	return Job{ID: id, Name: id, Enabled: true, Schedule: Schedule{Kind: KindEvery, EveryMs: 3_600_000},
		Payload: Payload{Kind: PayloadAgentTurn, Message: msg}}
}

func TestServiceAddUpdateRemove(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		syncErr   error // the schedules fail with it during the step
		step      func(s *Service) error
		wantCode  fault.Code
		wantSync  bool // the error is a SyncError
		wantJobs  []string
		wantSched []string
	}{
		{name: "add", step: func(s *Service) error { _, err := s.Add(ctx, serviceJob("a", "m")); return err },
			wantJobs: []string{"a"}, wantSched: []string{"a"}},
		{name: "add the same job again is done", step: func(s *Service) error {
			s.Add(ctx, serviceJob("a", "m"))
			_, err := s.Add(ctx, serviceJob("a", "m"))
			return err
		}, wantJobs: []string{"a"}, wantSched: []string{"a"}},
		{name: "add another job under the id conflicts", step: func(s *Service) error {
			s.Add(ctx, serviceJob("a", "m"))
			_, err := s.Add(ctx, serviceJob("a", "other"))
			return err
		}, wantCode: fault.Conflict, wantJobs: []string{"a"}, wantSched: []string{"a"}},
		{name: "an invalid job stores nothing", step: func(s *Service) error { _, err := s.Add(ctx, serviceJob("a", "")); return err },
			wantCode: fault.Invalid, wantJobs: []string{}, wantSched: []string{}},
		{name: "a failed sync keeps the job, says so", syncErr: fault.New(fault.Unavailable, "down"),
			step:     func(s *Service) error { _, err := s.Add(ctx, serviceJob("a", "m")); return err },
			wantCode: fault.Unavailable, wantSync: true, wantJobs: []string{"a"}, wantSched: []string{}},
		{name: "update", step: func(s *Service) error {
			s.Add(ctx, serviceJob("a", "m"))
			off := false
			_, err := s.Update(ctx, " A ", Patch{Enabled: &off}, ByOperator)
			return err
		}, wantJobs: []string{"a"}, wantSched: []string{"a"}},
		{name: "update a missing job", step: func(s *Service) error { _, err := s.Update(ctx, "nope", Patch{}, ByOperator); return err },
			wantCode: fault.NotFound, wantJobs: []string{}, wantSched: []string{}},
		{name: "remove", step: func(s *Service) error {
			s.Add(ctx, serviceJob("a", "m"))
			_, err := s.Remove(ctx, "a")
			return err
		}, wantJobs: []string{}, wantSched: []string{}},
		{name: "remove without an id", step: func(s *Service) error { _, err := s.Remove(ctx, " "); return err },
			wantCode: fault.Invalid, wantJobs: []string{}, wantSched: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store, sched := &Memory{}, &MemorySchedules{}
			s := &Service{Store: store, Schedules: failingSchedules{sched, tt.syncErr}, Now: func() time.Time { return now }}
			err := tt.step(s)
			if got := codeOf(err); got != tt.wantCode {
				t.Fatalf("error %v (code %q), want code %q", err, got, tt.wantCode)
			}
			if _, isSync := errors.AsType[*SyncError](err); isSync != tt.wantSync {
				t.Errorf("SyncError %v, want %v (%v)", isSync, tt.wantSync, err)
			}
			jobs, _ := s.List(ctx, true)
			ids, names := []string{}, []string{}
			for _, j := range jobs {
				ids = append(ids, j.ID)
			}
			for n := range sched.Specs {
				names = append(names, n)
			}
			if diff := cmp.Diff(tt.wantJobs, ids); diff != "" {
				t.Errorf("jobs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSched, names); diff != "" {
				t.Errorf("schedules (-want +got):\n%s", diff)
			}
		})
	}
}

// failingSchedules is s, except that every call fails with err when set.
type failingSchedules struct {
	s   *MemorySchedules
	err error
}

func (f failingSchedules) Put(ctx context.Context, spec ScheduleSpec) error {
	if f.err != nil {
		return f.err
	}
	return f.s.Put(ctx, spec)
}

func (f failingSchedules) Delete(ctx context.Context, name string) error {
	if f.err != nil {
		return f.err
	}
	return f.s.Delete(ctx, name)
}

func codeOf(err error) fault.Code {
	if err == nil {
		return ""
	}
	return fault.CodeOf(err)
}
