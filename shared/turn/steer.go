package turn

import (
	"context"
	"slices"
	"sync"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/steer"
)

// Steering is the optional Store capability behind queue mode steer: the
// messages the ingest door recorded for a steer-mode session
// (steer.Pending), read while a run works.
type Steering interface {
	// PendingSteer lists key's pending messages, oldest first (strongly
	// consistent: a message the door recorded before the call is in it).
	PendingSteer(ctx context.Context, key string) ([]steer.Pending, error)
	// Recorded reports which of ids have a message record (a turn took
	// them, or is taking them): those are never steered again.
	Recorded(ctx context.Context, ids []string) (map[string]bool, error)
	// DropSteer deletes key's pending records of ids; deleting one that
	// is gone is no error.
	DropSteer(ctx context.Context, key string, ids []string) error
}

// steerer hands a running turn of a steer-mode session the messages that
// reached the session meanwhile, at each tool boundary (agent.Loop.Steer),
// and remembers which it handed over, so the turn's commit records them
// done (Collected) and their queued copies become duplicates: exactly
// once, in the same transaction as the turn. A retry of an uncommitted
// turn finds them pending again and takes them again; once committed,
// their records keep any later run from taking them. Safe for the loop's
// use from one goroutine at a time.
type steerer struct {
	p     *Processor
	store Steering
	key   string
	skip  map[string]bool // the turn's own messages

	mu    sync.Mutex
	taken []steer.Pending
}

// steerFor is the turn's steerer, or nil when the session's queue mode is
// not steer or the store cannot steer (the messages then run as their own
// turns, as in collect).
func (p *Processor) steerFor(t *turnState, entry session.Entry, collected []inbound.Message) *steerer {
	store, ok := p.Store.(Steering)
	if !ok || t.cfg.QueueMode(t.msg.Channel, entry.QueueMode) != config.QueueSteer {
		return nil
	}
	skip := map[string]bool{t.msg.ID: true}
	for _, c := range collected {
		skip[c.ID] = true
	}
	return &steerer{p: p, store: store, key: t.msg.SessionKey, skip: skip}
}

// next is agent.Loop.Steer: the pending messages not yet taken and not
// recorded, as user messages, oldest first. A read that fails steers
// nothing: the messages run as their own turns.
func (s *steerer) next(ctx context.Context) []model.Message {
	fresh := s.unrecorded(ctx)
	if len(fresh) == 0 {
		return nil
	}
	s.mu.Lock()
	s.taken = append(s.taken, fresh...)
	s.mu.Unlock()
	msgs := make([]model.Message, 0, len(fresh))
	for _, m := range fresh {
		msgs = append(msgs, model.Message{Role: model.User, Content: m.Text})
	}
	s.p.log().InfoContext(ctx, "steering messages into the running turn", "session", s.key, "messages", len(msgs))
	return msgs
}

func (s *steerer) took(id string) bool {
	return slices.ContainsFunc(s.taken, func(m steer.Pending) bool { return m.MessageID == id })
}

func (s *steerer) warn(ctx context.Context, msg string, err error) {
	if err != nil {
		s.p.log().WarnContext(ctx, msg, "session", s.key, "err", err)
	}
}

// loopHook is next as agent.Loop.Steer; nil without a steerer.
func (s *steerer) loopHook() func(context.Context) []model.Message {
	if s == nil {
		return nil
	}
	return s.next
}

// collect is the commit's Collected: collected and every message this
// turn steered that its output keeps (a user message of the run after its
// prompt with the message's text). A run that failed keeps none, so its
// steered messages run as their own turns instead of being lost. A retry
// that adopted the run its crashed predecessor recorded took nothing
// itself: the messages that run steered are still pending, unrecorded,
// and are matched by their text. A steered message joins as its id only:
// the door's steer record keeps no reply handle.
func (s *steerer) collect(ctx context.Context, collected []inbound.Message, out []model.Message) []inbound.Message {
	if s == nil {
		return collected
	}
	var kept []string // the texts of the user messages after the prompt
	for _, m := range out[min(1, len(out)):] {
		if m.Role == model.User {
			kept = append(kept, m.Content)
		}
	}
	if len(kept) == 0 {
		return collected
	}
	s.mu.Lock()
	candidates := slices.Clone(s.taken)
	s.mu.Unlock()
	if len(candidates) < len(kept) {
		candidates = append(candidates, s.unrecorded(ctx)...)
	}
	done := slices.Clone(collected)
	for _, m := range candidates {
		if i := slices.Index(kept, m.Text); i >= 0 && !slices.ContainsFunc(done, func(d inbound.Message) bool { return d.ID == m.MessageID }) {
			kept = slices.Delete(kept, i, i+1)
			done = append(done, inbound.Message{ID: m.MessageID})
		}
	}
	if len(done) == len(collected) {
		return collected
	}
	return done
}

// unrecorded are the pending messages, oldest first, not the turn's own,
// not taken and not recorded (the records of recorded ones are dropped on
// the way); none when they cannot be read.
func (s *steerer) unrecorded(ctx context.Context) []steer.Pending {
	pending, err := s.store.PendingSteer(ctx, s.key)
	if err != nil {
		s.warn(ctx, "pending steer messages unreadable", err)
		return nil
	}
	s.mu.Lock()
	pending = slices.DeleteFunc(pending, func(m steer.Pending) bool { return s.skip[m.MessageID] || s.took(m.MessageID) })
	s.mu.Unlock()
	var ids []string
	for _, m := range pending {
		ids = append(ids, m.MessageID)
	}
	if len(ids) == 0 {
		return nil
	}
	recorded, err := s.store.Recorded(ctx, ids)
	if err != nil {
		s.warn(ctx, "steer messages' records unreadable", err)
		return nil
	}
	var stale []string // ran (or were steered) before: drop their records on the way
	for id, ok := range recorded {
		if ok {
			stale = append(stale, id)
		}
	}
	if len(stale) > 0 {
		s.warn(ctx, "stale steer records not dropped", s.store.DropSteer(ctx, s.key, stale))
	}
	return slices.DeleteFunc(pending, func(m steer.Pending) bool { return recorded[m.MessageID] })
}

// cleanup drops the pending records of the turn's own and steered
// messages after its commit; a failure only leaves records that the next
// run finds recorded and drops.
func (s *steerer) cleanup(ctx context.Context, ids []string) {
	if s == nil {
		return
	}
	s.warn(ctx, "steer records not dropped", s.store.DropSteer(ctx, s.key, ids))
}
