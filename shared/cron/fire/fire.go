// Package fire is what happens when a cron job's schedule fires: the cron
// function's core. It loads the job, skips a fire whose previous run is
// still going (recorded as skipped), queues the run's message through the
// ingest door as the operator's, records the run ("queued") and moves the
// job's state on (last and next run, the run to check next time, a
// one-shot disabled or deleted). It is core: ports only.
//
// Idempotent: Scheduler delivers at least once and retries a failed
// invocation, and every retry of one fire carries the same scheduled time.
// The run's message id is cron:<jobId>:<fire key> (the scheduled time), so
// the queue and the runner's message record run it once; the run record
// is keyed by the scheduled time; the job remembers the last fire it
// handled (State.LastFireKey) and a repeat of it, or of any earlier fire,
// does nothing.
package fire

import (
	"context"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/run"
)

// Outcomes of a fire (Result.Outcome).
const (
	Queued    = "queued"    // the run is on the queue
	Skipped   = "skipped"   // the previous run was still going
	Duplicate = "duplicate" // this fire was handled already (a retry)
	Gone      = "gone"      // no such job (a stray schedule): nothing done
	Disabled  = "disabled"  // the job is disabled: nothing done
)

// StaleAfter bounds how long a queued or running previous run blocks the
// next fire: a run lost on the way (a message that went to the
// dead-letter queue before its run started) must not skip the job
// forever. It is above the runner's 900 s limit times its retries.
const StaleAfter = 2 * time.Hour

// Door is the ingest door (ingest.Door is one).
type Door interface {
	Accept(ctx context.Context, r ingest.Request) (ingest.Outcome, error)
}

// Settings supplies zero.json (config.Cache is one).
type Settings interface {
	Current(ctx context.Context) (*config.Config, error)
}

// Deps is what a Firer needs; all but Now are required.
type Deps struct {
	Store    cron.Store
	Runs     run.Getter
	Door     Door
	Settings Settings
	Now      func() time.Time // nil: time.Now
}

// Firer handles fires. Safe for concurrent use.
type Firer struct{ d Deps }

// New returns a Firer over d.
func New(d Deps) *Firer {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Firer{d: d}
}

// Result is what one fire did.
type Result struct {
	Outcome    string `json:"outcome"`
	JobID      string `json:"jobId"`
	RunID      string `json:"runId,omitempty"`
	SessionKey string `json:"sessionKey,omitempty"`
}

// Fire handles one fire of r.JobID scheduled at r.ScheduledTime (RFC
// 3339; empty: now). Errors are the ports' (fault-classified) and
// fault.Invalid for a malformed request; the caller returns them so that
// Scheduler retries, which is safe (see the package doc).
func (f *Firer) Fire(ctx context.Context, r cron.FireRequest) (Result, error) {
	at, err := scheduledAt(r.ScheduledTime, f.d.Now())
	if err != nil {
		return Result{}, err
	}
	id := strings.ToLower(strings.TrimSpace(r.JobID))
	j, err := f.d.Store.Get(ctx, id)
	switch {
	case fault.Is(err, fault.NotFound):
		return Result{Outcome: Gone, JobID: id}, nil
	case err != nil:
		return Result{}, err
	case !j.Enabled:
		return Result{Outcome: Disabled, JobID: id}, nil
	case j.State.LastFireKey != "" && cron.FireKey(at) <= j.State.LastFireKey:
		// Fire keys sort by time: a fire at or before the last one handled
		// is a redelivery (or one overtaken by a later fire).
		return Result{Outcome: Duplicate, JobID: id, RunID: j.State.LastRunID}, nil
	}
	busy, err := f.settlePrevious(ctx, &j)
	if err != nil {
		return Result{}, err
	}
	if busy {
		return f.skip(ctx, j, at)
	}
	return f.queue(ctx, j, at)
}

// scheduledAt parses the scheduled time; none is now (a manual invoke).
func scheduledAt(s string, now time.Time) (time.Time, error) {
	if strings.TrimSpace(s) == "" {
		return now.UTC().Truncate(time.Second), nil
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, fault.Wrap(fault.Invalid, err, "cron fire: scheduledTime %q is not RFC 3339", s)
	}
	return t.UTC(), nil
}

// settlePrevious looks at the previous fire's run: busy when it is still
// queued or running (and younger than StaleAfter); when it has ended, its
// outcome goes into j's state (lastStatus, lastError, lastDurationMs).
func (f *Firer) settlePrevious(ctx context.Context, j *cron.Job) (busy bool, err error) {
	st := &j.State
	if st.LastRunID == "" || st.RunningAtMs == 0 {
		return false, nil
	}
	fresh := f.d.Now().Sub(time.UnixMilli(st.RunningAtMs)) < StaleAfter
	rec, err := f.d.Runs.Get(ctx, st.LastRunID)
	switch {
	case fault.Is(err, fault.NotFound):
		if fresh {
			return true, nil // queued, not started yet
		}
		st.LastStatus, st.LastError = cron.StatusError, "the run never started"
	case err != nil:
		return false, err
	case !run.Terminal(rec.Status):
		if fresh {
			return true, nil
		}
		st.LastStatus, st.LastError = cron.StatusError, "the run did not finish"
	default:
		st.LastStatus, st.LastError = statusOf(rec.Status), rec.Error
		if rec.EndedAt > rec.StartedAt {
			st.LastDurationMs = rec.EndedAt - rec.StartedAt
		}
	}
	st.RunningAtMs = 0
	return false, nil
}

// statusOf maps a run's terminal status to a job's (ok or error).
func statusOf(runStatus string) string {
	if runStatus == run.StatusOK {
		return cron.StatusOK
	}
	return cron.StatusError
}
