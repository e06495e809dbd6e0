package turn

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/stopmark"
)

// stoppedNotice is the reply of a run /stop ended.
const stoppedNotice = "⏹️ Stopped."

// commit writes the turn (entry, context, the message record) and returns
// the record to deliver. Where the store is a Committer the run's outcome
// rides in the same write, and a model turn's commit checks the session's
// stop mark: a /stop that arrived after the run's last poll refuses the
// commit (stopmark.ErrPending, nothing written), and the turn is committed
// again as stopped: the model's answer stays in the transcript part
// already written, the user gets the stopped notice instead of it, and the
// run is recorded aborted. A retry decides the same way, as the mark stays
// pending until its /stop, queued behind this message, runs.
func (p *Processor) commit(ctx context.Context, t *turnState, entry session.Entry, c sessionstate.ModelContext, out turnOutput, collected []inbound.Message) (receipt.Receipt, error) {
	rec := p.record(ctx, t, entry, out, collected)
	err := p.write(ctx, t, entry, c, rec, t.asked && !out.stopped)
	if errors.Is(err, stopmark.ErrPending) {
		p.log().InfoContext(ctx, "run stopped at its commit", "message", t.msg.ID, "session", t.msg.SessionKey)
		p.countPending(ctx, t)
		out.text, out.stop, out.stopped = stoppedNotice, model.StopAborted, true
		entry.AbortedLastRun = true
		t.run.reend(out)
		rec = p.record(ctx, t, entry, out, collected)
		err = p.write(ctx, t, entry, c, rec, false)
	}
	if err != nil {
		return receipt.Receipt{}, fmt.Errorf("commit turn %s: %w", t.msg.ID, err)
	}
	return rec, nil
}

// record is the message record a turn commits: its reply (after the
// message_sending hooks), where it goes, and whether the send policy
// withholds it.
func (p *Processor) record(ctx context.Context, t *turnState, entry session.Entry, out turnOutput, collected []inbound.Message) receipt.Receipt {
	m := t.msg
	rec := receipt.Receipt{MessageID: m.ID, SessionKey: m.SessionKey, State: receipt.Committed, Reply: out.text, Delivery: entry.DeliveryContext}
	rec.Collected, rec.Followups = collectedRecords(collected)
	if out.absorbed != nil {
		// The orphan parts' messages are answered history now: recorded
		// done with this turn, so one redriven from the dead-letter
		// queue is a duplicate, not a second answer.
		rec.Collected = append(slices.Clip(rec.Collected), out.absorbed.sources...)
	}
	if !out.command {
		rec.Outcome, rec.Usage = out.status(), out.runUsage()
		rec.Streamed, rec.StreamedParts = t.run.streamed()
	}
	if m.Channel == inbound.Internal {
		rec.Delivery = session.DeliveryContext{Channel: inbound.Internal} // nothing is sent
	} else if m.ReplyToken != "" && m.Channel == rec.Delivery.Channel {
		// The reply handle of this message (a Discord interaction
		// token) travels with its reply only, never on the entry.
		rec.Delivery.ReplyToken, rec.Delivery.ReplyTokenAt = m.ReplyToken, m.ReceivedAt
	}
	// Command answers go to whoever sent the command; the send policy
	// governs the assistant's output.
	if !out.command && !t.cfg.SendPolicy().Allows(m.SessionKey, entry.Channel, entry.ChatType, entry.SendPolicy) {
		rec.Withheld = true
	}
	if !out.command && (sentByMessageTool(out.messages, rec.Reply) || fallbackAfterMessageTool(out.messages, rec.Reply)) {
		rec.AlreadySent = true
	}
	if rec.Reply != "" && !rec.Withheld {
		o := Outgoing{SessionKey: m.SessionKey, MessageID: m.ID, Channel: rec.Delivery.Channel, To: rec.Delivery.To, Text: rec.Reply}
		for _, h := range p.Hooks.MessageSending {
			h(ctx, &o)
		}
		rec.Reply = o.Text
	}
	return rec
}

// write commits with the store's best write: CommitWith carrying the
// run's outcome (when the store keeps runs where p.Runs does) and, when
// checkStop, the stop check. A store that cannot take the outcome gets it
// through Finish first, as a separate write; its commit then skips the
// stop check, since a refused commit could not turn a finished run into
// an aborted one.
func (p *Processor) write(ctx context.Context, t *turnState, entry session.Entry, c sessionstate.ModelContext, rec receipt.Receipt, checkStop bool) error {
	committer, ok := p.Store.(Committer)
	inCommit := p.runsInCommit()
	if !inCommit {
		if err := t.run.settle(ctx); err != nil {
			return err
		}
	}
	if !ok {
		return p.Store.Commit(ctx, t.msg.SessionKey, entry, c, rec)
	}
	var x sessionstate.Extra
	if inCommit && t.run != nil {
		x.Run = t.run.outcome
	}
	if checkStop && (inCommit || t.run == nil) {
		x.Stop = &stopmark.Check{MessageID: t.msg.ID, NowMS: p.Now().UnixMilli()}
	}
	return committer.CommitWith(ctx, t.msg.SessionKey, entry, c, rec, x)
}

// countPending counts the run a commit-time stop ended on the mark that
// refused the commit (one read: this happens once per stopped run).
func (p *Processor) countPending(ctx context.Context, t *turnState) {
	stops, ok := p.Store.(Stops)
	if !ok {
		return
	}
	s, err := stops.StopMark(ctx, t.msg.SessionKey)
	if err != nil {
		p.log().WarnContext(ctx, "stop mark unreadable", "session", t.msg.SessionKey, "err", err)
		return
	}
	if s.Active(t.msg.ID, p.Now().UnixMilli()) {
		p.countAborted(ctx, t, s)
	}
}

// collectedRecords are the ids of the messages a collected turn answers
// besides its first, and the reply handles among them (a Discord
// interaction each) that its delivery closes with a pointer to the answer.
func collectedRecords(collected []inbound.Message) (ids []string, followups []session.DeliveryContext) {
	for _, c := range collected {
		ids = append(ids, c.ID)
		if c.ReplyToken != "" && c.Channel != inbound.Internal {
			followups = append(followups, handleOf(c))
		}
	}
	return ids, followups
}
