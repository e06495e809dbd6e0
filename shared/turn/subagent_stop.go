package turn

import (
	"context"
	"fmt"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/stopmark"
	"github.com/zero-gateway/zero/shared/subagent"
)

// StopMarker is the Store capability behind /stop's sub-agent stop: write
// a session's stop mark (ingest.StopMarker; dynamo.Store and
// turntest.MemStore are one). A mark of the same /stop message already
// there is left as it is, so writing it again is harmless.
type StopMarker interface {
	MarkStop(ctx context.Context, key string, s stopmark.Mark) error
}

// stopSubagents stops the running sub-agents of the /stop's session and
// returns how many: each sub-agent its context shows a sessions_spawn of
// (the tool results name the child's key and run) whose run is not
// terminal gets the /stop's mark (Stop{MessageID: the /stop, Pending}),
// which ends its run at its next check as a /stop in its own session
// would, or drops its task if it has not started yet. The mark is Remote:
// the child's stopped run, or its dropped task, clears it
// (releaseRemoteStop), so a later sessions_send to the child runs.
//
// Where the deployment keeps no runs (no Processor.Runs), a child counts as
// running while it has no session entry (a child's entry is written when
// its first run commits). Sub-agents whose spawn the context no longer
// holds (compacted or trimmed away) are not found. Idempotent: a retried
// /stop writes the same marks. It needs a StopMarker store; without one
// it stops nothing.
func (p *Processor) stopSubagents(ctx context.Context, t *turnState) (int, error) {
	marker, ok := p.Store.(StopMarker)
	if !ok {
		return 0, nil
	}
	snap, err := p.Store.Load(ctx, t.msg.SessionKey, t.msg.ID)
	if err != nil {
		return 0, fmt.Errorf("load %s for its sub-agents: %w", t.msg.SessionKey, err)
	}
	if snap.Context == nil {
		return 0, nil
	}
	msgs, err := p.wholeContext(ctx, *snap.Context)
	if err != nil {
		return 0, err
	}
	mark := stopmark.Mark{MessageID: t.msg.ID, At: p.Now().UnixMilli(), Pending: true, Remote: true}
	n := 0
	for _, c := range subagent.Spawned(msgs) {
		running, err := p.subagentRunning(ctx, c)
		if err != nil {
			return 0, err
		}
		if !running {
			continue
		}
		if err := marker.MarkStop(ctx, c.Key, mark); err != nil {
			return 0, fmt.Errorf("stop sub-agent %s: %w", c.Key, err)
		}
		p.log().InfoContext(ctx, "sub-agent stopped", "session", t.msg.SessionKey, "subagent", c.Key, "stop", t.msg.ID)
		n++
	}
	return n, nil
}

// subagentRunning reports whether c's run has not ended: its run record
// is running or not written yet (the task is still queued).
func (p *Processor) subagentRunning(ctx context.Context, c subagent.Child) (bool, error) {
	if p.Runs != nil && c.RunID != "" {
		rec, err := p.Runs.Get(ctx, c.RunID)
		switch {
		case fault.Is(err, fault.NotFound):
			return true, nil
		case err != nil:
			return false, fmt.Errorf("read run %s of sub-agent %s: %w", c.RunID, c.Key, err)
		}
		return !run.Terminal(rec.Status), nil
	}
	e, err := p.readEntry(ctx, c.Key)
	if err != nil {
		return false, err
	}
	return e.SessionID == "", nil
}

// withSubagentsStopped adds the count of stopped sub-agents to the /stop's
// reply; with none the reply is as it was.
func withSubagentsStopped(reply string, n int) string {
	switch {
	case n == 0:
		return reply
	case reply == nothingRunning:
		return fmt.Sprintf("⏹️ Stopped. %d sub-agent(s) stopped.", n)
	}
	return fmt.Sprintf("%s %d sub-agent(s) stopped.", reply, n)
}

// wholeContext is every message of a stored context: its base object's
// and its inline tail (a context past its inline budget keeps its older
// messages, and so older spawns, in the base). A base gone missing reads
// as the tail alone: the spawns it held are not found, as after a
// compaction.
func (p *Processor) wholeContext(ctx context.Context, c sessionstate.ModelContext) ([]model.Message, error) {
	split := splitOf(c)
	if split.Base == "" || p.Contexts == nil {
		return c.Messages, nil
	}
	msgs, err := p.Contexts.Expand(ctx, split)
	if fault.Is(err, fault.NotFound) {
		return c.Messages, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the context of %s: %w", c.SessionID, err)
	}
	return msgs, nil
}

// releaseRemoteStop clears a sub-agent's stop mark written by its parent's
// /stop (stopmark.Mark.Remote) once the run it stopped has ended or the
// task it stopped was dropped: nothing else in the child's session would
// clear it, and until it expires every message sent to the child would be
// dropped. A mark of the session's own /stop is left to that /stop.
// Idempotent: StopDone on a cleared or replaced mark changes nothing.
func (p *Processor) releaseRemoteStop(ctx context.Context, key string, s *stopmark.Mark) error {
	stops, ok := p.Store.(Stops)
	if !ok {
		return nil
	}
	if s == nil {
		var err error
		if s, err = stops.StopMark(ctx, key); err != nil {
			return fmt.Errorf("read the stop mark of %s: %w", key, err)
		}
	}
	if s == nil || !s.Remote || !s.Pending {
		return nil
	}
	if err := stops.StopDone(ctx, key, s.MessageID); err != nil {
		return fmt.Errorf("release the sub-agent stop of %s: %w", key, err)
	}
	p.log().InfoContext(ctx, "sub-agent stop released: its run ended", "session", key, "stop", s.MessageID)
	return nil
}
