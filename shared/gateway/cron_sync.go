package gateway

import (
	"context"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/run"
)

// Keeping a job and its schedule together is cron.Service's (shared/cron):
// the store first, then the schedule; see its doc for the failure and
// retry rules and the Scheduler call counts.

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
