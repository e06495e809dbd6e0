// Package sessionstate is what the runner's session store keeps and reads
// for a turn besides the session entry: the model context stored beside
// the entry, the Snapshot a turn loads (entry, context, the message's
// receipt, the session's stop mark) and the Extra a turn's commit writes
// or checks. The engine (shared/turn) declares the store port that takes
// them; shared/dynamo implements it with these types, without importing
// the engine.
//
// It is domain: the standard library and the domain packages model, run,
// session, receipt and stopmark.
package sessionstate

import (
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/stopmark"
)

// ModelContext is the model context the runner keeps beside the entry, so
// a turn reads it in the same call as the entry instead of re-reading the
// whole transcript. It is a cache of the transcript: when it is missing
// (or belongs to another sessionId, or its base object is gone) the runner
// rebuilds it from the transcript.
//
// A long context is stored as a contextstore.Split: Base names an
// immutable object holding its first BaseLen messages, and Messages are
// the ones after it (all of them when Base is ""). Stores keep the three
// fields as they are; the engine folds and expands them.
type ModelContext struct {
	SessionID string          `json:"sessionId"`
	Base      string          `json:"base,omitempty"`
	BaseLen   int             `json:"baseLen,omitempty"`
	Messages  []model.Message `json:"messages"`
}

// Snapshot is what the store's Load returns for a session key and a
// message id, read consistently.
type Snapshot struct {
	Entry   *session.Entry   // nil: the key has no session yet
	Context *ModelContext    // nil: no stored context
	Receipt *receipt.Receipt // nil: the message was never committed
	Stop    *stopmark.Mark   // nil: no /stop was ever sent for the key
}

// Extra is what a turn's commit writes or checks besides the entry, the
// context and the receipt (the engine's Committer.CommitWith).
type Extra struct {
	// Run, when set, is the turn's run outcome: its terminal record and
	// the events not yet stored. The record is written whether or not the
	// run has a stored record yet: fields the stored record has keep
	// their values except Status, EndedAt, Error, Usage and Model (as
	// run.Store.Finish), and no stored status is required, since the
	// receipt's condition already makes the commit happen once.
	Run *run.Outcome
	// Stop, when set, makes the commit fail with stopmark.ErrPending,
	// writing nothing, if the session's stop mark is active
	// (stopmark.Mark.Active) for Stop.MessageID at Stop.NowMS: a /stop
	// arrived after the turn loaded its snapshot.
	Stop *stopmark.Check
}
