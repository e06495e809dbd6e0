// Package crontest holds the conformance suites of the cron ports: every
// cron.Store (the in-memory store, DynamoDB) runs TestStore, every
// cron.Schedules (cron.MemorySchedules, EventBridge Scheduler) runs
// TestSchedules.
package crontest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
)

// TestStore runs the suite; newStore returns an empty store for each
// subtest.
func TestStore(t *testing.T, newStore func(t *testing.T) cron.Store) {
	ctx := context.Background()
	job := func(id string) cron.Job {
		return cron.Job{
			ID: id, Name: "job " + id, AgentID: "ops", Enabled: true, CreatedAtMs: 1000, UpdatedAtMs: 2000,
			Schedule:      cron.Schedule{Kind: cron.KindCron, Expr: "0 7 * * 1-5", TZ: "Europe/Berlin"},
			SessionTarget: cron.TargetIsolated, WakeMode: cron.WakeNow,
			Payload: cron.Payload{Kind: cron.PayloadAgentTurn, Message: "digest ü <b>&", Model: "m", Thinking: "low",
				TimeoutSeconds: 30, Deliver: true, Channel: "telegram", To: "42"},
			DeleteAfterRun: true,
			State: cron.State{NextRunAtMs: 5, LastRunAtMs: 4, LastStatus: cron.StatusError, LastError: "boom", LastDurationMs: 7, RunningAtMs: 3,
				LastRunID: "run_0123", LastFireKey: "20261126T070000Z"},
		}
	}

	t.Run("put create then get round-trips every field", func(t *testing.T) {
		s := newStore(t)
		want := job("a1")
		if err := s.Put(ctx, want, cron.Create); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, "a1")
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("get (-want +got):\n%s", d)
		}
		other := cron.Job{ID: "b2", Name: "b", Schedule: cron.Schedule{Kind: cron.KindAt, AtMs: 99},
			SessionTarget: cron.TargetMain, WakeMode: cron.WakeNextHeartbeat, Payload: cron.Payload{Kind: cron.PayloadSystemEvent, Text: "t"}}
		if err := s.Put(ctx, other, cron.Create); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Get(ctx, "b2"); err != nil || !cmp.Equal(other, got) {
			t.Errorf("get b2 = %+v, %v; want %+v", got, err, other)
		}
	})

	t.Run("create of an existing id is a conflict and changes nothing", func(t *testing.T) {
		s := newStore(t)
		if err := s.Put(ctx, job("a"), cron.Create); err != nil {
			t.Fatal(err)
		}
		j := job("a")
		j.Name = "other"
		if err := s.Put(ctx, j, cron.Create); !fault.Is(err, fault.Conflict) {
			t.Fatalf("second create: %v; want conflict", err)
		}
		if got, _ := s.Get(ctx, "a"); got.Name != "job a" {
			t.Errorf("name = %q after a refused create", got.Name)
		}
	})

	t.Run("replace overwrites an existing job and refuses a missing one", func(t *testing.T) {
		s := newStore(t)
		if err := s.Put(ctx, job("a"), cron.Replace); !fault.Is(err, fault.NotFound) {
			t.Fatalf("replace of a missing job: %v; want not found", err)
		}
		if _, err := s.Get(ctx, "a"); !fault.Is(err, fault.NotFound) {
			t.Fatalf("a refused replace created the job: %v", err)
		}
		if err := s.Put(ctx, job("a"), cron.Create); err != nil {
			t.Fatal(err)
		}
		j := job("a")
		j.Enabled, j.Name, j.State = false, "renamed", cron.State{}
		j.Payload = cron.Payload{Kind: cron.PayloadAgentTurn, Message: "m"}
		if err := s.Put(ctx, j, cron.Replace); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Get(ctx, "a"); !cmp.Equal(j, got) {
			t.Errorf("after replace: %s", cmp.Diff(j, got))
		}
	})

	t.Run("get and delete of a missing job are not found", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Get(ctx, "nope"); !fault.Is(err, fault.NotFound) {
			t.Errorf("get: %v", err)
		}
		if err := s.Delete(ctx, "nope"); !fault.Is(err, fault.NotFound) {
			t.Errorf("delete: %v", err)
		}
	})

	t.Run("list is every job by id; delete removes one", func(t *testing.T) {
		s := newStore(t)
		if jobs, err := s.List(ctx); err != nil || len(jobs) != 0 {
			t.Fatalf("empty list = %v, %v", jobs, err)
		}
		for _, id := range []string{"c", "a", "b"} {
			if err := s.Put(ctx, job(id), cron.Create); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Delete(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		jobs, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, j := range jobs {
			ids = append(ids, j.ID)
		}
		if d := cmp.Diff([]string{"a", "c"}, ids); d != "" {
			t.Errorf("ids (-want +got):\n%s", d)
		}
		if d := cmp.Diff(job("c"), jobs[1]); d != "" {
			t.Errorf("listed job (-want +got):\n%s", d)
		}
	})

	t.Run("run records: newest first, limit, per job, idempotent, kept after delete", func(t *testing.T) {
		s := newStore(t)
		if err := s.Put(ctx, job("a"), cron.Create); err != nil {
			t.Fatal(err)
		}
		rec := func(ts int64, runID string) cron.RunRecord {
			return cron.RunRecord{Ts: ts, JobID: "a", RunID: runID, Action: cron.ActionFinished, Status: cron.StatusOK,
				Summary: "s", RunAtMs: ts - 10, DurationMs: 10, NextRunAtMs: ts + 60000, SessionKey: "agent:ops:cron:a", SessionID: "sid"}
		}
		for _, r := range []cron.RunRecord{rec(300, "r3"), rec(100, "r1"), rec(200, "r2"), rec(200, "r2b"), rec(100, "r1")} {
			if err := s.AppendRun(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.AppendRun(ctx, cron.RunRecord{Ts: 500, JobID: "other", RunID: "x", Action: cron.ActionQueued}); err != nil {
			t.Fatal(err)
		}
		all, err := s.ListRuns(ctx, "a", 0)
		if err != nil {
			t.Fatal(err)
		}
		want := []cron.RunRecord{rec(300, "r3"), rec(200, "r2b"), rec(200, "r2"), rec(100, "r1")}
		if d := cmp.Diff(want, all); d != "" {
			t.Errorf("runs (-want +got):\n%s", d)
		}
		if two, err := s.ListRuns(ctx, "a", 2); err != nil || !cmp.Equal(want[:2], two) {
			t.Errorf("limit 2 = %v, %v", two, err)
		}
		if err := s.Delete(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if kept, err := s.ListRuns(ctx, "a", 0); err != nil || len(kept) != 4 {
			t.Errorf("after delete: %d records, %v; want the 4 kept", len(kept), err)
		}
		if none, err := s.ListRuns(ctx, "never", 0); err != nil || len(none) != 0 {
			t.Errorf("runs of an unknown job = %v, %v; want none", none, err)
		}
	})
}
