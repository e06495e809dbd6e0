package turn

import (
	"context"
	"fmt"

	"github.com/zero-gateway/zero/shared/delivery"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
)

// Notices that close a deferred answer (a Discord interaction shows
// "thinking…" until it is completed) when the turn sends nothing itself.
const (
	deferralDone      = "✓ Done: nothing more to say."
	deferralWithheld  = "The reply was not sent: this chat's send policy withholds it."
	deferralSent      = "✓ Sent."
	deferralStopped   = "⏹️ Stopped before it ran (/stop)."
	deferralCollected = "↑ Answered together with the earlier message it was queued behind."
)

// closeDeferral completes the reply handle of a turn that sends no reply
// of its own — NO_REPLY, a reply the send policy withholds, a reply the
// message tool already sent — with a short notice, so the user is never
// left with "thinking…" until the handle expires. A turn that sent its
// reply (or a block of it), or whose message has no handle, needs
// nothing. Idempotent: the notice edits the deferred answer in place
// (part 0), so a retry edits it again. A channel that refuses it for good is logged and given up. The
// collected messages' own handles (rec.Followups) each get a notice that
// points at the answer.
func (p *Processor) closeDeferral(ctx context.Context, m inbound.Message, rec receipt.Receipt) error {
	for _, h := range rec.Followups {
		if err := p.postDeferral(ctx, m, h, deferralCollected); err != nil {
			return err
		}
	}
	if rec.StreamedParts > 0 {
		return nil // a reply block already completed it
	}
	notice := ""
	switch {
	case rec.Withheld:
		notice = deferralWithheld
	case rec.AlreadySent:
		notice = deferralSent
	case rec.Reply == "":
		notice = deferralDone
	}
	if notice == "" {
		return nil
	}
	return p.postDeferral(ctx, m, rec.Delivery, notice)
}

// postDeferral posts notice on the reply handle of to (nothing when it
// has none).
func (p *Processor) postDeferral(ctx context.Context, m inbound.Message, to session.DeliveryContext, notice string) error {
	if to.ReplyToken == "" || to.Channel == inbound.Internal {
		return nil
	}
	sender, ok := p.Senders[to.Channel]
	if !ok {
		return nil
	}
	for i, part := range sender.Render(notice) {
		err := delivery.Post(ctx, sender, to, i, part)
		if err != nil && delivery.Undeliverable(err) {
			p.log().WarnContext(ctx, "deferred answer not closed; giving up", "message", m.ID, "err", err)
			return nil
		}
		if err != nil {
			return fmt.Errorf("close the deferred answer of %s: %w", m.ID, err)
		}
	}
	return nil
}

// handleOf is the reply handle a message carries, as its turn would
// deliver to it.
func handleOf(m inbound.Message) session.DeliveryContext {
	return session.DeliveryContext{Channel: m.Channel, To: m.To, AccountID: m.AccountID, ThreadID: m.ThreadID, ReplyToken: m.ReplyToken, ReplyTokenAt: m.ReceivedAt}
}
