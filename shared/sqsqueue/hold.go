package sqsqueue

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// Held is an error a GroupHandler returns to put a run of records back on
// the queue for a while without failing them (any error with a
// HoldFor() time.Duration method in its chain does the same, so the
// engine declares its own without importing this adapter): queue mode collect's
// debounce (docs/queues.md) holds a session's records until its chat has
// been quiet, so the messages that arrive meanwhile queue up behind them
// in the message group and come back together in one batch. The Consumer
// reports the held records (and the later ones of their group in the
// batch) as batch item failures, as for any failure, but makes them
// visible again after For, rounded up to whole seconds (SQS's unit), and
// neither logs them as failed nor tells Failed. Every hold is one more
// receive of the record: the handler must bound its holds well below the
// queue's maxReceiveCount.
type Held struct {
	For time.Duration
}

// HoldFor is how long the records stay back.
func (h *Held) HoldFor() time.Duration { return h.For }

func (h *Held) Error() string {
	return fmt.Sprintf("held for %s (the chat is not quiet yet)", h.For)
}

// holder is an error that holds its records (see Held).
type holder interface{ HoldFor() time.Duration }

// heldFor is err's hold, rounded up to whole seconds; ok false when err
// holds nothing.
func heldFor(err error) (time.Duration, bool) {
	var h holder
	if !errors.As(err, &h) {
		return 0, false
	}
	return max(time.Second, (h.HoldFor()+time.Second-1)/time.Second*time.Second), true
}

// sentTimestamp is when the record reached the queue (its SentTimestamp
// attribute, epoch ms); 0 when it has none: what inbound.Message.QueuedAt
// carries to debounce.
func sentTimestamp(rec events.SQSMessage) int64 {
	ms, err := strconv.ParseInt(rec.Attributes["SentTimestamp"], 10, 64)
	if err != nil || ms < 0 {
		return 0
	}
	return ms
}
