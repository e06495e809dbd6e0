package gateway

import (
	"context"
	"net/http"
	"testing"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/run"
)

// TestCronSchedulesFollowTheStore: add, update and remove keep one
// schedule per job (disabled jobs keep a DISABLED one), a failed sync
// fails the call and its retry completes it, and remove never leaves a
// schedule behind.
func TestCronSchedulesFollowTheStore(t *testing.T) {
	store, scheds := &cron.Memory{}, &cron.MemorySchedules{}
	f := newFixture(t, "", func(d *Deps) { d.Cron = &CronDeps{Store: store, Schedules: scheds} })
	ctx := context.Background()
	add := map[string]any{"id": "digest", "name": "Digest", "schedule": map[string]any{"kind": "cron", "expr": "0 7 * * 1-5", "tz": "Europe/Berlin"},
		"payload": map[string]any{"kind": "agentTurn", "message": "digest"}}

	steps := []struct {
		name    string
		method  string
		params  any
		failing bool
		status  int
		check   func(t *testing.T)
	}{
		{"add whose sync fails answers 5xx but keeps the job", "cron.add", add, true, http.StatusServiceUnavailable, func(t *testing.T) {
			if _, err := store.Get(ctx, "digest"); err != nil {
				t.Errorf("job: %v", err)
			}
		}},
		{"the retried add syncs the stored job", "cron.add", add, false, http.StatusOK, func(t *testing.T) {
			s, ok := scheds.Specs["digest"]
			if !ok || s.Expression.Expr != "cron(0 7 ? * 2-6 *)" || s.Expression.TimeZone != "Europe/Berlin" || !s.Enabled {
				t.Errorf("schedule %+v", s)
			}
		}},
		{"disabling keeps a disabled schedule", "cron.update", map[string]any{"id": "digest", "patch": map[string]any{"enabled": false}}, false, http.StatusOK, func(t *testing.T) {
			if s := scheds.Specs["digest"]; s.Enabled {
				t.Errorf("schedule still enabled")
			}
		}},
		{"a remove whose schedule delete fails keeps the job", "cron.remove", map[string]any{"id": "digest"}, true, http.StatusServiceUnavailable, func(t *testing.T) {
			if _, err := store.Get(ctx, "digest"); err != nil {
				t.Errorf("job: %v", err)
			}
		}},
		{"the retried remove deletes both", "cron.remove", map[string]any{"id": "digest"}, false, http.StatusOK, func(t *testing.T) {
			if _, ok := scheds.Specs["digest"]; ok {
				t.Errorf("schedule left behind")
			}
			if _, err := store.Get(ctx, "digest"); !fault.Is(err, fault.NotFound) {
				t.Errorf("job: %v", err)
			}
		}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			scheds.Err = nil
			if s.failing {
				scheds.Err = fault.New(fault.Unavailable, "scheduler down")
			}
			if r := f.call(s.method, s.params); r.status != s.status {
				t.Fatalf("%s = %d; want %d", s.method, r.status, s.status)
			}
			s.check(t)
		})
	}
}

// TestCronRunsSettleFromTheRun: a queued record shows its run's outcome
// once the run has ended.
func TestCronRunsSettleFromTheRun(t *testing.T) {
	f, store := cronFixture(t)
	ctx := context.Background()
	for _, r := range []cron.RunRecord{
		{Ts: 1, JobID: "j", RunID: "run_ok", Action: cron.ActionQueued},
		{Ts: 2, JobID: "j", RunID: "run_failed", Action: cron.ActionQueued},
		{Ts: 3, JobID: "j", RunID: "run_going", Action: cron.ActionQueued},
		{Ts: 4, JobID: "j", Action: cron.ActionFinished, Status: cron.StatusSkipped},
	} {
		if err := store.AppendRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	start := func(id string) {
		_ = f.runs.Start(ctx, run.Record{RunID: id, SessionID: "sid-" + id, Status: run.StatusRunning, StartedAt: 100}, nil)
	}
	start("run_ok")
	start("run_failed")
	start("run_going")
	_ = f.runs.Finish(ctx, run.Record{RunID: "run_ok", Status: run.StatusOK, EndedAt: 350, Reply: "all tidy"}, nil)
	_ = f.runs.Finish(ctx, run.Record{RunID: "run_failed", Status: run.StatusTimeout, EndedAt: 900}, nil)

	var out CronRunsResult
	f.call("cron.runs", map[string]any{"id": "j"}).decode(t, &out)
	got := map[string]cron.RunRecord{}
	for _, r := range out.Entries {
		got[r.RunID] = r
	}
	tests := []struct {
		name, runID, action, status, err, sessionID, summary string
		duration                                             int64
	}{
		{"ok", "run_ok", cron.ActionFinished, cron.StatusOK, "", "sid-run_ok", "all tidy", 250},
		{"timeout is an error", "run_failed", cron.ActionFinished, cron.StatusError, run.StatusTimeout, "sid-run_failed", "", 800},
		{"still running stays queued", "run_going", cron.ActionQueued, "", "", "sid-run_going", "", 0},
		{"skipped stays skipped", "", cron.ActionFinished, cron.StatusSkipped, "", "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := got[tt.runID]
			if r.Action != tt.action || r.Status != tt.status || r.Error != tt.err || r.SessionID != tt.sessionID || r.Summary != tt.summary || r.DurationMs != tt.duration {
				t.Errorf("record %+v", r)
			}
		})
	}
}
