package turn

import (
	"context"
	"fmt"
	"time"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
)

// RunStore keeps run records and their events (shared/dynamo's RunStore).
type RunStore interface {
	Start(ctx context.Context, r run.Record, events []run.Event) error
	Append(ctx context.Context, runID string, events []run.Event) error
	Finish(ctx context.Context, r run.Record, events []run.Event) error
	LastSeq(ctx context.Context, runID string) (int64, error)
}

// runTracker records one agent run: its record (running → ok | error |
// timeout) and its events, flushed when the run starts, after each tool
// result and when it ends, so a follower sees the run while it happens.
// The run id derives from the inbound message, so a retried turn continues
// the same run, numbering its events after what was already stored.
type runTracker struct {
	store  RunStore
	rec    *run.Recorder
	record run.Record
	now    func() time.Time
}

// startRun writes the run's record and its lifecycle start. With no run
// store it returns nil, and every runTracker method is a no-op on nil.
func (p *Processor) startRun(ctx context.Context, t *turnState, e session.Entry, ref model.Ref, attempt int) (*runTracker, error) {
	if p.Runs == nil {
		return nil, nil
	}
	id := run.NewID(t.msg.ID)
	rt := &runTracker{store: p.Runs, rec: run.NewRecorder(id, p.Now), now: p.Now, record: run.Record{
		RunID: id, SessionKey: t.msg.SessionKey, SessionID: e.SessionID, MessageID: t.msg.ID,
		Status: run.StatusRunning, StartedAt: p.Now().UnixMilli(), Model: ref.String(),
	}}
	if attempt > 1 {
		last, err := p.Runs.LastSeq(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", id, err)
		}
		rt.rec.Continue(last)
	}
	rt.rec.Lifecycle(run.PhaseStart, map[string]any{"sessionKey": t.msg.SessionKey, "model": ref.String()})
	if err := p.Runs.Start(ctx, rt.record, rt.rec.Pending()); err != nil {
		return nil, fmt.Errorf("start run %s: %w", id, err)
	}
	rt.rec.MarkFlushed(len(rt.rec.Pending()))
	return rt, nil
}

// hooks returns the loop hooks that record tool events, ahead of the
// plugin hooks.
func (rt *runTracker) hooks(plugin agent.Hooks) agent.Hooks {
	if rt == nil {
		return plugin
	}
	h := plugin
	h.BeforeToolCall = append([]func(context.Context, *agent.ToolCall) error{func(_ context.Context, c *agent.ToolCall) error {
		rt.rec.Tool(run.PhaseStart, c.Name, c.ID, map[string]any{"args": c.Args})
		return nil
	}}, plugin.BeforeToolCall...)
	h.AfterToolCall = append(append([]func(context.Context, agent.ToolCall, *agent.ToolResult){}, plugin.AfterToolCall...),
		func(ctx context.Context, c agent.ToolCall, r *agent.ToolResult) {
			rt.rec.Tool(run.PhaseResult, c.Name, c.ID, map[string]any{"isError": r.IsError, "text": r.Text})
			rt.flush(ctx)
		})
	return h
}

// compaction records a compaction's start or end.
func (rt *runTracker) compaction(phase string, data map[string]any) {
	if rt != nil {
		rt.rec.Compaction(phase, data)
	}
}

// flush appends the pending events. A failure is not fatal: the events
// stay pending and go out with the next flush or the finish.
func (rt *runTracker) flush(ctx context.Context) {
	if rt == nil || len(rt.rec.Pending()) == 0 {
		return
	}
	pending := rt.rec.Pending()
	if err := rt.store.Append(ctx, rt.record.RunID, pending); err == nil {
		rt.rec.MarkFlushed(len(pending))
	}
}

// finish records the run's outcome with its last events.
func (rt *runTracker) finish(ctx context.Context, out turnOutput) error {
	if rt == nil {
		return nil
	}
	r := rt.record
	r.EndedAt = rt.now().UnixMilli()
	r.Usage = run.Usage{Input: out.usage.Input, Output: out.usage.Output, Total: out.usage.Total}
	switch {
	case out.stopped:
		r.Status, r.Error = run.StatusAborted, out.text
	case out.stop == model.StopAborted:
		r.Status, r.Error = run.StatusTimeout, out.text
	case out.stop == model.StopError:
		r.Status, r.Error = run.StatusError, out.text
	default:
		r.Status = run.StatusOK
	}
	if out.text != "" {
		rt.rec.Assistant(out.text)
	}
	phase := run.PhaseEnd
	if r.Status != run.StatusOK {
		phase = run.PhaseError
	}
	rt.rec.Lifecycle(phase, map[string]any{"status": r.Status})
	pending := rt.rec.Pending()
	if err := rt.store.Finish(ctx, r, pending); err != nil {
		return fmt.Errorf("finish run %s: %w", r.RunID, err)
	}
	rt.rec.MarkFlushed(len(pending))
	return nil
}
