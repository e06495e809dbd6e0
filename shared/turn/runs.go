package turn

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
)

// runTracker records one agent run: its record (running → ok | error |
// timeout | aborted) and its events, flushed after each tool result and
// with the run's outcome, so a follower sees the run while it happens.
// The run id derives from the inbound message, so a retried turn continues
// the same run, numbering its events after what was already stored.
//
// Where the store commits run outcomes (Committer.CommitsRunsOf), the
// outcome rides in the turn's commit, and a channel turn writes no
// "running" record up front: its first tool flush writes it (Start), so a
// plain text turn costs no run write of its own. An API run (announced)
// still starts with its record, for agent.wait and agent.events.
type runTracker struct {
	store   run.Store
	rec     *run.Recorder
	record  run.Record
	now     func() time.Time
	stored  bool          // the record is written; until then a flush starts it
	outcome *run.Outcome  // set by end, written by the commit (or settle)
	endSeq  int64         // the recorder's seq before end's events
	deltas  *deltaBatcher // the run's streamed text (onText); nil: none
	blocks  *blockReplier // the reply sent in blocks (blockreply.go); nil: not
}

// startRun begins the run's record and its lifecycle start, writing them
// now unless the commit will (see runTracker). With no run store it
// returns nil, and every runTracker method is a no-op on nil.
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
	if p.runsInCommit() && !announced(t.msg) {
		return rt, nil
	}
	if err := rt.start(ctx); err != nil {
		return nil, err
	}
	return rt, nil
}

// announced reports whether m's run was announced to a client that may
// follow it while it runs: a run requested through the gateway's agent
// method (its message ids are "api:<idempotencyKey>") or an internal one.
// A flow step (sessions_send's rounds, a sub-agent) is not: its only
// follower, a waiting sessions_send, reads a missing record as still
// running, so the step saves the up-front write.
func announced(m inbound.Message) bool {
	return (m.Channel == inbound.Internal && m.Flow == nil) || strings.HasPrefix(m.ID, "api:")
}

// runsInCommit reports whether the store writes run outcomes in the
// turn's commit where p.Runs keeps runs.
func (p *Processor) runsInCommit() bool {
	c, ok := p.Store.(Committer)
	return ok && p.Runs != nil && c.CommitsRunsOf(p.Runs)
}

// start writes the running record with the pending events.
func (rt *runTracker) start(ctx context.Context) error {
	pending := rt.rec.Pending()
	if err := rt.store.Start(ctx, rt.record, pending); err != nil {
		return fmt.Errorf("start run %s: %w", rt.record.RunID, err)
	}
	rt.rec.MarkFlushed(len(pending))
	rt.stored = true
	return nil
}

// hooks returns the loop hooks that scope the memory flush's call ids
// (scopeCallID) and record tool events, ahead of the plugin hooks.
func (rt *runTracker) hooks(plugin agent.Hooks) agent.Hooks {
	h := plugin
	before := []func(context.Context, *agent.ToolCall) error{scopeCallID}
	if rt == nil {
		h.BeforeToolCall = append(before, plugin.BeforeToolCall...)
		return h
	}
	h.BeforeToolCall = append(append(before, func(ctx context.Context, c *agent.ToolCall) error {
		rt.deltas.emit() // the text before the call comes first
		rt.blocks.endCall(ctx)
		rt.rec.Tool(run.PhaseStart, c.Name, c.ID, map[string]any{"args": c.Args})
		return nil
	}), plugin.BeforeToolCall...)
	h.AfterToolCall = append(append([]func(context.Context, agent.ToolCall, *agent.ToolResult){}, plugin.AfterToolCall...),
		func(ctx context.Context, c agent.ToolCall, r *agent.ToolResult) {
			rt.blocks.toolResult(c, *r)
			rt.rec.Tool(run.PhaseResult, c.Name, c.ID, map[string]any{"isError": r.IsError, "text": r.Text})
			rt.flush(ctx)
		})
	return h
}

// streamed is what the run's blocks sent (blockReplier.streamed).
func (rt *runTracker) streamed() (string, int) {
	if rt == nil {
		return "", 0
	}
	return rt.blocks.streamed()
}

// compaction records a compaction's start or end.
func (rt *runTracker) compaction(phase string, data map[string]any) {
	if rt != nil {
		rt.rec.Compaction(phase, data)
	}
}

// flush stores the pending events, starting the record with them if it
// is not stored yet. A failure is not fatal: the events stay pending and
// go out with the next flush or the outcome.
func (rt *runTracker) flush(ctx context.Context) {
	if rt == nil || len(rt.rec.Pending()) == 0 {
		return
	}
	if !rt.stored {
		rt.start(ctx)
		return
	}
	pending := rt.rec.Pending()
	if err := rt.store.Append(ctx, rt.record.RunID, pending); err == nil {
		rt.rec.MarkFlushed(len(pending))
	}
}

// end prepares the run's outcome for out: the terminal record and the last
// events (the reply, the lifecycle end or error). Nothing is written: the
// commit writes it (or settle, just before a commit that cannot).
func (rt *runTracker) end(out turnOutput) {
	if rt == nil {
		return
	}
	r := rt.record
	r.EndedAt = rt.now().UnixMilli()
	r.Usage = out.runUsage()
	r.InfraCostUSD = out.infraUSD
	r.Status = out.status()
	if r.Status == run.StatusOK {
		r.Reply = cutUTF8(out.text, run.MaxReplyBytes)
	} else {
		r.Error = out.text
	}
	rt.deltas.emit()
	rt.endSeq = rt.rec.Seq()
	if out.text != "" {
		rt.rec.Assistant(out.text)
	}
	phase := run.PhaseEnd
	if r.Status != run.StatusOK {
		phase = run.PhaseError
	}
	rt.rec.Lifecycle(phase, map[string]any{"status": r.Status})
	rt.outcome = &run.Outcome{Record: r, Events: rt.rec.Pending()}
}

// reend replaces the outcome end prepared (not written: its commit was
// refused) by the outcome of out.
func (rt *runTracker) reend(out turnOutput) {
	if rt == nil || rt.outcome == nil {
		return
	}
	rt.rec.Rewind(rt.endSeq)
	rt.end(out)
}

// settle writes the outcome with Finish, for a store whose commit cannot.
func (rt *runTracker) settle(ctx context.Context) error {
	if rt == nil || rt.outcome == nil {
		return nil
	}
	if err := rt.store.Finish(ctx, rt.outcome.Record, rt.outcome.Events); err != nil {
		return fmt.Errorf("finish run %s: %w", rt.outcome.Record.RunID, err)
	}
	rt.rec.MarkFlushed(len(rt.outcome.Events))
	return nil
}

// status is the run status of a model turn's output.
func (out turnOutput) status() string {
	switch {
	case out.stopped:
		return run.StatusAborted
	case out.stop == model.StopAborted:
		return run.StatusTimeout
	case out.stop == model.StopError:
		return run.StatusError
	default:
		return run.StatusOK
	}
}

// runUsage is the output's token usage as a run records it.
func (out turnOutput) runUsage() run.Usage {
	return run.Usage{Input: out.usage.Input, Output: out.usage.Output, Total: out.usage.Total}
}

// cutUTF8 returns s cut to at most n bytes, on a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
