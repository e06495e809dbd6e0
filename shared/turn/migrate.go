package turn

import (
	"context"
	"fmt"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/sessionstate"
)

// migrate moves the session at m.MigrateFrom to m.SessionKey, keeping its
// sessionId (and so its transcript), when a chat changed id: a Telegram
// group upgraded to a supergroup. It runs in the new key's queue group,
// ahead of the new chat's later messages.
//
// Idempotent: when the new key already has an entry (moved by an earlier
// attempt, or the new chat spoke first) or the old key has none, there is
// nothing to move. The move itself is one atomic store write.
func (p *Processor) migrate(ctx context.Context, m inbound.Message, snap sessionstate.Snapshot) error {
	mover, ok := p.Store.(Mover)
	if !ok {
		p.log().WarnContext(ctx, "store cannot move sessions; the new chat starts a new session", "from", m.MigrateFrom, "to", m.SessionKey)
		return nil
	}
	if snap.Entry != nil {
		p.log().InfoContext(ctx, "session migration: target already has a session", "from", m.MigrateFrom, "to", m.SessionKey)
		return nil
	}
	old, err := p.Store.Load(ctx, m.MigrateFrom, m.ID)
	if err != nil {
		return fmt.Errorf("load session %s to migrate: %w", m.MigrateFrom, err)
	}
	if old.Entry == nil {
		p.log().InfoContext(ctx, "session migration: nothing to move", "from", m.MigrateFrom, "to", m.SessionKey)
		return nil
	}
	e := p.prepareEntry(*old.Entry, m)
	e.Version = 1
	rec := receipt.Receipt{MessageID: m.ID, SessionKey: m.SessionKey, State: receipt.Committed, Delivery: e.DeliveryContext}
	// A fault.Conflict means someone wrote either key meanwhile; the
	// retry re-reads both.
	if err := mover.Move(ctx, m.MigrateFrom, old.Entry.Version, m.SessionKey, e, rec); err != nil {
		return fmt.Errorf("move session %s to %s: %w", m.MigrateFrom, m.SessionKey, err)
	}
	p.log().InfoContext(ctx, "session migrated", "from", m.MigrateFrom, "to", m.SessionKey, "session_id", e.SessionID)
	return p.deliver(ctx, m, rec)
}
