// Package turn runs one inbound message through a session, exactly once in
// effect, on top of at-least-once delivery: load the session, call the
// model, write the transcript part, commit the entry, deliver the reply,
// finish. Every step can be killed and retried; see Processor.Handle.
package turn

import (
	"context"
	"errors"

	"github.com/zero-gateway/zero/shared/contextstore"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
)

// Record states.
const (
	Committed = "committed" // transcript and entry written; reply not yet confirmed sent
	Done      = "done"      // reply delivered (or there was none)
)

// Record is the idempotency record of one inbound message.
type Record struct {
	MessageID  string                  `json:"messageId"`
	SessionKey string                  `json:"sessionKey"`
	State      string                  `json:"state"`
	Reply      string                  `json:"reply,omitempty"`
	Delivery   session.DeliveryContext `json:"delivery,omitzero"`
	// Sent counts the reply's messages already delivered, so a retry of a
	// long reply resumes after the last one that went out.
	Sent int `json:"sent,omitempty"`
	// Withheld: the send policy denied delivery when the turn committed;
	// the reply stays in the transcript and nothing is sent.
	Withheld bool `json:"withheld,omitempty"`
	// AlreadySent: the reply is text the run already sent to this chat
	// with the message tool (sentByMessageTool); it is not sent again.
	AlreadySent bool `json:"alreadySent,omitempty"`
	// Collected are the ids of the messages this turn answered together
	// with MessageID (queue mode collect). Commit writes a Done record for
	// each, in the same transaction, so none of them runs again.
	Collected []string `json:"collected,omitempty"`
	// CollectedInto, on such a Done record, names the turn that answered it.
	CollectedInto string `json:"collectedInto,omitempty"`
	// Outcome is the run's status (run.StatusOK, StatusError,
	// StatusTimeout, StatusAborted; "" for a command) and Usage its
	// tokens, kept so a flow's next step (a sub-agent's announce) reads
	// them from the record even when the step is replayed.
	Outcome string    `json:"outcome,omitempty"`
	Usage   run.Usage `json:"usage,omitzero"`
}

// Context is the model context the runner keeps beside the entry, so a turn
// reads it in the same call as the entry instead of re-reading the whole
// transcript. It is a cache of the transcript: when it is missing (or
// belongs to another sessionId, or its base object is gone) the runner
// rebuilds it from the transcript.
//
// A long context is stored as a contextstore.Split: Base names an
// immutable object holding its first BaseLen messages, and Messages are
// the ones after it (all of them when Base is ""). Stores keep the three
// fields as they are; the engine folds and expands them.
type Context struct {
	SessionID string          `json:"sessionId"`
	Base      string          `json:"base,omitempty"`
	BaseLen   int             `json:"baseLen,omitempty"`
	Messages  []model.Message `json:"messages"`
}

// Split is c's messages as contextstore stores them.
func (c Context) Split() contextstore.Split {
	return contextstore.Split{Base: c.Base, BaseLen: c.BaseLen, Tail: c.Messages}
}

// Snapshot is what Load returns.
type Snapshot struct {
	Entry   *session.Entry // nil: the key has no session yet
	Context *Context       // nil: no stored context
	Record  *Record        // nil: the message was never committed
	Stop    *Stop          // nil: no /stop was ever sent for the key
}

// Stop is the mark a /stop leaves on its session. The channel function
// writes it the moment the /stop arrives (the session's queue group is
// blocked by the run it wants to stop); the runner honours it until it
// processes the /stop message itself.
type Stop struct {
	MessageID string `json:"messageId"` // the /stop message
	At        int64  `json:"at"`        // epoch ms the mark was written
	Pending   bool   `json:"pending"`   // the /stop message is not processed yet
	Aborted   int64  `json:"aborted"`   // runs it interrupted
	Dropped   int64  `json:"dropped"`   // queued messages it dropped
}

// StopExpiry bounds how long a pending mark is honoured, in case its /stop
// message never reaches the queue.
const StopExpiry = 15 * 60 * 1000 // ms

// Active reports whether s stops messages other than the /stop itself at
// nowMS.
func (s *Stop) Active(messageID string, nowMS int64) bool {
	return s != nil && s.Pending && s.MessageID != messageID && nowMS-s.At < StopExpiry
}

