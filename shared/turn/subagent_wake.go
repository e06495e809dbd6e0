package turn

import (
	"context"
	"fmt"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/subagent"
)

// wakeNote heads the message that brings a sub-agent's result to the
// session that yielded waiting for it.
const wakeNote = "[sub-agent result] A sub-agent you waited for (sessions_yield) finished; answer the user with its result:\n\n"

// passResult is the sub-agent side of sessions_yield: it queues the
// child's announce text on the requester's FIFO group as a FlowResult
// message, and the requester's runner decides there (subagentResult)
// whether it wakes the requester or goes to the chat. The decision is
// not taken here because the requester's turn that yields may still be
// running: its commit is not visible yet. FIFO order runs the result
// message after that turn, whichever finished first.
//
// Idempotent: the message id derives from the flow, so a replayed step
// queues it once (the queue and the requester's message record
// deduplicate it). Without a door the announce goes to the outbox at once.
func (p *Processor) passResult(ctx context.Context, m inbound.Message, f inbound.Flow, text string) error {
	if p.Door == nil {
		return p.postAnnounce(ctx, f, m.SessionKey, text)
	}
	e, err := p.readEntry(ctx, f.Requester)
	if err != nil {
		return err
	}
	chatType := e.ChatType
	if chatType == "" {
		chatType = inbound.Direct
	}
	r := *f.Route
	result := &inbound.Flow{Kind: inbound.FlowResult, ID: f.ID, Requester: f.Requester, RequesterAgent: f.RequesterAgent,
		Target: m.SessionKey, TargetAgent: f.TargetAgent, Route: f.Route, Label: f.Label}
	msg := inbound.Message{
		ID: flowStepID(f.ID, "wake", 0), AgentID: f.RequesterAgent, SessionKey: f.Requester,
		Channel: r.Channel, To: r.To, AccountID: r.AccountID, ThreadID: r.ThreadID, ChatType: chatType,
		Text: text, ReceivedAt: p.Now().UnixMilli(), Provenance: inbound.Untrusted, Flow: result,
	}
	if _, err := p.queue().Queue(ctx, msg); err != nil {
		return fmt.Errorf("queue the result of %s for %s: %w", m.SessionKey, f.Requester, err)
	}
	p.log().InfoContext(ctx, "sub-agent result queued for its requester", "flow", f.ID, "requester", f.Requester, "message", msg.ID)
	return nil
}

// subagentResult decides a FlowResult message m on the requester's group
// (snap is the requester's state, loaded for m): when the requester's
// context shows it waiting for the child (subagent.Waiting: a
// sessions_yield after the child's spawn), or a previous attempt already
// took m as a turn (its record exists), it returns the wake turn to run:
// m without its flow, headed by wakeNote. Otherwise it puts the announce
// in the outbox and returns nil: nothing more to do.
//
// Exactly one of the two: FIFO order holds back the requester's later
// turns while m is in flight, so a retry of m reads the same context and
// decides the same way; the wake turn is deduplicated by m's record and
// the announce by its outbox id.
func (p *Processor) subagentResult(ctx context.Context, m inbound.Message, snap sessionstate.Snapshot) (*inbound.Message, error) {
	f := *m.Flow
	waiting := snap.Receipt != nil
	if !waiting && snap.Context != nil {
		msgs, err := p.wholeContext(ctx, *snap.Context)
		if err != nil {
			return nil, fmt.Errorf("read %s to see whether it waits for %s: %w", m.SessionKey, f.Target, err)
		}
		waiting = subagent.Waiting(msgs, f.Target)
	}
	if !waiting {
		return nil, p.postAnnounce(ctx, f, f.Target, m.Text)
	}
	wake := m
	wake.Flow, wake.Text = nil, wakeNote+m.Text
	p.log().InfoContext(ctx, "sub-agent result wakes its yielded requester", "flow", f.ID, "requester", m.SessionKey, "message", m.ID)
	return &wake, nil
}

// failedResult posts the announce of a FlowResult message that failed on
// its last attempt (its wake turn could not run): the result reaches the
// chat instead of being lost.
func (p *Processor) failedResult(ctx context.Context, m inbound.Message) {
	f := m.Flow
	if f == nil || f.Kind != inbound.FlowResult || f.Route == nil {
		return
	}
	if err := p.postAnnounce(ctx, *f, f.Target, m.Text); err != nil {
		p.log().ErrorContext(ctx, "failed sub-agent result not announced", "flow", f.ID, "session", m.SessionKey, "err", err)
	}
}
