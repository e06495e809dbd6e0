package gateway

import (
	"context"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/cron"
)

// TestCronUpdateVouchesForAToolJob: the operator's cron.update of a
// tool-made job's payload, agent or session target makes it the owner's
// again (its runs no longer untrusted); one of its name, schedule or
// enabled leaves it the tool's.
func TestCronUpdateVouchesForAToolJob(t *testing.T) {
	tests := []struct {
		name  string
		patch map[string]any
		want  string // createdBy after
	}{
		{"enabled", map[string]any{"enabled": false}, cron.CreatedByTool},
		{"name", map[string]any{"name": "Tidy"}, cron.CreatedByTool},
		{"schedule", map[string]any{"schedule": map[string]any{"kind": "every", "everyMs": 3600000}}, cron.CreatedByTool},
		{"payload", map[string]any{"payload": map[string]any{"kind": "agentTurn", "message": "tidy up"}}, ""},
		{"agent", map[string]any{"agentId": "main"}, ""},
		{"session target", map[string]any{"sessionTarget": "isolated"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, store := cronFixture(t)
			ctx := context.Background()
			j, err := cron.New(cron.Job{ID: "tidy", Name: "Nightly", Enabled: true, Schedule: cron.Schedule{Kind: cron.KindCron, Expr: "0 3 * * *"},
				Payload: cron.Payload{Kind: cron.PayloadAgentTurn, Message: "tidy up"}, CreatedBy: cron.CreatedByTool}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if err := store.Put(ctx, j, cron.Create); err != nil {
				t.Fatal(err)
			}
			var upd cron.Job
			f.call("cron.update", map[string]any{"id": "tidy", "patch": tt.patch}).decode(t, &upd)
			stored, _ := store.Get(ctx, "tidy")
			if upd.CreatedBy != tt.want || stored.CreatedBy != tt.want {
				t.Errorf("createdBy answered %q, stored %q; want %q", upd.CreatedBy, stored.CreatedBy, tt.want)
			}
		})
	}
}
