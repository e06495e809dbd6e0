// Package receipt is the runner's idempotency record of one inbound
// message: written Committed with the turn that answers the message, in
// the same atomic write as the session's entry, then Done once the reply
// is delivered. A message that has a receipt never runs again; a
// Committed one only resumes its delivery.
//
// (Not to be confused with run.Record, the record of an agent run that
// followers read.)
//
// It is domain: the standard library and the domain packages run and
// session.
package receipt

import (
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
)

// States of a Receipt.
const (
	Committed = "committed" // transcript and entry written; reply not yet confirmed sent
	Done      = "done"      // reply delivered (or there was none)
)

// Receipt is the idempotency record of one inbound message.
type Receipt struct {
	MessageID  string                  `json:"messageId"`
	SessionKey string                  `json:"sessionKey"`
	State      string                  `json:"state"`
	Reply      string                  `json:"reply,omitempty"`
	Delivery   session.DeliveryContext `json:"delivery,omitzero"`
	// Sent counts the reply's messages already delivered, so a retry of a
	// long reply resumes after the last one that went out.
	Sent int `json:"sent,omitempty"`
	// Streamed is the reply's text the chat already got in blocks while
	// the model wrote it (block streaming), and StreamedParts the chat
	// messages all the turn's blocks took: the reply step sends the rest of
	// the reply, its parts numbered on from StreamedParts.
	Streamed      string `json:"streamed,omitempty"`
	StreamedParts int    `json:"streamedParts,omitempty"`
	// Withheld: the send policy denied delivery when the turn committed;
	// the reply stays in the transcript and nothing is sent.
	Withheld bool `json:"withheld,omitempty"`
	// AlreadySent: the reply is text the run already sent to this chat
	// with the message tool; it is not sent again.
	AlreadySent bool `json:"alreadySent,omitempty"`
	// Collected are the ids of the messages this turn answered together
	// with MessageID (queue mode collect). The commit writes a Done
	// receipt for each, in the same transaction, so none of them runs
	// again.
	Collected []string `json:"collected,omitempty"`
	// CollectedInto, on such a Done receipt, names the turn that answered
	// it.
	CollectedInto string `json:"collectedInto,omitempty"`
	// Followups are the reply handles of collected messages that have
	// their own (Discord interactions): delivery closes each with a notice
	// pointing at this answer, so none is left "thinking…".
	Followups []session.DeliveryContext `json:"followups,omitempty"`
	// Outcome is the run's status (run.StatusOK, StatusError,
	// StatusTimeout, StatusAborted; "" for a command) and Usage its
	// tokens, kept so a flow's next step (a sub-agent's announce) reads
	// them from the receipt even when the step is replayed.
	Outcome string    `json:"outcome,omitempty"`
	Usage   run.Usage `json:"usage,omitzero"`
}
