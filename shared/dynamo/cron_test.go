package dynamo

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/cron/crontest"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
)

func TestCronConformance(t *testing.T) {
	crontest.TestStore(t, func(t *testing.T) cron.Store { return New(testClient, freshTable(t)).Cron() })
}

// TestCronItemsStayOutOfSessionIndexes: a job with an agentId and a run
// record with a sessionId are not sessions: listing the agent's sessions
// and looking the sessionId up find nothing.
func TestCronItemsStayOutOfSessionIndexes(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, freshTable(t))
	j := cron.Job{ID: "a", Name: "a", AgentID: "ops", Enabled: true, UpdatedAtMs: 5,
		Schedule: cron.Schedule{Kind: cron.KindEvery, EveryMs: 60000}, Payload: cron.Payload{Kind: cron.PayloadAgentTurn, Message: "m"}}
	if err := s.Cron().Put(ctx, j, cron.Create); err != nil {
		t.Fatal(err)
	}
	if err := s.Cron().AppendRun(ctx, cron.RunRecord{Ts: 1, JobID: "a", RunID: "r", SessionID: "sid-cron", SessionKey: "agent:ops:cron:a"}); err != nil {
		t.Fatal(err)
	}
	if rows, err := s.List(ctx, session.ListQuery{AgentID: "ops"}); err != nil || len(rows) != 0 {
		t.Errorf("sessions of ops = %v, %v; want none", rows, err)
	}
	if _, _, err := s.Lookup(ctx, "sid-cron"); !fault.Is(err, fault.NotFound) {
		t.Errorf("lookup of a cron run's sessionId: %v; want not found", err)
	}
}

// TestCronRunsExpire: records past their TTL (which DynamoDB deletes
// lazily) are left out, and a limit still fills from the live ones.
func TestCronRunsExpire(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, freshTable(t))
	start := time.Now()
	s.now = func() time.Time { return start.Add(-CronRunTTL - time.Hour) } // written long ago
	for i := range 3 {
		if err := s.Cron().AppendRun(ctx, cron.RunRecord{Ts: int64(100 + i), JobID: "a", RunID: fmt.Sprint("old", i)}); err != nil {
			t.Fatal(err)
		}
	}
	s.now = func() time.Time { return start }
	for i := range 2 {
		if err := s.Cron().AppendRun(ctx, cron.RunRecord{Ts: int64(10 + i), JobID: "a", RunID: fmt.Sprint("new", i)}); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := s.Cron().ListRuns(ctx, "a", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].RunID != "new1" || runs[1].RunID != "new0" {
		t.Errorf("runs = %+v; want new1, new0", runs)
	}
}
