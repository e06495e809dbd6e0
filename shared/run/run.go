// Package run is the record and event log of agent runs: every run has a
// runId and a Record (running, then one terminal status), and emits Events
// on numbered streams (lifecycle, assistant, tool, compaction) that a store
// persists, so a CLI or UI can follow a run while it happens and read it
// after it ends (agent.wait: Wait).
//
// It is core: standard library and shared/fault only. The owner of a run
// (the runner) keeps a Recorder, which numbers the run's events, and
// flushes it at points it chooses through the Store port: Start with the
// first events, Append in between, Finish with the terminal status and the
// last events; or, where the owner has an atomic write of its own, with
// that (the runner writes a turn's run outcome in the turn's commit, see
// turn.Committer, and a channel turn starts its record only at its first
// tool flush). Followers read through Reader.
//
// Exactly-once on at-least-once delivery: the runId is derived from the
// inbound message (NewID), so a retried turn writes the same run; Start of
// an existing run changes none of its fields; an event is identified by
// (runId, seq), so writing it again replaces it and a replayed flush never
// duplicates; Finish sets the terminal status once. A retried attempt
// should continue the numbering after what an earlier attempt persisted
// (Store.LastSeq, then Recorder.Continue) rather than renumber from 1:
// a follower that already read seq n never reads it again, so an event
// rewritten with other content would be lost to it.
package run

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/fault"
)

// Statuses of a Record. Running is the only non-terminal one.
const (
	StatusRunning = "running"
	StatusOK      = "ok"
	StatusError   = "error"
	StatusTimeout = "timeout" // the run hit its own time limit
	StatusAborted = "aborted" // cancelled (e.g. /stop) before it ended
)

// Streams of the events a run emits.
const (
	StreamLifecycle  = "lifecycle"  // data.phase: start | end | error
	StreamAssistant  = "assistant"  // data.text: the assistant's text
	StreamTool       = "tool"       // data.phase: start | update | result; name, toolCallId
	StreamCompaction = "compaction" // data.phase: start | end
)

// Phases of lifecycle, tool and compaction events.
const (
	PhaseStart  = "start"
	PhaseEnd    = "end"
	PhaseError  = "error"
	PhaseUpdate = "update" // tool
	PhaseResult = "result" // tool
)

// Limits every Store enforces (fault.Invalid beyond them), so that one
// event always fits one stored item and a run's ids fit a key.
const (
	// MaxDataBytes bounds an event's Data. The Recorder cuts bigger
	// payloads (see Recorder.Emit); 99 events of this size still fit a
	// 4 MB DynamoDB transaction.
	MaxDataBytes = 32 << 10
	// MaxSeq is the highest sequence number (10 decimal digits, the width
	// stores may pad keys to).
	MaxSeq = 9_999_999_999
	// MaxIDBytes bounds a runId.
	MaxIDBytes = 256
)

// Limits of Reader.Events.
const (
	DefaultLimit = 200  // a limit <= 0 means this
	MaxLimit     = 1000 // a larger limit means this
)

// Usage is the token usage of a run (model.Usage's counters; run is core
// and does not import model).
type Usage struct {
	Input  int64 `json:"input,omitempty"`
	Output int64 `json:"output,omitempty"`
	Total  int64 `json:"total,omitempty"`
}

// Record is the state of one run. Times are Unix milliseconds.
type Record struct {
	RunID      string `json:"runId"`
	SessionKey string `json:"sessionKey,omitempty"`
	SessionID  string `json:"sessionId,omitempty"`
	MessageID  string `json:"messageId,omitempty"` // the inbound message that started the run
	Status     string `json:"status"`
	StartedAt  int64  `json:"startedAt"`
	EndedAt    int64  `json:"endedAt,omitempty"`
	Error      string `json:"error,omitempty"`
	Usage      Usage  `json:"usage,omitzero"`
	Model      string `json:"model,omitempty"`
	// InfraCostUSD is what the run's turn cost ZERO's infrastructure up
	// to its commit (its AWS calls and Lambda time at list prices,
	// shared/cost); 0 when not measured.
	InfraCostUSD float64 `json:"infraCostUsd,omitempty"`
	// Reply is the run's final reply, cut to MaxReplyBytes (a terminal
	// record only): what a waiting sessions_send returns.
	Reply string `json:"reply,omitempty"`
}

