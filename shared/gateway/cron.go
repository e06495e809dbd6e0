package gateway

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
)

// CronDeps is what the cron.* methods need (Deps.Cron). Deps.Cron nil:
// every cron method answers 501 "cron is not configured".
type CronDeps struct {
	Store cron.Store // required
	// Schedules keeps one schedule per job (shared/scheduler on
	// EventBridge Scheduler). nil: jobs are stored but never fire.
	Schedules cron.Schedules
	// NewID makes the id of a job added without one and the fire key of
	// a cron.run; nil: a random UUID.
	NewID func() string
}

// Cron defaults.
const (
	cronRunsDefault = 50
	cronRunsMax     = 500
)

// cronStore is the configured store, or a 501 error.
func (g *gateway) cronStore() (cron.Store, error) {
	if g.Cron == nil || g.Cron.Store == nil {
		return nil, &statusError{http.StatusNotImplemented, fault.New(fault.Internal, "cron is not configured on this gateway")}
	}
	return g.Cron.Store, nil
}

// cronService is the cron core on the configured store and schedules, or
// a 501 error.
func (g *gateway) cronService() (*cron.Service, error) {
	store, err := g.cronStore()
	if err != nil {
		return nil, err
	}
	return &cron.Service{Store: store, Schedules: g.Cron.Schedules, Now: g.Now}, nil
}

// cronStatus answers whether cron is configured, how many jobs there are
// and when the next one is due. Cost: one List.
func (g *gateway) cronStatus(ctx context.Context, params json.RawMessage) (any, error) {
	if err := decodeParams(params, &struct{}{}); err != nil {
		return nil, err
	}
	svc, err := g.cronService()
	if err != nil {
		return nil, err
	}
	st, err := svc.Status(ctx)
	if err != nil {
		return nil, err
	}
	return CronStatusResult(st), nil
}

// cronList lists the jobs by id, the enabled ones unless includeDisabled.
func (g *gateway) cronList(ctx context.Context, params json.RawMessage) (any, error) {
	var p CronListParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	svc, err := g.cronService()
	if err != nil {
		return nil, err
	}
	jobs, err := svc.List(ctx, p.IncludeDisabled)
	if err != nil {
		return nil, err
	}
	return CronListResult{Jobs: jobs}, nil
}

// cronAdd validates and stores a new job and answers with it. An id that
// exists is a conflict (409).
func (g *gateway) cronAdd(ctx context.Context, params json.RawMessage) (any, error) {
	var p CronAddParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	svc, err := g.cronService()
	if err != nil {
		return nil, err
	}
	j := p.Job()
	if strings.TrimSpace(j.ID) == "" {
		j.ID = g.newCronID()
	}
	if j, err = svc.Add(ctx, j); err != nil {
		return nil, unlessSync("params.", err)
	}
	return j, nil
}

// cronUpdate applies {id, patch} to a job and answers with the result.
func (g *gateway) cronUpdate(ctx context.Context, params json.RawMessage) (any, error) {
	var p CronUpdateParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Patch == nil {
		return nil, invalidf("params.patch: required")
	}
	svc, err := g.cronService()
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.ID) == "" {
		return nil, invalidf("params.id: required")
	}
	j, err := svc.Update(ctx, p.ID, *p.Patch, cron.ByOperator)
	if err != nil {
		return nil, unlessSync("params.patch.", err)
	}
	return j, nil
}

// cronRemove deletes a job, its schedule first; its run records stay.
func (g *gateway) cronRemove(ctx context.Context, params json.RawMessage) (any, error) {
	var p CronIDParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	svc, err := g.cronService()
	if err != nil {
		return nil, err
	}
	id, err := svc.Remove(ctx, p.ID)
	if err != nil {
		return nil, paramsPrefix(err)
	}
	return CronRemoveResult{ID: id, Removed: true}, nil
}

// unlessSync prefixes a validation error's field, leaving a schedule sync
// failure (cron.SyncError) as it is.
func unlessSync(prefix string, err error) error {
	if _, ok := errors.AsType[*cron.SyncError](err); ok {
		return err
	}
	return prefixed(prefix, err)
}

// cronRun queues a run of the job now, enabled or not, through the
// ingest door as the operator's (as agent does), and records it
// (action "queued"). Each call is a new run with its own message id.
func (g *gateway) cronRun(ctx context.Context, params json.RawMessage) (any, error) {
	var p CronIDParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	store, j, err := g.cronJob(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	if g.Queue == nil {
		return nil, missing("Queue")
	}
	cfg, err := g.config(ctx)
	if err != nil {
		return nil, err
	}
	now := g.Now()
	msg := cron.Message(j, cfg, "manual-"+g.newCronID(), now)
	out, err := g.enqueue(ctx, cfg, msg)
	if err != nil {
		return nil, err
	}
	acc, ok := out.(AgentAccepted)
	if !ok {
		return nil, fault.New(fault.Internal, "cron.run: unexpected enqueue answer %T", out)
	}
	rec := cron.RunRecord{Ts: now.UnixMilli(), JobID: j.ID, RunID: acc.RunID, Action: cron.ActionQueued,
		RunAtMs: now.UnixMilli(), SessionKey: msg.SessionKey}
	if err := store.AppendRun(ctx, rec); err != nil {
		// The run is queued and will run; only its record is missing.
		g.Log.WarnContext(ctx, "cron.run: queued but not recorded", "job", j.ID, "run_id", acc.RunID, "err", err)
	}
	return CronRunResult{ID: j.ID, RunID: acc.RunID, Status: "queued", SessionKey: acc.SessionKey, QueuedAt: now.UnixMilli()}, nil
}

// cronRuns lists a job's run records, newest first. A removed job's
// records are still listed; an id that never ran lists none.
func (g *gateway) cronRuns(ctx context.Context, params json.RawMessage) (any, error) {
	var p CronRunsParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	id := strings.TrimSpace(p.ID)
	switch {
	case id == "":
		return nil, invalidf("params.id: required")
	case p.Limit < 0:
		return nil, invalidf("params.limit: must not be negative")
	case p.Limit == 0:
		p.Limit = cronRunsDefault
	case p.Limit > cronRunsMax:
		p.Limit = cronRunsMax
	}
	svc, err := g.cronService()
	if err != nil {
		return nil, err
	}
	runs, err := svc.Runs(ctx, id, p.Limit)
	if err != nil {
		return nil, err
	}
	for i := range runs {
		g.settleRun(ctx, &runs[i])
	}
	return CronRunsResult{Entries: runs}, nil
}

// cronJob loads the job id names (params.id required; a missing job is
// 404).
func (g *gateway) cronJob(ctx context.Context, id string) (cron.Store, cron.Job, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return nil, cron.Job{}, invalidf("params.id: required")
	}
	svc, err := g.cronService()
	if err != nil {
		return nil, cron.Job{}, err
	}
	j, err := svc.Get(ctx, id)
	if err != nil {
		return nil, cron.Job{}, err
	}
	return svc.Store, j, nil
}

func (g *gateway) newCronID() string {
	if g.Cron.NewID != nil {
		return g.Cron.NewID()
	}
	return randomUUID()
}

// paramsPrefix puts "params." before a cron validation error's field.
func paramsPrefix(err error) error { return prefixed("params.", err) }

func prefixed(prefix string, err error) error {
	if fault.CodeOf(err) != fault.Invalid {
		return err
	}
	return fault.Wrap(fault.Invalid, err, "%s%s", prefix, fault.Message(err))
}

// randomUUID is a random (version 4) UUID.
func randomUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
