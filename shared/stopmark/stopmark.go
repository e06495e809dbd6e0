// Package stopmark is the mark a /stop leaves on its session, and the
// rules every store and the engine read it by.
//
// /stop, end to end: the ingest door writes the session's mark the moment
// a /stop arrives (the session's queue group is blocked by the run it
// wants to stop) and queues the /stop like any message. The running turn
// sees the mark between steps and ends; messages queued behind it are
// dropped while the mark is Active; the /stop itself, processed last,
// reports the counts and clears Pending.
//
// It is domain: standard library only.
package stopmark

import (
	"errors"
	"strings"
)

// Mark is the stop mark of one session.
type Mark struct {
	MessageID string `json:"messageId"` // the /stop message
	At        int64  `json:"at"`        // epoch ms the mark was written
	Pending   bool   `json:"pending"`   // the /stop message is not processed yet
	Aborted   int64  `json:"aborted"`   // runs it interrupted
	Dropped   int64  `json:"dropped"`   // queued messages it dropped
	// Remote: a parent's /stop wrote this mark on its sub-agent's session.
	// No /stop message of this session will clear it, so the end of the
	// run it stopped (or the drop of a task it stopped before it ran)
	// does; until then the sub-agent's queued messages are dropped.
	Remote bool `json:"remote,omitempty"`
}

// Expiry bounds how long a pending mark is honoured, in case its /stop
// message never reaches the queue.
const Expiry = 15 * 60 * 1000 // ms

// Active reports whether m stops messages other than the /stop itself
// (messageID is the message asking) at nowMS. A nil mark stops nothing.
func (m *Mark) Active(messageID string, nowMS int64) bool {
	return m != nil && m.Pending && m.MessageID != messageID && nowMS-m.At < Expiry
}

// Check asks a store's commit to refuse when the session's mark is Active
// for MessageID (the message the commit is for) at NowMS (epoch ms): a
// /stop arrived after the turn loaded its snapshot.
type Check struct {
	MessageID string
	NowMS     int64
}

// ErrPending is the error of a commit refused by its Check (stores wrap
// it in a fault.Conflict error; test with errors.Is).
var ErrPending = errors.New("a /stop is pending for the session")

// IsCommand reports whether text is a /stop sent on its own, which the
// ingest door acts on before queueing: its first word, lower-cased, is
// /stop, and nothing follows it. A "/stop@name" is not: the door drops
// "@name" first when the command is this bot's (ingest's addressed), so
// what still names a bot names another one. It agrees with the runner's
// command parser (the turn package checks that in its tests).
func IsCommand(text string) bool {
	text = strings.TrimSpace(text)
	head, rest, _ := strings.Cut(text, " ")
	if i := strings.IndexAny(head, "\n\t"); i >= 0 {
		head, rest = head[:i], text[i+1:]
	}
	return strings.ToLower(head) == "/stop" && strings.TrimSpace(rest) == ""
}
