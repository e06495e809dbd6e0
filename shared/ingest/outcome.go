package ingest

import (
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/stopmark"
)

// Outcome is what the door did with a message: Queued, Refused or
// Ignored. Adapters switch on the type to answer their caller.
type Outcome interface{ outcome() }

// Reason says why a message was refused or ignored. It is stable text,
// fit for logs.
type Reason string

// Reasons.
const (
	// NotAdmitted: channels.<channel>.allowFrom lists neither the sender
	// nor (for a group or channel chat) the chat, nor "*".
	NotAdmitted Reason = "sender not admitted"
	// NoText: an ordinary message with nothing but blanks to answer and
	// no attachments.
	NoText Reason = "no text"
)

// Queued: the message is durably on the work queue.
type Queued struct {
	// Message is the message as queued, with its agent and session key.
	Message inbound.Message
	// RunID is the id of the run the message starts (run.NewID of its
	// id); a message collected into an earlier message's turn runs
	// under that message's id instead.
	RunID string
	// Mode is the queue mode the door decided on: the channel's mode from
	// messages.queue (a session's own /queue choice is the runner's to
	// apply; the door does not read the session).
	Mode string
	// Stopping: the session's stop mark was written, so its running turn
	// ends at its next step and what is queued behind it is dropped (a
	// /stop, or any message in queue mode interrupt).
	Stopping bool
}

// Refused: the door turned the message away; nothing was marked or
// queued. A channel acknowledges it all the same, so the platform stops
// delivering it, and logs Hint for the operator.
type Refused struct {
	Message inbound.Message // addressed, not queued
	Reason  Reason
	Hint    string // how the operator lets the sender in
}

// Ignored: there is nothing to run; nothing was marked or queued.
type Ignored struct {
	Message inbound.Message
	Reason  Reason
}

func (Queued) outcome()  {}
func (Refused) outcome() {}
func (Ignored) outcome() {}

// screen is the admission step: the outcome that ends m's way in, or
// done=false when m goes on to be queued. Only ordinary messages are
// screened; a migration (a platform's service message) runs no turn.
func screen(cfg *config.Config, origin Origin, m inbound.Message) (out Outcome, done bool) {
	if m.Kind != "" {
		return nil, false
	}
	if strings.TrimSpace(m.Text) == "" && len(m.Attachments) == 0 {
		return Ignored{Message: m, Reason: NoText}, true
	}
	if origin == Peer && !admitted(cfg, m) {
		return Refused{Message: m, Reason: NotAdmitted, Hint: admitHint(m.Channel)}, true
	}
	return nil, false
}

// admitted reports whether channels.<channel>.allowFrom lets m start a
// turn: it lists the sender, or the chat (admitting everyone in a group or
// channel chat), or "*".
func admitted(cfg *config.Config, m inbound.Message) bool {
	return cfg.Admits(m.Channel, m.From) || (m.ChatType != inbound.Direct && cfg.Admits(m.Channel, m.To))
}

// admitHint tells the operator where to admit a sender of channel.
func admitHint(channel string) string {
	key := "channels." + strings.ToLower(strings.TrimSpace(channel)) + ".allowFrom"
	return `add the user id (or the group's chat id, or "*") to ` + key + " in zero.json"
}

// stopsRun reports whether m stops its session's running turn: a
// person's /stop on its own, or any ordinary message of a person when the
// queue mode is interrupt. An agent-to-agent step, a cron job's run or
// system event and a hook never interrupt: the interrupt is the user's,
// and a caller waiting in sessions_send must not be aborted by its own
// reply-back round.
func stopsRun(m inbound.Message, mode string) bool {
	return m.Kind == "" && fromPerson(m) && (stopmark.IsCommand(m.Text) || mode == config.QueueInterrupt)
}

// fromPerson reports whether m is a person's message (a channel sender,
// or the operator through the gateway), not one the system made for
// itself (a flow step, a cron run or wake, a hook).
func fromPerson(m inbound.Message) bool {
	switch {
	case m.Flow != nil, m.Provenance == inbound.Untrusted:
		return false
	case m.From == "cron", m.From == "hook":
		return false
	}
	return true
}

// queued is the outcome of m's enqueue.
func queued(m inbound.Message, mode string, stopping bool) Queued {
	return Queued{Message: m, RunID: run.NewID(m.ID), Mode: mode, Stopping: stopping}
}
