package turn

import (
	"context"
	"fmt"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/subagent"
)

// wakeNote heads the message that brings a sub-agent's result to the
// session that yielded waiting for it.
const wakeNote = "[sub-agent result] A sub-agent you waited for (sessions_yield) finished; answer the user with its result:\n\n"

// wakeRequester is sessions_yield's other half: when the requester of the
// sub-agent flow f waits for the child m ran in (its stored context shows
// a sessions_yield after the child's spawn: subagent.Waiting), the
// child's announce text is queued as the requester's next message, on
// the chat of the spawn's route, so the requester's next turn answers
// there with the result; woke is then true and nothing is posted as is.
// The message is untrusted (a sub-agent wrote it), and its id derives
// from the flow, so a replayed step queues it once. Without a door, a
// route or a waiting requester woke is false and the announce is posted
// as usual. A child that ends before the requester's yielding turn has
// committed is not seen waiting: its announce is posted as usual.
func (p *Processor) wakeRequester(ctx context.Context, m inbound.Message, f inbound.Flow, text string) (bool, error) {
	if f.Route == nil || p.Door == nil {
		return false, nil
	}
	waiting, err := p.requesterWaits(ctx, f.Requester, m)
	if err != nil || !waiting {
		return false, err
	}
	e, err := p.readEntry(ctx, f.Requester)
	if err != nil {
		return false, err
	}
	chatType := e.ChatType
	if chatType == "" {
		chatType = inbound.Direct
	}
	r := *f.Route
	wake := inbound.Message{
		ID: flowStepID(f.ID, "wake", 0), AgentID: f.RequesterAgent, SessionKey: f.Requester,
		Channel: r.Channel, To: r.To, AccountID: r.AccountID, ThreadID: r.ThreadID, ChatType: chatType,
		Text: wakeNote + text, ReceivedAt: p.Now().UnixMilli(), Provenance: inbound.Untrusted,
	}
	if _, err := p.queue().Queue(ctx, wake); err != nil {
		return false, fmt.Errorf("queue the result of %s for %s, which waits for it: %w", m.SessionKey, f.Requester, err)
	}
	p.log().InfoContext(ctx, "sub-agent result queued for its yielded requester", "flow", f.ID, "requester", f.Requester, "message", wake.ID)
	return true, nil
}

// requesterWaits reports whether the stored context of requester shows
// it waiting for the child session of m.
func (p *Processor) requesterWaits(ctx context.Context, requester string, m inbound.Message) (bool, error) {
	snap, err := p.Store.Load(ctx, requester, m.ID)
	if err != nil {
		return false, fmt.Errorf("load %s to see whether it waits for %s: %w", requester, m.SessionKey, err)
	}
	if snap.Context == nil {
		return false, nil
	}
	msgs, err := p.wholeContext(ctx, *snap.Context)
	if err != nil {
		return false, err
	}
	return subagent.Waiting(msgs, m.SessionKey), nil
}
