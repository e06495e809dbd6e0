// Package ingest is the one way into ZERO's work queue. Every ingress — a
// channel's webhook, the gateway API's agent and chat.send, and later
// generic hooks, cron, sub-agents and sessions_send — hands its message to
// a Door, which applies the same policy to all of them:
//
//  1. addressing: a message that arrives on a route (a chat on a channel)
//     gets its agent from agents' bindings and its session key from
//     session.dmScope, identityLinks and session.scope; a message whose
//     caller already named the session keeps it;
//  2. admission: a peer on a channel must be listed in
//     channels.<channel>.allowFrom (the sender, or for a group or channel
//     chat the chat itself, or "*"); see Origin for who is exempt;
//  3. the queue-mode decision: a /stop, or any message when the queue
//     mode is interrupt, writes the session's stop mark before it is
//     queued, because the run it stops holds the session's queue group
//     (a command addressed "/stop@name" counts only when it is this
//     bot's: see addressed); a message when the mode is steer is recorded
//     for the running turn to take in (steer.go). The mode is the
//     session's own (/queue) where the store reads it, else the config's;
//  4. the enqueue on the session's FIFO group (inbound.Message.QueueGroup),
//     deduplicated on the message id (inbound.Message.QueueDedup).
//
// The result is a typed Outcome (Queued, Refused or Ignored) that each
// adapter maps to its own answer: an HTTP status for a webhook, a result
// or an error for the API.
//
// Owner checks: nothing at the door is owner-only. What a message may do
// once admitted (owner-only commands such as /send) is the turn's
// business: the runner checks channels.<channel>.owners against the
// message's From when it runs the command.
//
// ingest is core: it knows no channel by name, imports no AWS or Lambda
// package, no adapter and not the turn engine (which queues through a Door
// by its own port, turn.Door); its dependencies are the small interfaces
// below, implemented by the adapters (sqsqueue.Queue, dynamo.Store,
// config.Cache).
package ingest

import (
	"context"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/stopmark"
)

// Settings supplies the configuration in force (config.Cache is one).
type Settings interface {
	Current(ctx context.Context) (*config.Config, error)
}

// Queue puts a message on the work queue (sqsqueue.Queue is one). A nil
// error means the message is durably queued on the FIFO group of its
// session (inbound.Message.QueueGroup); the queue drops a message whose
// dedup id (inbound.Message.QueueDedup) it saw within its window.
type Queue interface {
	Enqueue(ctx context.Context, m inbound.Message) error
}

// StopMarker writes a session's stop mark (dynamo.Store is one). It
// replaces any earlier mark of the key, so writing the same mark twice is
// harmless.
type StopMarker interface {
	MarkStop(ctx context.Context, key string, s stopmark.Mark) error
}

// Deps is what a Door needs.
type Deps struct {
	// Settings: nil means config.Default(), which admits nobody on any
	// channel (operators are still let in).
	Settings Settings
	// Queue is required.
	Queue Queue
	// Stops: nil writes no marks, so a /stop waits its turn in the queue
	// like any message and queue mode interrupt acts like collect. Where
	// it also records steer messages (SteerRecorder) and reads sessions'
	// own queue modes (SessionModes), the door does both (steer.go).
	Stops StopMarker
	// Now: nil means time.Now. It stamps stop marks.
	Now func() time.Time
}

// Door applies the ingress policy to a message and queues it (see the
// package doc). It holds no state of its own and is safe for concurrent
// use.
type Door struct {
	settings Settings
	queue    Queue
	stops    StopMarker
	now      func() time.Time
}

// NewDoor returns a Door over d. It panics if d.Queue is nil: that is a
// wiring bug, not a condition to handle per message.
func NewDoor(d Deps) *Door {
	if d.Queue == nil {
		panic("ingest.NewDoor: Queue is required")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Door{settings: d.Settings, queue: d.Queue, stops: d.Stops, now: d.Now}
}

// Accept addresses, admits and queues the message of r, writing the
// session's stop mark first when the message stops the running turn.
//
// Outcomes: Queued once the message is durably queued; Refused when the
// sender is not admitted; Ignored when there is nothing to run (blank
// text). Refused and Ignored write and queue nothing.
//
// Errors (nothing is queued; the caller should have the event delivered
// again, e.g. answer a webhook with a 5xx): the config cannot be read (the
// Settings error, code kept); the addressed message is not valid
// (fault.Invalid: a bug in the caller's mapping or bad input); the
// session's own queue mode could not be read, or the stop mark, the steer
// record or the enqueue failed (their errors, codes kept).
//
// Idempotent: accepting the same request again (a redelivery) rewrites the
// same stop mark and enqueues the same message id, which the queue
// deduplicates for its window (5 minutes on SQS FIFO) and the runner's
// message record for 30 days. The stop mark is written before the
// enqueue, so a failed enqueue followed by a redelivery still marks once
// more and queues once.
func (d *Door) Accept(ctx context.Context, r Request) (Outcome, error) {
	cfg, err := d.config(ctx)
	if err != nil {
		return nil, err
	}
	m, err := address(cfg, r)
	if err != nil {
		return nil, err
	}
	m = addressed(cfg, m)
	if out, done := screen(cfg, r.Origin, m); done {
		return out, nil
	}
	mode, err := d.queueMode(ctx, cfg, m)
	if err != nil {
		return nil, err
	}
	stops := stopsRun(m, mode)
	if stops && d.stops != nil {
		mark := stopmark.Mark{MessageID: m.ID, At: d.now().UnixMilli(), Pending: true}
		if err := d.stops.MarkStop(ctx, m.SessionKey, mark); err != nil {
			return nil, err
		}
	}
	if err := d.recordSteer(ctx, m, mode); err != nil {
		return nil, err
	}
	if err := d.queue.Enqueue(ctx, m); err != nil {
		return nil, err
	}
	return queued(m, mode, stops && d.stops != nil), nil
}

// config is the configuration in force; config.Default() without Settings.
func (d *Door) config(ctx context.Context) (*config.Config, error) {
	if d.settings == nil {
		return config.Default(), nil
	}
	return d.settings.Current(ctx)
}
