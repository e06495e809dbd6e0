package turn

import (
	"context"
	"fmt"
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/outbox"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/subagent"
)

// SessionDeleter is the Store capability behind sessions_spawn's cleanup
// "delete": remove a session's entry and context (its transcript stays).
// Deleting an absent session succeeds. shared/dynamo's Store and
// turntest.MemStore are one (session.Deleter).
type SessionDeleter interface {
	Delete(ctx context.Context, key string) error
}

// finishSubagent is a sub-agent flow's last step, run after the child's
// turn m is committed (rec) and before its record is finished: it puts
// the child's result in the outbox for the requester's chat (the route
// captured at spawn, Flow.Route) and then, for cleanup "delete", deletes
// the child session. A reply of exactly ANNOUNCE_SKIP announces nothing;
// a flow without a route, or one the requester's send policy withholds,
// is logged and announces nothing.
//
// Idempotent: the outbox item's id derives from the flow id (Put keeps
// the first item, so a replay does not change its text, and the queue
// deduplicates its delivery message) and deleting an absent session
// succeeds, so a replay after a crash announces once. Errors (the store,
// the outbox, the queue) are returned for the step to be retried.
func (p *Processor) finishSubagent(ctx context.Context, m inbound.Message, rec receipt.Receipt) error {
	f := m.Flow
	if f == nil || f.Kind != inbound.FlowSubagent {
		return nil
	}
	if strings.TrimSpace(rec.Reply) == inbound.AnnounceSkip {
		p.log().InfoContext(ctx, "sub-agent announce skipped (ANNOUNCE_SKIP)", "flow", f.ID, "session", m.SessionKey)
	} else if err := p.announceSubagent(ctx, m, *f, rec); err != nil {
		return fmt.Errorf("announce sub-agent %s: %w", m.SessionKey, err)
	}
	if f.Cleanup != inbound.CleanupDelete {
		return nil
	}
	del, ok := p.Store.(SessionDeleter)
	if !ok {
		p.log().WarnContext(ctx, "sub-agent cleanup skipped: the store cannot delete sessions", "session", m.SessionKey)
		return nil
	}
	if err := del.Delete(ctx, m.SessionKey); err != nil {
		return fmt.Errorf("delete sub-agent session %s: %w", m.SessionKey, err)
	}
	p.log().InfoContext(ctx, "sub-agent session deleted (cleanup delete)", "session", m.SessionKey, "flow", f.ID)
	return nil
}

// announceSubagent hands the announce of the child's run rec to the
// requester's queue group (passResult), where it becomes a wake or the
// announce in the outbox.
func (p *Processor) announceSubagent(ctx context.Context, m inbound.Message, f inbound.Flow, rec receipt.Receipt) error {
	if f.Route == nil {
		p.log().WarnContext(ctx, "sub-agent announce skipped: the requester had no chat to announce to", "flow", f.ID, "requester", f.Requester)
		return nil
	}
	cfg, err := p.config(ctx)
	if err != nil {
		return err
	}
	allowed, err := p.requesterAllows(ctx, cfg, f)
	if err != nil || !allowed {
		return err
	}
	child, err := p.readEntry(ctx, m.SessionKey)
	if err != nil {
		return err
	}
	text := subagent.Announce(cfg, subagent.Run{Flow: f, Key: m.SessionKey, Child: child, Ended: rec, Now: p.Now(), Counted: p.callsOf(ctx)})
	return p.passResult(ctx, m, f, text)
}

// postAnnounce puts the announce text of the sub-agent flow f (child
// session child) in the outbox for the route captured at spawn. Its id
// derives from the flow, so every path (replays, failedChild, the
// requester's decision) posts one item at most.
func (p *Processor) postAnnounce(ctx context.Context, f inbound.Flow, child, text string) error {
	r := *f.Route
	return p.outboxDelivery().Announce(ctx, outbox.Item{
		ID: flowStepID(f.ID, outbox.KindSubagent, 0), Kind: outbox.KindSubagent, SessionKey: child,
		Delivery: session.DeliveryContext{Channel: r.Channel, To: r.To, AccountID: r.AccountID, ThreadID: r.ThreadID},
		Text:     text,
	})
}

// requesterAllows applies the send policy of the requester's session to
// the announce (its entry's channel and chat type, else the route's).
func (p *Processor) requesterAllows(ctx context.Context, cfg *config.Config, f inbound.Flow) (bool, error) {
	e, err := p.readEntry(ctx, f.Requester)
	if err != nil {
		return false, err
	}
	channel := e.Channel
	if channel == "" {
		channel = f.Route.Channel
	}
	if cfg.SendPolicy().Allows(f.Requester, channel, e.ChatType, e.SendPolicy) {
		return true, nil
	}
	p.log().InfoContext(ctx, "sub-agent announce withheld by the requester's send policy", "flow", f.ID, "requester", f.Requester)
	return false, nil
}

// readEntry reads key's entry where the store can; absent (or a store
// that cannot read other sessions) is the zero entry.
func (p *Processor) readEntry(ctx context.Context, key string) (session.Entry, error) {
	reader, ok := p.Store.(entryReader)
	if !ok || key == "" {
		return session.Entry{}, nil
	}
	e, err := reader.Get(ctx, key)
	if fault.Is(err, fault.NotFound) {
		return session.Entry{}, nil
	}
	if err != nil {
		return session.Entry{}, fmt.Errorf("read session %s: %w", key, err)
	}
	return e, nil
}

// callsOf is the AWS calls counted on ctx so far (Processor.CallsOf), nil
// when nothing counts them.
func (p *Processor) callsOf(ctx context.Context) map[string]int {
	if p.CallsOf == nil {
		return nil
	}
	return p.CallsOf(ctx)
}
