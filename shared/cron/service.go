package cron

import (
	"context"
	"reflect"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
)

// Service keeps jobs and their schedules together; the gateway's cron.*
// methods and the agent's cron tool both go through it. The store is the
// truth and is written first; the schedule follows:
//
//   - Add and Update: store write, then Sync (put the schedule, or delete
//     it when the job cannot fire again). When the sync fails the call
//     fails and is retried: Update re-applies its patch and syncs again;
//     Add finds its own job already stored (the same definition) and
//     syncs it. Until then the old schedule (or none) fires, and each
//     fire reads the stored job, so it runs the job as stored, or not at
//     all when it is disabled or gone.
//   - Remove: schedule delete first, then the store delete, so a failure
//     between them never leaves a schedule without its job; a retried
//     remove completes it (a missing schedule is no error).
//
// Scheduler calls: add 2 (UpdateSchedule answers not found, then
// CreateSchedule), update 1, remove 1. Validation errors are fault.Invalid
// naming the job's field ("schedule.kind: ..."), without a prefix.
type Service struct {
	Store Store // required
	// Schedules keeps one schedule per job; nil: jobs are stored but
	// never fire.
	Schedules Schedules
	Now       func() time.Time // nil: time.Now
}

// Status summarises the jobs: {enabled, jobs, enabledJobs, nextWakeAtMs}.
type Status struct {
	Enabled      bool  `json:"enabled"`                // the cron store is configured
	Jobs         int   `json:"jobs"`                   // all jobs
	EnabledJobs  int   `json:"enabledJobs"`            // jobs that fire
	NextWakeAtMs int64 `json:"nextWakeAtMs,omitempty"` // the earliest next run of an enabled job
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Status counts the jobs and finds the next one due. Cost: one List.
func (s *Service) Status(ctx context.Context) (Status, error) {
	jobs, err := s.Store.List(ctx)
	if err != nil {
		return Status{}, err
	}
	res := Status{Enabled: true, Jobs: len(jobs)}
	for _, j := range jobs {
		if !j.Enabled {
			continue
		}
		res.EnabledJobs++
		if n := j.State.NextRunAtMs; n > 0 && (res.NextWakeAtMs == 0 || n < res.NextWakeAtMs) {
			res.NextWakeAtMs = n
		}
	}
	return res, nil
}

// List returns the jobs by id, the enabled ones unless includeDisabled;
// never nil.
func (s *Service) List(ctx context.Context, includeDisabled bool) ([]Job, error) {
	jobs, err := s.Store.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Job, 0, len(jobs))
	for _, j := range jobs {
		if j.Enabled || includeDisabled {
			out = append(out, j)
		}
	}
	return out, nil
}

// Add validates (New) and stores j, whose ID the caller has set, syncs
// its schedule and returns the stored job. An id that exists with another
// definition is fault.Conflict; the same definition (a retried add whose
// sync failed) is synced again and answered as the first add would.
func (s *Service) Add(ctx context.Context, j Job) (Job, error) {
	j, err := New(j, s.now())
	if err != nil {
		return Job{}, err
	}
	if err := s.Store.Put(ctx, j, Create); err != nil {
		if !fault.Is(err, fault.Conflict) {
			return Job{}, err
		}
		old, gerr := s.Store.Get(ctx, j.ID)
		if gerr != nil || !SameJob(old, j) {
			return Job{}, err
		}
		j = old
	}
	return j, s.sync(ctx, j)
}

// Get loads the job id names (trimmed, lower-cased); an empty id is
// fault.Invalid "id: required", a missing job fault.NotFound.
func (s *Service) Get(ctx context.Context, id string) (Job, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return Job{}, fault.New(fault.Invalid, "id: required")
	}
	return s.Store.Get(ctx, id)
}

// Update applies patch by who to the job id names, stores it, syncs its
// schedule and returns the result; the job's CreatedBy follows
// CreatedByAfter (a tool's change of what the job does makes its runs
// untrusted). Patch errors are fault.Invalid naming the patched field.
// Idempotent: a retried update stores the same job.
func (s *Service) Update(ctx context.Context, id string, patch Patch, by Author) (Job, error) {
	old, err := s.Get(ctx, id)
	if err != nil {
		return Job{}, err
	}
	j, err := patch.Apply(old, s.now())
	if err != nil {
		return Job{}, err
	}
	j.CreatedBy = CreatedByAfter(old, j, patch, by)
	if err := s.Store.Put(ctx, j, Replace); err != nil {
		return Job{}, err
	}
	return j, s.sync(ctx, j)
}

// Remove deletes the job id names, its schedule first; its run records
// stay. It returns the removed job's id.
func (s *Service) Remove(ctx context.Context, id string) (string, error) {
	j, err := s.Get(ctx, id)
	if err != nil {
		return "", err
	}
	if s.Schedules != nil {
		if err := s.Schedules.Delete(ctx, j.ID); err != nil {
			return "", err
		}
	}
	if err := s.Store.Delete(ctx, j.ID); err != nil {
		return "", err
	}
	return j.ID, nil
}

// Runs lists up to limit of the run records of job id (a removed job's
// too), newest first; never nil.
func (s *Service) Runs(ctx context.Context, id string, limit int) ([]RunRecord, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return nil, fault.New(fault.Invalid, "id: required")
	}
	runs, err := s.Store.ListRuns(ctx, id, limit)
	if err != nil {
		return nil, err
	}
	if runs == nil {
		runs = []RunRecord{}
	}
	return runs, nil
}

// sync syncs j's schedule; without Schedules it does nothing. A failure
// says the job is stored and the call should be retried.
func (s *Service) sync(ctx context.Context, j Job) error {
	if s.Schedules == nil {
		return nil
	}
	if err := Sync(ctx, s.Schedules, j, s.now()); err != nil {
		return fault.Wrap(fault.CodeOf(err), &SyncError{Err: err}, "cron job %s is stored, its schedule is not (retry the call)", j.ID)
	}
	return nil
}

// SyncError marks (errors.As) a failure to sync a stored job's schedule,
// which a retry of the call completes, apart from the job's own
// validation errors.
type SyncError struct{ Err error }

func (e *SyncError) Error() string { return e.Err.Error() }
func (e *SyncError) Unwrap() error { return e.Err }

// SameJob reports whether a and b define the same job (times and state
// aside).
func SameJob(a, b Job) bool {
	a.CreatedAtMs, a.UpdatedAtMs, a.State = 0, 0, State{}
	b.CreatedAtMs, b.UpdatedAtMs, b.State = 0, 0, State{}
	return reflect.DeepEqual(a, b)
}