// MaxReplyBytes bounds Record.Reply, so a record stays one small item.
const MaxReplyBytes = 16 << 10

// Terminal reports whether status is a final status (anything but
// running).
func Terminal(status string) bool {
	switch status {
	case StatusOK, StatusError, StatusTimeout, StatusAborted:
		return true
	}
	return false
}

// Event is one numbered event of a run. Seq counts from 1 per run, without
// gaps in what one Recorder emits; TS is Unix milliseconds; Data is a JSON
// value (normally an object), nil when there is none.
type Event struct {
	RunID  string          `json:"runId"`
	Seq    int64           `json:"seq"`
	Stream string          `json:"stream"`
	TS     int64           `json:"ts"`
	Data   json.RawMessage `json:"data,omitempty"`
}

// Store persists runs: the port a run's owner writes through (the runner's
// turn engine uses it as it is). Implementations: dynamo.RunStore,
// runtest.MemStore; both pass runtest.TestStore.
//
// Writes are idempotent, so a caller retries any of them after an error
// (fault.Retryable) or a crash:
//   - an event is identified by (RunID, Seq): writing it again replaces it,
//     so a replay never stores a second copy (the last write wins);
//   - Start of an existing run succeeds and changes none of the fields the
//     record holds (StartedAt stays the first attempt's, a finished run
//     stays finished); fields it lacks are filled from rec;
//   - Finish sets the terminal status once.
//
// A Store is safe for concurrent use. A run has one writer (its turn, and
// a session's turns run one at a time); should two Finish one run, one
// wins and the other gets fault.Conflict or, with the same status, nil.
type Store interface {
	// Start records a new run (rec.Status "" or running; StartedAt > 0)
	// with its first events, atomically where the store can. Events must
	// carry rec.RunID (or none: it is implied) and distinct seqs.
	Start(ctx context.Context, rec Record, events []Event) error
	// Append stores events of runID. It does not check that the run
	// exists or is still running: that would cost a read per flush.
	Append(ctx context.Context, runID string, events []Event) error
	// Finish moves a running run to rec.Status (terminal; EndedAt > 0) and
	// stores events, the record after the events, so whoever sees the
	// terminal status can read every event. It sets Status and EndedAt,
	// and Error, Usage and Model when rec has them; StartedAt and the
	// other fields keep their stored values (filled from rec when empty).
	// A finished run with the same status: nil, and only the events are
	// (re)written; with another status: fault.Conflict. An unknown run is
	// fault.NotFound. On either error the record is unchanged (a store
	// that splits a long event list may have written its first part).
	Finish(ctx context.Context, rec Record, events []Event) error
	// Get returns the record of runID; an unknown run is fault.NotFound.
	Get(ctx context.Context, runID string) (Record, error)
	// LastSeq returns the highest Seq stored for runID, 0 when none: where
	// a retried attempt continues its numbering (Recorder.Continue).
	LastSeq(ctx context.Context, runID string) (int64, error)
}

// Outcome is a run's terminal record and its events not yet stored: what
// an owner writes with Finish, or in an atomic write of its own (the
// runner's turn commit).
type Outcome struct {
	Record Record
	Events []Event
}

// Reader reads a run's events, for followers. Reads see every write that
// returned before them.
type Reader interface {
	// Events returns the events of runID with Seq > afterSeq, in Seq
	// order, at most limit (DefaultLimit when <= 0, at most MaxLimit). An
	// unknown run has no events (nil, no error): a follower may ask before
	// the run starts. Fewer than limit means there are no more for now.
	Events(ctx context.Context, runID string, afterSeq int64, limit int) ([]Event, error)
}