// Stops is the optional Store capability behind /stop: reading the mark
// during a run, and counting what it stopped.
type Stops interface {
	// StopMark reads the key's mark (strongly consistent); nil if none.
	StopMark(ctx context.Context, key string) (*Stop, error)
	// CountStop adds one to the mark's Aborted (aborted) or Dropped count
	// when the mark is still stopMessageID's.
	CountStop(ctx context.Context, key, stopMessageID string, aborted bool) error
	// StopDone clears Pending on stopMessageID's mark.
	StopDone(ctx context.Context, key, stopMessageID string) error
}

// Store is the session store as the runner uses it. Implementations:
// shared/dynamo and turntest.MemStore; both pass turntest.TestStore, and
// both are Committers (turntest.TestCommitter).
type Store interface {
	// Load reads the entry of key, its context and the record of messageID,
	// consistently (reads see every completed Commit and Finish).
	Load(ctx context.Context, key, messageID string) (Snapshot, error)
	// Commit writes e, c and r (State Committed) atomically, or nothing,
	// with a Done record for each id in r.Collected. It succeeds only if
	// the stored entry's Version is e.Version-1 (absent when e.Version is
	// 1) and none of those messages has a record; otherwise it returns a
	// fault.Conflict error.
	Commit(ctx context.Context, key string, e session.Entry, c Context, r Record) error
	// Progress records that the first sent messages of the reply of
	// messageID were delivered. The record must be Committed: a missing
	// record is fault.NotFound, a Done one fault.Conflict.
	Progress(ctx context.Context, key, messageID string, sent int) error
	// Finish marks the record of messageID Done and drops its reply text.
	// Finishing a Done record succeeds; a missing record is fault.NotFound.
	Finish(ctx context.Context, key, messageID string) error
}

// Mover is the optional Store capability to move a session to another key,
// which keeps a Telegram group's session when the group becomes a
// supergroup (its chat id, and so its key, changes).
type Mover interface {
	// Move writes e under to (which must have no entry), deletes the entry
	// and context of from (whose entry must still be at fromVersion) and
	// commits r, atomically. A failed condition is fault.Conflict and
	// changes nothing; e.Version must be 1.
	Move(ctx context.Context, from string, fromVersion int64, to string, e session.Entry, r Record) error
}

// Extra is what a turn's commit writes or checks besides the entry, the
// context and the record (Committer.CommitWith).
type Extra struct {
	// Run, when set, is the turn's run outcome: its terminal record and
	// the events not yet stored. The record is written whether or not the
	// run has a stored record yet: fields the stored record has keep
	// their values except Status, EndedAt, Error, Usage and Model (as
	// run.Store.Finish), and no stored status is required, since the
	// message record's condition already makes the commit happen once.
	Run *RunOutcome
	// Stop, when set, makes the commit fail with ErrStopPending, writing
	// nothing, if the session's stop mark is active (Stop.Active) for
	// Stop.MessageID at Stop.NowMS: a /stop arrived after the turn loaded
	// its snapshot.
	Stop *StopCheck
}

// RunOutcome is a run's terminal record and its unstored events.
type RunOutcome struct {
	Record run.Record
	Events []run.Event
}

// StopCheck names the message a commit is for and the time the stop mark
// is judged at (epoch ms).
type StopCheck struct {
	MessageID string
	NowMS     int64
}

// ErrStopPending is the error of a commit refused by its Extra.Stop check.
var ErrStopPending = errors.New("a /stop is pending for the session")

// Committer is the optional Store capability behind a turn that costs one
// write: the run's outcome rides in the commit and a /stop that arrived
// during the turn is checked by it, at no extra call.
type Committer interface {
	// CommitWith is Commit with x, all or nothing: the same conditions
	// and errors, plus ErrStopPending for x.Stop. Events in x.Run the
	// store cannot fit in its atomic write may be written just before it
	// (they are idempotent, and a follower may see an event before the
	// run's terminal status, never the other way round).
	CommitWith(ctx context.Context, key string, e session.Entry, c Context, r Record, x Extra) error
	// CommitsRunsOf reports whether CommitWith writes run outcomes where
	// rs reads and writes runs (the same table); only then does the
	// runner leave a run's outcome to the commit.
	CommitsRunsOf(rs RunStore) bool
}
