// Package turn runs one inbound message through a session, exactly once in
// effect, on top of at-least-once delivery: load the session, call the
// model, write the transcript part, commit the entry, deliver the reply,
// finish. Every step can be killed and retried; see Processor.Handle.
package turn

import (
	"context"

	"github.com/zero-gateway/zero/shared/contextstore"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/stopmark"
)

// splitOf is c's messages as contextstore stores them.
func splitOf(c sessionstate.ModelContext) contextstore.Split {
	return contextstore.Split{Base: c.Base, BaseLen: c.BaseLen, Tail: c.Messages}
}

// Stops is the optional Store capability behind /stop: reading the mark
// during a run, and counting what it stopped.
type Stops interface {
	// StopMark reads the key's mark (strongly consistent); nil if none.
	StopMark(ctx context.Context, key string) (*stopmark.Mark, error)
	// CountStop adds one to the mark's Aborted (aborted) or Dropped count
	// when the mark is still stopMessageID's.
	CountStop(ctx context.Context, key, stopMessageID string, aborted bool) error
	// StopDone clears Pending on stopMessageID's mark.
	StopDone(ctx context.Context, key, stopMessageID string) error
}

// Store is the session store as the runner uses it. Implementations:
// shared/dynamo and turntest.MemStore (satisfying it structurally, with
// the domain types of sessionstate, receipt and stopmark); both pass
// turntest.TestStore, and both are Committers (turntest.TestCommitter).
type Store interface {
	// Load reads the entry of key, its context, the receipt of messageID
	// and the key's stop mark, consistently (reads see every completed
	// Commit and Finish).
	Load(ctx context.Context, key, messageID string) (sessionstate.Snapshot, error)
	// Commit writes e, c and r (State receipt.Committed) atomically, or
	// nothing, with a Done receipt for each id in r.Collected. It succeeds
	// only if the stored entry's Version is e.Version-1 (absent when
	// e.Version is 1) and none of those messages has a receipt; otherwise
	// it returns a fault.Conflict error.
	Commit(ctx context.Context, key string, e session.Entry, c sessionstate.ModelContext, r receipt.Receipt) error
	// Progress records that the first sent messages of the reply of
	// messageID were delivered. The receipt must be Committed: a missing
	// receipt is fault.NotFound, a Done one fault.Conflict.
	Progress(ctx context.Context, key, messageID string, sent int) error
	// Finish marks the receipt of messageID Done and drops its reply text.
	// Finishing a Done receipt succeeds; a missing receipt is
	// fault.NotFound.
	Finish(ctx context.Context, key, messageID string) error
}

// entryReader is the optional Store capability behind a flow's reads of
// another session's entry: where an announce goes, the requester's send
// policy, a sub-agent's stats (a session.Store has it). Without it those
// reads find no entry.
type entryReader interface {
	Get(ctx context.Context, key string) (session.Entry, error)
}

// Mover is the optional Store capability to move a session to another key,
// which keeps a Telegram group's session when the group becomes a
// supergroup (its chat id, and so its key, changes).
type Mover interface {
	// Move writes e under to (which must have no entry), deletes the entry
	// and context of from (whose entry must still be at fromVersion) and
	// commits r, atomically. A failed condition is fault.Conflict and
	// changes nothing; e.Version must be 1.
	Move(ctx context.Context, from string, fromVersion int64, to string, e session.Entry, r receipt.Receipt) error
}

// Committer is the optional Store capability behind a turn that costs one
// write: the run's outcome rides in the commit and a /stop that arrived
// during the turn is checked by it, at no extra call.
type Committer interface {
	// CommitWith is Commit with x, all or nothing: the same conditions
	// and errors, plus stopmark.ErrPending for x.Stop. Events in x.Run the
	// store cannot fit in its atomic write may be written just before it
	// (they are idempotent, and a follower may see an event before the
	// run's terminal status, never the other way round).
	CommitWith(ctx context.Context, key string, e session.Entry, c sessionstate.ModelContext, r receipt.Receipt, x sessionstate.Extra) error
	// CommitsRunsOf reports whether CommitWith writes run outcomes where
	// rs reads and writes runs (the same table); only then does the
	// runner leave a run's outcome to the commit.
	CommitsRunsOf(rs run.Store) bool
}
