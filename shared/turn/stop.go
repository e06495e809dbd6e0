package turn

import (
	"context"
	"fmt"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/inbound"
)

// /stop, end to end: the channel function writes the session's stop mark
// as soon as a /stop arrives and queues the /stop like any message. The
// run in progress sees the mark between steps and ends (interrupt);
// messages queued behind it, which the FIFO group delivers before the
// /stop, are dropped while the mark is pending (dropStopped); the /stop
// itself, processed last, reports the counts and clears the mark
// (stopCommand). Sub-agent runs are not stopped yet: there are none.

// dropStopped skips m, a message queued before a pending /stop.
func (p *Processor) dropStopped(ctx context.Context, m inbound.Message, s *Stop) error {
	p.log().InfoContext(ctx, "message dropped by /stop", "message", m.ID, "session", m.SessionKey, "stop", s.MessageID)
	if stops, ok := p.Store.(Stops); ok {
		if err := stops.CountStop(ctx, m.SessionKey, s.MessageID, false); err != nil {
			return fmt.Errorf("count a message dropped by %s: %w", s.MessageID, err)
		}
	}
	return nil
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
// its mark, so later messages run again.
func (p *Processor) stopCommand(ctx context.Context, t *turnState) (string, error) {
	s := t.stop
	if s == nil || s.MessageID != t.msg.ID {
		return "Nothing was running.", nil
	}
	if stops, ok := p.Store.(Stops); ok && s.Pending {
		if err := stops.StopDone(ctx, t.msg.SessionKey, s.MessageID); err != nil {
			return "", fmt.Errorf("clear stop %s: %w", s.MessageID, err)
		}
	}
	if s.Aborted == 0 && s.Dropped == 0 {
		return "Nothing was running.", nil
	}
	return fmt.Sprintf("⏹️ Stopped %d run(s) and dropped %d queued message(s).", s.Aborted, s.Dropped), nil
}
