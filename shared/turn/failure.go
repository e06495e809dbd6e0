package turn

import (
	"context"

	"github.com/zero-gateway/zero/shared/delivery"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/session"
)

// Failures is the optional Store capability that keeps the last failed
// attempt of each message, so an operator can see why a message reached
// the dead-letter queue (`zero dlq list`), and remembers whether its
// sender was told.
type Failures interface {
	// RecordFailure stores attempt and reason for messageID, replacing the
	// previous attempt's, and reports whether the sender was already told
	// (Told) in this run of receives. An attempt not above the stored one
	// starts a new run (the queue's receive count only grows, except for
	// a message redriven from the dead-letter queue, which starts again):
	// it forgets Told and reports false, so the sender is told once per
	// arrival in the dead-letter queue.
	RecordFailure(ctx context.Context, key, messageID string, attempt int, reason string) (told bool, err error)
	// Told records that messageID's sender was told it failed. Idempotent.
	Told(ctx context.Context, messageID string) error
}

// FailureNotice is what a sender gets when their message could not be
// processed after the queue's last attempt.
const FailureNotice = "⚠️ Sorry, your message could not be processed, even after several tries. It has been set aside for the operator; please send it again later."

// Failed is the queue consumer's report of a failed attempt at msgs (a
// session's messages, in order, from the one that failed; attempts are
// their receive counts). It records each message's failure and, when last
// (the first of them was on its final receive and goes to the dead-letter
// queue next), tells the sender once with FailureNotice; a KindDeliver
// message's outbox item is settled dead instead (no notice).
//
// It never fails: a store or channel error is logged, since the messages
// are retried or dead-lettered either way. Under retries the notice is
// sent once per run of receives: the failure record remembers it (a crash
// between the send and that write is the one way to get it twice), and
// forgets it when a redriven message's receive count starts again, so a
// redriven message that fails for good again tells its sender again.
func (p *Processor) Failed(ctx context.Context, msgs []inbound.Message, attempts []int, last bool, cause error) {
	failures, _ := p.Store.(Failures)
	told := false
	for i, m := range msgs {
		if failures == nil {
			break
		}
		t, err := failures.RecordFailure(ctx, m.SessionKey, m.ID, attempts[i], cause.Error())
		if err != nil {
			p.log().WarnContext(ctx, "failure not recorded", "message", m.ID, "session", m.SessionKey, "err", err)
		}
		told = told || t
	}
	if !last || len(msgs) == 0 {
		return
	}
	first := msgs[0]
	if first.Kind == inbound.KindDeliver {
		// An announce has no sender to tell: its outbox item goes dead,
		// listed by zero status and the gateway's outbox.list.
		p.outboxDelivery().Failed(ctx, first, attempts[0], cause)
		return
	}
	p.log().ErrorContext(ctx, "message failed on its last attempt; it moves to the dead-letter queue",
		"message", first.ID, "session", first.SessionKey, "attempt", attempts[0], "err", cause)
	p.failedChild(ctx, first, cause) // a sub-agent's requester hears of it
	p.failedResult(ctx, first)       // a result whose wake turn failed is announced
	if told {
		return
	}
	if err := p.notifyFailure(ctx, first); err != nil {
		p.log().ErrorContext(ctx, "failure notice not delivered", "message", first.ID, "session", first.SessionKey, "err", err)
		return
	}
	if failures != nil {
		if err := failures.Told(ctx, first.ID); err != nil {
			p.log().WarnContext(ctx, "failure notice not recorded", "message", first.ID, "err", err)
		}
	}
}

// notifyFailure sends FailureNotice where m came from. API runs (channel
// internal) have no one to send to.
func (p *Processor) notifyFailure(ctx context.Context, m inbound.Message) error {
	if m.Channel == inbound.Internal {
		return nil
	}
	sender, ok := p.Senders[m.Channel]
	if !ok {
		return fault.New(fault.Internal, "no sender for channel %s", m.Channel)
	}
	to := session.DeliveryContext{Channel: m.Channel, To: m.To, AccountID: m.AccountID, ThreadID: m.ThreadID}
	if m.ReplyToken != "" {
		to.ReplyToken, to.ReplyTokenAt = m.ReplyToken, m.ReceivedAt
	}
	for i, part := range sender.Render(FailureNotice) {
		if err := delivery.Post(ctx, sender, to, i, part); err != nil {
			return err
		}
	}
	return nil
}
