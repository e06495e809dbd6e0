package turn

import (
	"fmt"
	"time"

	"github.com/zero-gateway/zero/shared/session"
)

// resetNotice is the line that opens the reply of a turn that started a
// new session because the old one went stale (session.reset's daily hour
// or idle window), so the user learns the assistant no longer has the
// earlier context; "" for any other turn, or when session.resetNotice is
// false. It reads only the turn's inputs and the clock, and staleness only
// grows with time, so a retried turn writes the same line (bar a retry
// that crosses the idle deadline of a daily reset: then it names idle).
func resetNotice(t *turnState, now time.Time) string {
	if t.reset != ResetStale || t.stored == nil || t.cfg.Session.NoResetNotice {
		return ""
	}
	m := t.msg
	lc := t.cfg.Lifecycle()
	p := lc.PolicyFor(m.Channel, session.ResetTypeOf(m.ChatType, m.ThreadID))
	switch lc.StaleCause(p, t.stored.UpdatedAt, now) {
	case session.CauseIdle:
		return fmt.Sprintf("(New session: %d minutes without a message reset the conversation; earlier messages are not in context.)", p.IdleMinutes)
	case session.CauseDaily:
		return fmt.Sprintf("(New session: the daily reset at %02d:00 %s started a fresh conversation; earlier messages are not in context.)", p.AtHour, zoneName(lc))
	}
	return ""
}

// withResetNotice puts notice on its own line before reply. A turn with no
// reply text (a silent run) gets none: nothing would carry it.
func withResetNotice(notice, reply string) string {
	if notice == "" || reply == "" {
		return reply
	}
	return notice + "\n" + reply
}

func zoneName(lc session.Lifecycle) string {
	if lc.Location == nil {
		return "UTC"
	}
	return lc.Location.String()
}