// NewID returns the runId of the run that answers messageID: "run_" and 20
// hex digits of a SHA-256 of it, so a retried turn keeps its runId. An
// empty messageID (a run that no inbound message started) gets a random
// id.
func NewID(messageID string) string {
	var sum [32]byte
	if messageID == "" {
		rand.Read(sum[:])
	} else {
		sum = sha256.Sum256([]byte("zero/run\x00" + messageID))
	}
	return "run_" + hex.EncodeToString(sum[:10])
}

// CheckStart validates the record of Store.Start. Stores call it (and
// CheckEvents) before writing anything, so every store refuses the same
// input with fault.Invalid.
func (r Record) CheckStart() error {
	if err := checkID(r.RunID, "start run"); err != nil {
		return err
	}
	if r.Status != "" && r.Status != StatusRunning {
		return fault.New(fault.Invalid, "start run %s: status %q, want %q", r.RunID, r.Status, StatusRunning)
	}
	if r.StartedAt <= 0 {
		return fault.New(fault.Invalid, "start run %s: startedAt is required", r.RunID)
	}
	return nil
}

// CheckFinish validates the record of Store.Finish.
func (r Record) CheckFinish() error {
	if err := checkID(r.RunID, "finish run"); err != nil {
		return err
	}
	if !Terminal(r.Status) {
		return fault.New(fault.Invalid, "finish run %s: status %q is not terminal", r.RunID, r.Status)
	}
	if r.EndedAt <= 0 {
		return fault.New(fault.Invalid, "finish run %s: endedAt is required", r.RunID)
	}
	return nil
}

// CheckEvents validates events written to runID: each carries runID (or
// no RunID), a Seq in 1..MaxSeq not repeated in the call, a Stream, a TS
// >= 0 and Data that is empty or JSON of at most MaxDataBytes. Text is
// UTF-8 (JSON's encoding, and all a DynamoDB string holds).
func CheckEvents(runID string, events []Event) error {
	if err := checkID(runID, "write run events"); err != nil {
		return err
	}
	seen := make(map[int64]bool, len(events))
	for _, e := range events {
		switch {
		case e.RunID != "" && e.RunID != runID:
			return fault.New(fault.Invalid, "write events of run %s: event %d is of run %s", runID, e.Seq, e.RunID)
		case e.Seq < 1 || e.Seq > MaxSeq:
			return fault.New(fault.Invalid, "write events of run %s: seq %d out of 1..%d", runID, e.Seq, int64(MaxSeq))
		case seen[e.Seq]:
			return fault.New(fault.Invalid, "write events of run %s: seq %d twice in one write", runID, e.Seq)
		case e.Stream == "" || !utf8.ValidString(e.Stream):
			return fault.New(fault.Invalid, "write events of run %s: event %d has no stream, or not UTF-8", runID, e.Seq)
		case e.TS < 0:
			return fault.New(fault.Invalid, "write events of run %s: event %d has a negative ts", runID, e.Seq)
		case len(e.Data) > MaxDataBytes:
			return fault.New(fault.Invalid, "write events of run %s: event %d has %d bytes of data, over %d", runID, e.Seq, len(e.Data), MaxDataBytes)
		case len(e.Data) > 0 && (!json.Valid(e.Data) || !utf8.Valid(e.Data)):
			return fault.New(fault.Invalid, "write events of run %s: event %d data is not JSON in UTF-8", runID, e.Seq)
		}
		seen[e.Seq] = true
	}
	return nil
}

// CheckID validates a runId passed to Get or a Reader method.
func CheckID(runID string) error { return checkID(runID, "read run") }

func checkID(runID, what string) error {
	switch {
	case runID == "":
		return fault.New(fault.Invalid, "%s: run id is required", what)
	case len(runID) > MaxIDBytes:
		return fault.New(fault.Invalid, "%s: run id of %d bytes, over %d", what, len(runID), MaxIDBytes)
	case !utf8.ValidString(runID):
		return fault.New(fault.Invalid, "%s: run id is not UTF-8", what)
	}
	return nil
}

// ClampLimit is the number of events Reader.Events returns at most for
// the limit a caller asked for.
func ClampLimit(limit int) int {
	if limit <= 0 {
		return DefaultLimit
	}
	return min(limit, MaxLimit)
}
