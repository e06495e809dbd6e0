package sqsqueue

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/zero-gateway/zero/shared/inbound"
)

// Handler processes one inbound message. attempt is the delivery count (1
// on first delivery). nil means done: the message is deleted. An error
// means retry: the message and every later one of its batch are left on
// the queue for redelivery.
type Handler func(ctx context.Context, m inbound.Message, attempt int) error

// Reserve is the time Consume keeps back before the Lambda deadline to
// report the batch's outcome.
const Reserve = 2 * time.Second

// Consume runs h over the records of one Lambda SQS event and returns the
// partial batch response (the function needs ReportBatchItemFailures).
//
// FIFO contract: records are handled one at a time in batch order. At the
// first failure Consume stops and reports that record and every later
// record, whatever its message group, as BatchItemFailures; h is not called
// for them. Unreported records count as done and Lambda deletes them. (On a
// standard queue the same rule is merely conservative.)
//
// A record fails when its body does not decode as an inbound.Message (a
// poison message: after the queue's maxReceiveCount it moves to the
// dead-letter queue), when h returns an error, when h panics (recovered;
// the function keeps running), or when ctx is done before it starts.
//
// Under a deadline (the Lambda's), Reserve is kept back: a record is not
// started with less than Reserve left, and h runs with a deadline Reserve
// before ctx's, so a slow record fails cleanly and the response still
// reaches Lambda instead of the whole batch timing out.
// Failures are logged with slog.Default: message id, receive count, body
// length and error, never the body (it holds user text).
func Consume(ctx context.Context, ev events.SQSEvent, h Handler) events.SQSEventResponse {
	return ConsumeGroups(ctx, ev, 1, func(ctx context.Context, msgs []inbound.Message, attempts []int) (int, error) {
		if err := h(ctx, msgs[0], attempts[0]); err != nil {
			return 0, err
		}
		return 1, nil
	})
}

// GroupHandler processes a run of consecutive messages of one message
// group (one session), in order. It returns how many of them, from the
// first, are fully handled; with an error, the rest of the run (and of
// the batch) is retried.
type GroupHandler func(ctx context.Context, msgs []inbound.Message, attempts []int) (done int, err error)

// ConsumeGroups is Consume for handlers that take the consecutive records
// of one message group together, at most maxRun at a time: the messages
// that waited in a session's queue group while it was busy arrive in one
// batch, and a handler can answer them as one turn (queue mode collect).
// The FIFO contract is Consume's: at the first failure, that record and
// every later one are reported. A record that does not decode ends the run
// before it and fails alone.
func ConsumeGroups(ctx context.Context, ev events.SQSEvent, maxRun int, h GroupHandler) events.SQSEventResponse {
	var resp events.SQSEventResponse
	hctx := ctx
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		hctx, cancel = context.WithDeadline(ctx, deadline.Add(-Reserve))
		defer cancel()
	}
	fail := func(i int, err error) events.SQSEventResponse {
		rest := ev.Records[i:]
		rec := rest[0]
		slog.WarnContext(ctx, "sqs record failed; it and the rest of the batch stay queued for redelivery",
			"messageId", rec.MessageId, "group", rec.Attributes["MessageGroupId"], "receiveCount", receiveCount(rec),
			"reported", len(rest), "err", err)
		for _, r := range rest {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
		}
		return resp
	}
	for i := 0; i < len(ev.Records); {
		if err := hctx.Err(); err != nil {
			return fail(i, err)
		}
		msgs, attempts, err := run(hctx, ev.Records[i:], max(maxRun, 1))
		if err != nil {
			return fail(i, err)
		}
		done, err := call(hctx, ev.Records[i], msgs, attempts, h)
		if err != nil || done < len(msgs) {
			if err == nil {
				err = fmt.Errorf("handler finished %d of %d messages", done, len(msgs))
			}
			return fail(i+max(done, 0), err)
		}
		i += len(msgs)
	}
	return resp
}

// run decodes the records of the message group of recs[0] that follow it
// in the batch, at most maxRun. Only the first record's decode failure is
// an error: a later undecodable record ends the run before it.
func run(ctx context.Context, recs []events.SQSMessage, maxRun int) ([]inbound.Message, []int, error) {
	group := recs[0].Attributes["MessageGroupId"]
	var msgs []inbound.Message
	var attempts []int
	for j, rec := range recs {
		if j >= maxRun || (j > 0 && rec.Attributes["MessageGroupId"] != group) {
			break
		}
		m, err := inbound.Decode([]byte(rec.Body))
		if err != nil {
			if j > 0 {
				break
			}
			slog.ErrorContext(ctx, "undecodable sqs message; it moves to the dead-letter queue after maxReceiveCount",
				"messageId", rec.MessageId, "receiveCount", receiveCount(rec), "bodyBytes", len(rec.Body), "err", err)
			return nil, nil, fmt.Errorf("decode message %s: %w", rec.MessageId, err)
		}
		msgs = append(msgs, m)
		attempts = append(attempts, receiveCount(rec))
	}
	return msgs, attempts, nil
}

// call runs h, turning a panic into an error.
func call(ctx context.Context, first events.SQSMessage, msgs []inbound.Message, attempts []int, h GroupHandler) (done int, err error) {
	defer func() {
		if p := recover(); p != nil {
			slog.ErrorContext(ctx, "handler panicked", "messageId", first.MessageId, "receiveCount", attempts[0],
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			done, err = 0, fmt.Errorf("handler panicked on message %s: %v", first.MessageId, p)
		}
	}()
	return h(ctx, msgs, attempts)
}

// receiveCount is the record's ApproximateReceiveCount, 1 when absent.
func receiveCount(rec events.SQSMessage) int {
	n, err := strconv.Atoi(rec.Attributes["ApproximateReceiveCount"])
	if err != nil || n < 1 {
		return 1
	}
	return n
}
