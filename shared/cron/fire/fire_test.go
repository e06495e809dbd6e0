package fire

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/run/runtest"
)

type fakeQueue struct{ msgs []inbound.Message }

func (q *fakeQueue) Enqueue(_ context.Context, m inbound.Message) error {
	for _, old := range q.msgs {
		if old.ID == m.ID {
			return nil // deduplicated, as the FIFO queue does
		}
	}
	q.msgs = append(q.msgs, m)
	return nil
}

type fixedSettings struct{}

func (fixedSettings) Current(context.Context) (*config.Config, error) { return config.Default(), nil }

type rig struct {
	f     *Firer
	store *cron.Memory
	runs  *runtest.MemStore
	queue *fakeQueue
	now   time.Time
}

func newRig(t *testing.T, jobs ...cron.Job) *rig {
	t.Helper()
	r := &rig{store: &cron.Memory{}, runs: runtest.NewMemStore(), queue: &fakeQueue{},
		now: time.Date(2026, 11, 26, 7, 0, 3, 0, time.UTC)}
	for _, j := range jobs {
		if err := r.store.Put(context.Background(), j, cron.Create); err != nil {
			t.Fatal(err)
		}
	}
	door := ingest.NewDoor(ingest.Deps{Queue: r.queue})
	r.f = New(Deps{Store: r.store, Runs: r.runs, Door: door, Settings: fixedSettings{}, Now: func() time.Time { return r.now }})
	return r
}

func job(id string, s cron.Schedule, deleteAfter bool) cron.Job {
	j, err := cron.New(cron.Job{ID: id, Name: id, Enabled: true, DeleteAfterRun: deleteAfter, Schedule: s,
		Payload: cron.Payload{Kind: cron.PayloadAgentTurn, Message: "digest", Deliver: true, Channel: "telegram", To: "42"}},
		time.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC))
	if err != nil {
		panic(err)
	}
	return j
}

const t0 = "2026-11-26T07:00:00Z"

func fire(t *testing.T, r *rig, id, at string) Result {
	t.Helper()
	res, err := r.f.Fire(context.Background(), cron.FireRequest{JobID: id, ScheduledTime: at})
	if err != nil {
		t.Fatalf("fire %s at %s: %v", id, at, err)
	}
	return res
}

