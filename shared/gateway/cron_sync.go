package gateway

import (
	"context"
	"reflect"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/run"
)

// Keeping a job and its schedule together. The store is the truth and is
// written first; the schedule follows:
//
//   - cron.add and cron.update: store write, then cron.Sync (put the
//     schedule, or delete it when the job cannot fire again). When the
//     sync fails the call fails (5xx) and is retried: update re-applies
//     its patch and syncs again; add finds its own job already stored
//     (the same definition) and syncs it. Until then the old schedule (or
//     none) fires, and each fire reads the stored job, so it runs the job
//     as stored, or not at all when it is disabled or gone.
//   - cron.remove: schedule delete first, then the store delete, so a
//     failure between them never leaves a schedule without its job; a
//     retried remove completes it (a missing schedule is no error).
//
// Scheduler calls: add 2 (UpdateSchedule answers not found, then
// CreateSchedule), update 1, remove 1.

// syncSchedule syncs j's schedule; without Schedules it does nothing.
func (g *gateway) syncSchedule(ctx context.Context, j cron.Job) error {
	if g.Cron.Schedules == nil {
		return nil
	}
	if err := cron.Sync(ctx, g.Cron.Schedules, j, g.Now()); err != nil {
		return fault.Wrap(fault.CodeOf(err), err, "cron job %s is stored, its schedule is not (retry the call)", j.ID)
	}
	return nil
}

// sameJob reports whether a and b define the same job (times and state
// aside).
func sameJob(a, b cron.Job) bool {
	a.CreatedAtMs, a.UpdatedAtMs, a.State = 0, 0, cron.State{}
	b.CreatedAtMs, b.UpdatedAtMs, b.State = 0, 0, cron.State{}
	return reflect.DeepEqual(a, b)
}

// settleRun fills a "queued" run record from its run, when the run has
// ended: status ok or error (error, timeout and aborted runs), the error,
// the duration, the session id and the start of the reply as summary. A
// run still going, or one the store cannot read, stays "queued". Cost:
// one GetItem per queued record.
func (g *gateway) settleRun(ctx context.Context, r *cron.RunRecord) {
	if r.Action != cron.ActionQueued || r.RunID == "" || g.Runs == nil {
		return
	}
	rec, err := g.Runs.Get(ctx, r.RunID)
	if err != nil {
		return
	}
	r.SessionID = rec.SessionID
	if !run.Terminal(rec.Status) {
		return
	}
	r.Action, r.Status, r.Error = cron.ActionFinished, cron.StatusError, rec.Error
	if rec.Status == run.StatusOK {
		r.Status = cron.StatusOK
	} else if r.Error == "" {
		r.Error = rec.Status
	}
	if rec.EndedAt > rec.StartedAt {
		r.DurationMs = rec.EndedAt - rec.StartedAt
	}
	r.Summary = summary(rec.Reply)
}

// summary is the start of a reply, at most 200 characters.
func summary(reply string) string {
	rs := []rune(reply)
	if len(rs) <= 200 {
		return reply
	}
	return string(rs[:199]) + "…"
}
