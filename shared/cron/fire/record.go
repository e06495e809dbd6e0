package fire

import (
	"context"
	"time"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/ingest"
)

// skip records a skipped fire (run record "finished"/"skipped", keyed by
// the scheduled time) and moves the job's next run on. The previous run
// stays the one the next fire checks.
func (f *Firer) skip(ctx context.Context, j cron.Job, at time.Time) (Result, error) {
	next := cron.NextRunAtMs(j.Schedule, at)
	rec := cron.RunRecord{Ts: at.UnixMilli(), JobID: j.ID, Action: cron.ActionFinished, Status: cron.StatusSkipped,
		Summary: "skipped: the previous run (" + j.State.LastRunID + ") was still going", RunAtMs: at.UnixMilli(), NextRunAtMs: next}
	if err := f.d.Store.AppendRun(ctx, rec); err != nil {
		return Result{}, err
	}
	j.State.LastFireKey, j.State.NextRunAtMs = cron.FireKey(at), next
	if err := f.saveState(ctx, j); err != nil {
		return Result{}, err
	}
	return Result{Outcome: Skipped, JobID: j.ID, RunID: j.State.LastRunID}, nil
}

// queue puts the run's message through the door (as the operator's: the
// job is the operator's own), records the run as queued and updates the
// job. An isolated job's key is a cron key, on which the runner starts a
// fresh sessionId for every fired message (cron.Fired, turn.ResetCron):
// each fire runs in a new session. A refusal by the door (nothing to run) is recorded as
// an error run.
func (f *Firer) queue(ctx context.Context, j cron.Job, at time.Time) (Result, error) {
	cfg, err := f.d.Settings.Current(ctx)
	if err != nil {
		return Result{}, err
	}
	key := cron.FireKey(at)
	msg := cron.Message(j, cfg, key, at)
	out, err := f.d.Door.Accept(ctx, ingest.Request{Message: msg, Origin: ingest.Operator})
	if err != nil {
		return Result{}, err
	}
	next := cron.NextRunAtMs(j.Schedule, at)
	rec := cron.RunRecord{Ts: at.UnixMilli(), JobID: j.ID, RunAtMs: at.UnixMilli(), NextRunAtMs: next, SessionKey: msg.SessionKey}
	res := Result{Outcome: Queued, JobID: j.ID, SessionKey: msg.SessionKey}
	switch o := out.(type) {
	case ingest.Queued:
		rec.RunID, rec.Action = o.RunID, cron.ActionQueued
		res.RunID = o.RunID
		j.State.LastRunID, j.State.RunningAtMs = o.RunID, at.UnixMilli()
	case ingest.Refused:
		rec.Action, rec.Status, rec.Error = cron.ActionFinished, cron.StatusError, "refused: "+string(o.Reason)
	case ingest.Ignored:
		rec.Action, rec.Status, rec.Error = cron.ActionFinished, cron.StatusError, "ignored: "+string(o.Reason)
	default:
		return Result{}, fault.New(fault.Internal, "cron fire: unknown ingest outcome %T", out)
	}
	if err := f.d.Store.AppendRun(ctx, rec); err != nil {
		return Result{}, err
	}
	j.State.LastRunAtMs, j.State.LastFireKey, j.State.NextRunAtMs = at.UnixMilli(), key, next
	if rec.Status != "" {
		j.State.LastStatus, j.State.LastError, j.State.RunningAtMs = rec.Status, rec.Error, 0
	}
	if j.Schedule.Kind == cron.KindAt {
		return res, f.finishOneShot(ctx, j)
	}
	return res, f.saveState(ctx, j)
}

// finishOneShot ends a one-shot job after its fire: deleted with
// deleteAfterRun (its run records stay), else kept disabled with no next
// run. Its schedule deletes itself (ActionAfterCompletion DELETE).
func (f *Firer) finishOneShot(ctx context.Context, j cron.Job) error {
	if j.DeleteAfterRun {
		if err := f.d.Store.Delete(ctx, j.ID); err != nil && !fault.Is(err, fault.NotFound) {
			return err
		}
		return nil
	}
	j.Enabled, j.State.NextRunAtMs = false, 0
	return f.saveState(ctx, j)
}

// saveState writes j's state onto the job as stored now (re-read, so an
// update of the job since Fire read it keeps its fields; only the state
// and, for a one-shot, enabled are this fire's). A job removed meanwhile
// stays removed.
func (f *Firer) saveState(ctx context.Context, j cron.Job) error {
	cur, err := f.d.Store.Get(ctx, j.ID)
	if fault.Is(err, fault.NotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	cur.State = j.State
	if j.Schedule.Kind == cron.KindAt && cur.Schedule == j.Schedule {
		cur.Enabled = j.Enabled
	}
	if err := f.d.Store.Put(ctx, cur, cron.Replace); err != nil && !fault.Is(err, fault.NotFound) {
		return err
	}
	return nil
}