func TestFire(t *testing.T) {
	every := cron.Schedule{Kind: cron.KindEvery, EveryMs: 60000}
	once := cron.Schedule{Kind: cron.KindAt, AtMs: time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC).UnixMilli()}
	tests := []struct {
		name  string
		jobs  []cron.Job
		steps func(t *testing.T, r *rig)
	}{
		{"a fire queues the run with a per-fire message id, records it and moves the state", []cron.Job{job("a", every, false)}, func(t *testing.T, r *rig) {
			res := fire(t, r, "a", t0)
			if res.Outcome != Queued || res.SessionKey != "agent:main:cron:a" || len(r.queue.msgs) != 1 {
				t.Fatalf("result %+v, queued %d", res, len(r.queue.msgs))
			}
			m := r.queue.msgs[0]
			if m.ID != "cron:a:20261126T070000Z" || m.Channel != "telegram" || m.To != "42" || res.RunID != run.NewID(m.ID) {
				t.Errorf("message %+v", m)
			}
			j, _ := r.store.Get(context.Background(), "a")
			if j.State.LastRunID != res.RunID || j.State.RunningAtMs == 0 || j.State.NextRunAtMs != time.Date(2026, 11, 26, 7, 1, 0, 0, time.UTC).UnixMilli() {
				t.Errorf("state %+v", j.State)
			}
			runs, _ := r.store.ListRuns(context.Background(), "a", 0)
			if len(runs) != 1 || runs[0].Action != cron.ActionQueued || runs[0].RunID != res.RunID {
				t.Errorf("runs %+v", runs)
			}
		}},
		{"a redelivered fire does nothing more", []cron.Job{job("a", every, false)}, func(t *testing.T, r *rig) {
			first := fire(t, r, "a", t0)
			if again := fire(t, r, "a", t0); again.Outcome != Duplicate || again.RunID != first.RunID || len(r.queue.msgs) != 1 {
				t.Errorf("again = %+v, queued %d", again, len(r.queue.msgs))
			}
			if res := fire(t, r, "a", "2026-11-26T07:01:00Z"); res.Outcome != Skipped {
				t.Fatalf("next fire = %+v; want skipped", res)
			}
			if late := fire(t, r, "a", t0); late.Outcome != Duplicate {
				t.Errorf("the first fire redelivered after a later one = %+v; want duplicate", late)
			}
		}},
		{"a fire while the previous run is queued or running is skipped and recorded", []cron.Job{job("a", every, false)}, func(t *testing.T, r *rig) {
			first := fire(t, r, "a", t0)
			if res := fire(t, r, "a", "2026-11-26T07:01:00Z"); res.Outcome != Skipped {
				t.Fatalf("second fire = %+v; want skipped (run not started)", res)
			}
			_ = r.runs.Start(context.Background(), run.Record{RunID: first.RunID, Status: run.StatusRunning, StartedAt: 1}, nil)
			if res := fire(t, r, "a", "2026-11-26T07:02:00Z"); res.Outcome != Skipped {
				t.Fatalf("third fire = %+v; want skipped (running)", res)
			}
			runs, _ := r.store.ListRuns(context.Background(), "a", 0)
			if len(runs) != 3 || runs[0].Status != cron.StatusSkipped || runs[1].Status != cron.StatusSkipped || len(r.queue.msgs) != 1 {
				t.Errorf("runs %+v, queued %d", runs, len(r.queue.msgs))
			}
		}},
		{"a fire after the previous run ended queues and folds its outcome into the state", []cron.Job{job("a", every, false)}, func(t *testing.T, r *rig) {
			first := fire(t, r, "a", t0)
			_ = r.runs.Start(context.Background(), run.Record{RunID: first.RunID, Status: run.StatusRunning, StartedAt: 1000}, nil)
			_ = r.runs.Finish(context.Background(), run.Record{RunID: first.RunID, Status: run.StatusError, EndedAt: 3000, Error: "model down"}, nil)
			if res := fire(t, r, "a", "2026-11-26T07:01:00Z"); res.Outcome != Queued || res.RunID == first.RunID {
				t.Fatalf("second fire = %+v", res)
			}
			j, _ := r.store.Get(context.Background(), "a")
			if j.State.LastStatus != cron.StatusError || j.State.LastError != "model down" || j.State.LastDurationMs != 2000 {
				t.Errorf("state %+v", j.State)
			}
		}},
		{"a stale previous run no longer blocks", []cron.Job{job("a", every, false)}, func(t *testing.T, r *rig) {
			fire(t, r, "a", t0)
			r.now = r.now.Add(StaleAfter + time.Minute)
			if res := fire(t, r, "a", "2026-11-26T09:01:00Z"); res.Outcome != Queued {
				t.Errorf("fire = %+v; want queued", res)
			}
		}},
		{"a one-shot with deleteAfterRun is deleted, its run kept", []cron.Job{job("o", once, true)}, func(t *testing.T, r *rig) {
			fire(t, r, "o", t0)
			if _, err := r.store.Get(context.Background(), "o"); !fault.Is(err, fault.NotFound) {
				t.Errorf("job after its one fire: %v; want deleted", err)
			}
			if runs, _ := r.store.ListRuns(context.Background(), "o", 0); len(runs) != 1 {
				t.Errorf("runs %+v", runs)
			}
		}},
		{"a one-shot without deleteAfterRun is disabled", []cron.Job{job("o", once, false)}, func(t *testing.T, r *rig) {
			fire(t, r, "o", t0)
			if j, _ := r.store.Get(context.Background(), "o"); j.Enabled || j.State.NextRunAtMs != 0 {
				t.Errorf("job %+v; want disabled without a next run", j)
			}
		}},
		{"stray and disabled schedules do nothing", []cron.Job{func() cron.Job { j := job("d", every, false); j.Enabled = false; return j }()}, func(t *testing.T, r *rig) {
			if res := fire(t, r, "gone", t0); res.Outcome != Gone {
				t.Errorf("missing job: %+v", res)
			}
			if res := fire(t, r, "d", t0); res.Outcome != Disabled || len(r.queue.msgs) != 0 {
				t.Errorf("disabled job: %+v", res)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.steps(t, newRig(t, tt.jobs...)) })
	}
}

func TestFireRefusesABadTime(t *testing.T) {
	r := newRig(t)
	_, err := r.f.Fire(context.Background(), cron.FireRequest{JobID: "a", ScheduledTime: "yesterday"})
	if !fault.Is(err, fault.Invalid) || !strings.Contains(err.Error(), "scheduledTime") {
		t.Errorf("err = %v; want invalid naming scheduledTime", err)
	}
}
