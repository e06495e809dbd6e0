package gateway

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cost"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
)

// Limits of sessions.runs: how many turns (transcript parts) it reads.
const (
	defaultSessionRuns = 10
	maxSessionRuns     = 50
)

// RunBatchGetter reads many run records at once (shared/dynamo's RunStore
// is one: one BatchGetItem for up to 100). Runs without a record are left
// out of the answer. Deps.Runs that is not one is read a Get per run.
type RunBatchGetter interface {
	GetMany(ctx context.Context, runIDs []string) ([]run.Record, error)
}

// sessionsRuns answers sessions.runs {sessionKey? | sessionId?, limit?}:
// the runs of a session's newest turns, newest first, with status and
// duration, for the control page's Runs page. It needs no scan and no
// index: a turn's transcript part carries the inbound message id of its
// lines (sourceId) and the run's id is run.NewID(messageId).
//
// Only committed turns are listed: a queued or running turn has written
// no part yet (follow it by the runId agent returned). A run whose record
// is gone (expired after 30 days) is listed with status "unknown".
//
// Store calls: 1 Get (or 1 Lookup), one part read per turn (limit: default
// 10, at most 50) and 1 BatchGetItem of the run records.
func (g *gateway) sessionsRuns(ctx context.Context, params json.RawMessage) (any, error) {
	var p SessionRunsParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	n, err := p.count()
	if err != nil {
		return nil, err
	}
	if g.Runs == nil {
		return nil, missing("Runs")
	}
	cfg, key, e, err := g.transcriptSession(ctx, p.SessionKey, p.SessionID)
	if err != nil {
		return nil, err
	}
	res := SessionRunsResult{SessionKey: session.Display(key, cfg.Keys()), SessionID: e.SessionID, Runs: []SessionRun{}}
	if e.TranscriptSeq == 0 {
		return res, nil
	}
	parts, _, err := g.readParts(ctx, session.TranscriptPath(key, e), e.TranscriptSeq, 0, n)
	if err != nil {
		return nil, err
	}
	res.Runs, err = g.runRows(ctx, cfg, turnRuns(parts))
	return res, err
}

// count validates Limit and returns how many turns to read.
func (p SessionRunsParams) count() (int, error) {
	if p.Limit == nil {
		return defaultSessionRuns, nil
	}
	if *p.Limit < 1 {
		return 0, invalidf("params.limit: must be >= 1, got %d", *p.Limit)
	}
	return min(*p.Limit, maxSessionRuns), nil
}

// turnRuns are the runs of parts (oldest first), newest first: one per
// distinct sourceId, with the part it wrote.
func turnRuns(parts []TranscriptPart) []SessionRun {
	var out []SessionRun
	seen := map[string]bool{}
	for _, part := range slices.Backward(parts) {
		for _, l := range slices.Backward(part.Lines) {
			if l.SourceID == "" || seen[l.SourceID] {
				continue
			}
			seen[l.SourceID] = true
			out = append(out, SessionRun{RunID: run.NewID(l.SourceID), MessageID: l.SourceID, Seq: part.Seq, Status: RunStatusUnknown})
		}
	}
	return out
}

// runRows fills rows (at most 100) from their run records: one GetMany
// when Runs has it, else a Get each (a missing record stays "unknown").
func (g *gateway) runRows(ctx context.Context, cfg *config.Config, rows []SessionRun) ([]SessionRun, error) {
	if len(rows) == 0 {
		return []SessionRun{}, nil
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.RunID
	}
	recs, err := g.runRecords(ctx, ids)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		if rec, ok := recs[rows[i].RunID]; ok {
			rows[i].fill(rec)
			rows[i].price(cfg, rec)
		}
	}
	return rows, nil
}

// price sets the row's model cost (at the configured price of the run's
// model) and infrastructure cost (as the run recorded it).
func (r *SessionRun) price(cfg *config.Config, rec run.Record) {
	if rec.InfraCostUSD > 0 {
		infra := rec.InfraCostUSD
		r.InfraCostUSD = &infra
	}
	ref, err := model.ParseRef(rec.Model)
	if err != nil {
		return
	}
	if p, ok := cfg.ModelCost(ref); ok {
		usd := cost.Tokens(rec.Usage.Input, rec.Usage.Output, p.Input, p.Output)
		r.ModelCostUSD = &usd
	}
}

// runRecords reads the records of ids by run id.
func (g *gateway) runRecords(ctx context.Context, ids []string) (map[string]run.Record, error) {
	out := map[string]run.Record{}
	if bg, ok := g.Runs.(RunBatchGetter); ok {
		recs, err := bg.GetMany(ctx, ids)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			out[r.RunID] = r
		}
		return out, nil
	}
	for _, id := range ids {
		r, err := g.Runs.Get(ctx, id)
		switch {
		case err == nil:
			out[id] = r
		case !fault.Is(err, fault.NotFound):
			return nil, err
		}
	}
	return out, nil
}

// fill copies rec's state into r; DurationMs only for an ended run.
func (r *SessionRun) fill(rec run.Record) {
	r.Status, r.StartedAt, r.EndedAt = rec.Status, rec.StartedAt, rec.EndedAt
	r.Model, r.Usage, r.Error = rec.Model, rec.Usage, rec.Error
	if rec.EndedAt > 0 && rec.StartedAt > 0 {
		r.DurationMs = rec.EndedAt - rec.StartedAt
	}
}
