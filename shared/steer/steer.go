// Package steer is the vocabulary of queue mode steer: a message that
// arrives for a session whose queue mode is steer is recorded by the
// ingest door as Pending (besides being queued as usual), so the session's
// running turn can take it in at its next tool boundary instead of a new
// turn; the turn then records the message done with its own commit, and
// its queued copy becomes a duplicate. It is domain: standard library
// only.
package steer

// Pending is one message recorded for steering.
type Pending struct {
	MessageID string `json:"messageId"`
	Text      string `json:"text"`
	From      string `json:"from,omitempty"`
	At        int64  `json:"at"` // epoch ms at the door
}

// TTLHours is how long a Pending record lives: past it, the message has
// long run as its own turn (the store's readers also check the message's
// own record, so a stale Pending is never taken twice).
const TTLHours = 24
