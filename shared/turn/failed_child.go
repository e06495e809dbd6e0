package turn

import (
	"context"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run"
)

// failedChild settles a sub-agent run whose message failed for good (its
// last attempt; it goes to the dead-letter queue next): its run record
// ends in error with the reason, and its requester gets the announce,
// Status error, through its queue group and the outbox (passResult) — the
// same message and item ids a successful run would have used, so a
// replay, or a later redrive that succeeds, never announces twice. Nothing here fails the caller: errors are logged, as
// in Failed.
func (p *Processor) failedChild(ctx context.Context, m inbound.Message, cause error) {
	f := m.Flow
	if f == nil || f.Kind != inbound.FlowSubagent {
		return
	}
	reason := fault.Message(cause)
	p.endRunInError(ctx, m, reason)
	rec := receipt.Receipt{MessageID: m.ID, SessionKey: m.SessionKey, Outcome: run.StatusError,
		Reply: "The sub-agent's run failed on every attempt and was set aside for the operator: " + reason}
	if err := p.announceSubagent(ctx, m, *f, rec); err != nil {
		p.log().ErrorContext(ctx, "failed sub-agent not announced", "flow", f.ID, "session", m.SessionKey, "err", err)
	}
}

// endRunInError writes m's run record as ended in error (starting it when
// it was never written). Idempotent: a run already ended in error stays.
func (p *Processor) endRunInError(ctx context.Context, m inbound.Message, reason string) {
	if p.Runs == nil {
		return
	}
	now := p.Now().UnixMilli()
	id := run.NewID(m.ID)
	end := run.Record{RunID: id, SessionKey: m.SessionKey, Status: run.StatusError, StartedAt: now, EndedAt: now, Error: reason}
	err := p.Runs.Finish(ctx, end, nil)
	if fault.Is(err, fault.NotFound) {
		if err = p.Runs.Start(ctx, run.Record{RunID: id, SessionKey: m.SessionKey, Status: run.StatusRunning, StartedAt: now}, nil); err == nil || fault.Is(err, fault.Conflict) {
			err = p.Runs.Finish(ctx, end, nil)
		}
	}
	if err != nil && !fault.Is(err, fault.Conflict) {
		p.log().WarnContext(ctx, "failed sub-agent's run record not ended", "run", id, "err", err)
	}
}
