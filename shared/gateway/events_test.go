package gateway

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/run"
)

func TestAgentEvents(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	id := run.NewID("api:follow")
	rec := run.NewRecorder(id, func() time.Time { return testNow })
	rec.Lifecycle(run.PhaseStart, nil)
	rec.Tool(run.PhaseStart, "session_status", "c1", nil)
	if err := f.runs.Start(ctx, run.Record{RunID: id, SessionKey: mainKey, Status: run.StatusRunning, StartedAt: 1}, rec.Pending()); err != nil {
		t.Fatal(err)
	}
	var got struct {
		RunID   string
		Events  []run.Event
		NextSeq int64
	}
	f.call("agent.events", map[string]any{"runId": id}).decode(t, &got)
	if got.RunID != id || len(got.Events) != 2 || got.NextSeq != 2 || got.Events[1].Stream != run.StreamTool {
		t.Fatalf("events %+v", got)
	}
	// Following on from nextSeq returns only what is new.
	f.call("agent.events", map[string]any{"runId": id, "afterSeq": got.NextSeq}).decode(t, &got)
	if len(got.Events) != 0 || got.NextSeq != 2 {
		t.Fatalf("after nextSeq: %+v", got)
	}
	f.call("agent.events", map[string]any{"runId": run.NewID("api:unknown")}).decode(t, &got)
	if len(got.Events) != 0 {
		t.Fatalf("unknown run: %+v", got)
	}
	f.call("agent.events", map[string]any{}).wantError(t, http.StatusBadRequest, fault.Invalid, "params.runId: required")
	f.call("agent.events", map[string]any{"runId": id, "afterSeq": -1}).wantError(t, http.StatusBadRequest, fault.Invalid, "params.afterSeq: must be >= 0, got -1")
}
