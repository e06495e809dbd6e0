package turn

import (
	"context"
	"fmt"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/inbound"
)

// maxDebounceHolds bounds how often a message is held for debounce: each
// hold is one more receive of it, and the work queue's maxReceiveCount
// (5 by default) moves a message received that often to the dead-letter
// queue. A chat that never falls quiet gets its turn after the second hold,
// with the failure retries left intact.
const maxDebounceHolds = 2

// Hold is HandleGroup's answer to messages held for debounce: nothing was
// done, and the queue should deliver them again after For (the consumer
// recognises the HoldFor method: sqsqueue's holds), when the messages that
// arrived meanwhile come with them.
type Hold struct {
	For time.Duration
}

// HoldFor is how long the messages stay back.
func (h *Hold) HoldFor() time.Duration { return h.For }

func (h *Hold) Error() string {
	return fmt.Sprintf("held %s for debounce", h.For.Round(time.Millisecond))
}

// debounce holds msgs (a *Hold) while their chat has not been quiet for
// messages.queue.debounceMs: the time since the newest of them reached
// the door (arrival) is shorter. It holds only messages that collect
// would run as one turn, of a session in queue mode collect, and at most
// maxDebounceHolds times (by the first message's receive count); anything
// else runs at once. Holding changes nothing stored, so a retried or
// redelivered batch is judged afresh. It costs the session's load only
// when it may hold.
func (p *Processor) debounce(ctx context.Context, msgs []inbound.Message, attempts []int) error {
	cfg, err := p.config(ctx)
	if err != nil {
		return err
	}
	wait := time.Duration(cfg.Messages.Queue.DebounceMs) * time.Millisecond
	if wait <= 0 || !p.mayHold(attempts[0]) || !collectable(msgs, cfg) {
		return nil
	}
	var newest int64
	for _, m := range msgs {
		newest = max(newest, arrival(m))
	}
	quiet := p.Now().Sub(time.UnixMilli(newest))
	if newest == 0 || quiet >= wait {
		return nil
	}
	snap, err := p.Store.Load(ctx, msgs[0].SessionKey, msgs[0].ID)
	if err != nil {
		return fmt.Errorf("load session %s: %w", msgs[0].SessionKey, err)
	}
	if snap.Receipt != nil || cfg.QueueMode(msgs[0].Channel, entryQueueMode(snap.Entry)) != config.QueueCollect {
		return nil
	}
	p.log().InfoContext(ctx, "holding messages until the chat is quiet", "session", msgs[0].SessionKey,
		"messages", len(msgs), "quiet", quiet.Round(time.Millisecond).String(), "debounce", wait.String())
	return &Hold{For: wait - quiet}
}

// mayHold reports whether a message on its receive-th delivery may be
// held: at most maxDebounceHolds times, and never where the receive after
// the hold would be the queue's last (MaxReceives), so a message keeps a
// failure retry and a hold never moves one to the dead-letter queue.
func (p *Processor) mayHold(receive int) bool {
	return receive <= maxDebounceHolds && (p.MaxReceives <= 0 || receive < p.MaxReceives-1)
}

// collectable reports whether msgs may run as one collected turn: valid
// ordinary messages of one session and route, none a command.
func collectable(msgs []inbound.Message, cfg *config.Config) bool {
	first := msgs[0]
	for _, m := range msgs {
		if m.Validate() != nil || m.Kind != "" || m.Flow != nil || m.SessionKey != first.SessionKey || m.Channel != first.Channel ||
			m.To != first.To || m.ThreadID != first.ThreadID || parseCommand(m.Text, cfg.ResetTriggers()).name != "" {
			return false
		}
	}
	return true
}

// arrival is when m reached the door: QueuedAt, else (a message queued by
// an older door) ReceivedAt.
func arrival(m inbound.Message) int64 {
	if m.QueuedAt > 0 {
		return m.QueuedAt
	}
	return m.ReceivedAt
}
