package turn

import (
	"context"
	"sync"
	"time"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/session"
)

// Typist is a Sender that can show a chat that the assistant is working
// (Telegram's sendChatAction "typing"). The engine finds it on the
// channel's sender by type assertion; a channel without it shows nothing
// (Discord keeps its deferred "thinking…" state instead).
type Typist interface {
	// Typing shows the state once; the channel clears it after a few
	// seconds or at the bot's next message. It must return promptly and
	// may fail: a missed typing is harmless.
	Typing(ctx context.Context, to session.DeliveryContext) error
}

// DefaultTypingInterval is how often typing is sent while a run works:
// Telegram shows it for about 5 s.
const DefaultTypingInterval = 4 * time.Second

// typingCallLimit bounds one typing request, so a slow channel never
// stacks them up.
const typingCallLimit = 3 * time.Second

// startTyping shows typing in the chat the turn's reply goes to, at once
// and then every TypingInterval, from a goroutine of its own, until the
// returned stop is called (before the reply is committed and sent). It
// adds no AWS call and never delays the turn: each request is bounded by
// typingCallLimit, and failures are logged at debug level only. Nothing
// is shown for a silent run: an internal channel (a gateway run without
// delivery, a cron job without delivery), an agent-to-agent or sub-agent
// flow step, a session whose send policy withholds replies, or a
// channel whose sender is not a Typist. stop is idempotent and returns
// only when no typing request is in flight.
func (p *Processor) startTyping(ctx context.Context, t *turnState, entry session.Entry) (stop func()) {
	typist, to, ok := p.typistFor(t, entry)
	if !ok {
		return func() {}
	}
	every := p.TypingInterval
	if every <= 0 {
		every = DefaultTypingInterval
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ticker := time.NewTicker(every)
		defer ticker.Stop()
		for {
			callCtx, callCancel := context.WithTimeout(ctx, typingCallLimit)
			if err := typist.Typing(callCtx, to); err != nil && ctx.Err() == nil {
				p.log().DebugContext(ctx, "typing not shown", "session", t.msg.SessionKey, "channel", to.Channel, "err", err)
			}
			callCancel()
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { cancel(); <-done }) }
}

// typistFor is the Typist and chat of a turn whose reply a chat will see,
// or ok false for a silent run (see startTyping).
func (p *Processor) typistFor(t *turnState, entry session.Entry) (Typist, session.DeliveryContext, bool) {
	m := t.msg
	if m.Channel == inbound.Internal || m.Flow != nil || m.Kind != "" {
		return nil, session.DeliveryContext{}, false
	}
	if !t.cfg.SendPolicy().Allows(m.SessionKey, entry.Channel, entry.ChatType, entry.SendPolicy) {
		return nil, session.DeliveryContext{}, false
	}
	to := entry.DeliveryContext
	typist, ok := p.Senders[to.Channel].(Typist)
	if !ok || to.To == "" {
		return nil, session.DeliveryContext{}, false
	}
	return typist, to, true
}
