package turn

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/stopmark"
)

// /stop, end to end: the channel function writes the session's stop mark
// as soon as a /stop arrives and queues the /stop like any message. The
// run in progress sees the mark between steps and ends (interrupt);
// messages queued behind it, which the FIFO group delivers before the
// /stop, are dropped while the mark is pending (dropStopped); the /stop
// itself, processed last, reports the counts and clears the mark
// (stopCommand), and stops the session's running sub-agents by writing
// the same mark on their sessions (stopSubagents).

// dropStopped skips m, a message queued before a pending /stop.
func (p *Processor) dropStopped(ctx context.Context, m inbound.Message, s *stopmark.Mark) error {
	p.log().InfoContext(ctx, "message dropped by /stop", "message", m.ID, "session", m.SessionKey, "stop", s.MessageID)
	if stops, ok := p.Store.(Stops); ok {
		if err := stops.CountStop(ctx, m.SessionKey, s.MessageID, false); err != nil {
			return fmt.Errorf("count a message dropped by %s: %w", s.MessageID, err)
		}
	}
	if err := p.releaseRemoteStop(ctx, m.SessionKey, s); err != nil {
		return err
	}
	// A dropped Discord /ask says so instead of "thinking…" forever.
	return p.postDeferral(ctx, m, handleOf(m), deferralStopped)
}

// interrupt returns the loop's check for a pending /stop of the turn's
// session, or nil when the store cannot tell. It costs one read per step
// after the first, so a one-call turn pays nothing.
func (p *Processor) interrupt(t *turnState) func(context.Context) error {
	stops, ok := p.Store.(Stops)
	if !ok {
		return nil
	}
	return func(ctx context.Context) error {
		s, err := stops.StopMark(ctx, t.msg.SessionKey)
		if err != nil {
			// Not knowing is no reason to stop; the next step asks again.
			p.log().WarnContext(ctx, "stop mark unreadable", "session", t.msg.SessionKey, "err", err)
			return nil
		}
		if !s.Active(t.msg.ID, p.Now().UnixMilli()) {
			return nil
		}
		if err := stops.CountStop(ctx, t.msg.SessionKey, s.MessageID, true); err != nil {
			p.log().WarnContext(ctx, "stop not counted", "session", t.msg.SessionKey, "err", err)
		}
		return agent.ErrStopped
	}
}

// stopCommand answers the /stop message with what it stopped and clears
// its mark, so later messages run again; it also stops the session's
// running sub-agents (stopSubagents) and says how many.
func (p *Processor) stopCommand(ctx context.Context, t *turnState) (string, error) {
	reply, err := p.stopOwn(ctx, t)
	if err != nil {
		return "", err
	}
	n, err := p.stopSubagents(ctx, t)
	if err != nil {
		return "", err
	}
	return withSubagentsStopped(reply, n), nil
}

// stopOwn clears the /stop's mark and reports what it stopped in the
// session itself.
func (p *Processor) stopOwn(ctx context.Context, t *turnState) (string, error) {
	s := t.stop
	if s == nil || s.MessageID != t.msg.ID {
		return nothingRunning, nil
	}
	if stops, ok := p.Store.(Stops); ok && s.Pending {
		if err := stops.StopDone(ctx, t.msg.SessionKey, s.MessageID); err != nil {
			return "", fmt.Errorf("clear stop %s: %w", s.MessageID, err)
		}
	}
	if s.Aborted == 0 && s.Dropped == 0 {
		return nothingRunning, nil
	}
	return fmt.Sprintf("⏹️ Stopped %d run(s) and dropped %d queued message(s).", s.Aborted, s.Dropped), nil
}

// nothingRunning is /stop's reply when it stopped nothing.
const nothingRunning = "Nothing was running."

// DefaultStopPoll is how often a run reads its session's stop mark while
// the agent loop is busy (Processor.StopPoll).
const DefaultStopPoll = time.Second

// stopWatch cancels a run's context when a /stop for its session arrives
// while the agent loop waits on the model (or a tool): the loop's own
// Interrupt is asked only between steps, so one long model call would
// otherwise run to its end and its answer be delivered.
type stopWatch struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
	mark   atomic.Pointer[stopmark.Mark] // the active mark that stopped the run
}

// watchStop returns ctx's child that is cancelled within one poll interval
// of the session's stop mark becoming active for the turn's message, and
// the watch to end with stop. The first read is one interval after the
// start, then one per interval, so a run shorter than the interval pays
// no read. It does nothing (and ctx is returned as is) when the store
// cannot read marks or polling is off (StopPoll < 0).
func (p *Processor) watchStop(ctx context.Context, t *turnState) (context.Context, *stopWatch) {
	stops, ok := p.Store.(Stops)
	interval := p.StopPoll
	if interval == 0 {
		interval = DefaultStopPoll
	}
	if !ok || interval < 0 {
		return ctx, nil
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	w := &stopWatch{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-tick.C:
			}
			s, err := stops.StopMark(runCtx, t.msg.SessionKey)
			if err != nil || s == nil || !s.Active(t.msg.ID, p.Now().UnixMilli()) {
				continue // not knowing is no reason to stop: ask again
			}
			w.mark.Store(s)
			cancel(agent.ErrStopped)
			return
		}
	}()
	return runCtx, w
}

// stop ends the watch and waits for its goroutine, so none outlives the
// run, and returns the mark that stopped the run, or nil.
func (w *stopWatch) stop() *stopmark.Mark {
	if w == nil {
		return nil
	}
	w.cancel(context.Canceled)
	<-w.done
	return w.mark.Load()
}

// countAborted counts the run stopped by s on its mark; a failure is
// logged, not fatal: the run is stopped either way.
func (p *Processor) countAborted(ctx context.Context, t *turnState, s *stopmark.Mark) {
	stops, ok := p.Store.(Stops)
	if !ok || s == nil {
		return
	}
	if err := stops.CountStop(ctx, t.msg.SessionKey, s.MessageID, true); err != nil {
		p.log().WarnContext(ctx, "stop not counted", "session", t.msg.SessionKey, "err", err)
	}
}
