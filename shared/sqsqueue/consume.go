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
	var resp events.SQSEventResponse
	hctx := ctx
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		hctx, cancel = context.WithDeadline(ctx, deadline.Add(-Reserve))
		defer cancel()
	}
	for i, rec := range ev.Records {
		attempt := receiveCount(rec)
		err := hctx.Err()
		if err == nil {
			err = handle(hctx, rec, attempt, h)
		}
		if err == nil {
			continue
		}
		rest := ev.Records[i:]
		slog.WarnContext(ctx, "sqs record failed; it and the rest of the batch stay queued for redelivery",
			"messageId", rec.MessageId, "group", rec.Attributes["MessageGroupId"], "receiveCount", attempt,
			"reported", len(rest), "err", err)
		for _, r := range rest {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
		}
		return resp
	}
	return resp
}

// handle decodes rec and runs h on it, turning a panic into an error.
func handle(ctx context.Context, rec events.SQSMessage, attempt int, h Handler) (err error) {
	m, err := inbound.Decode([]byte(rec.Body))
	if err != nil {
		slog.ErrorContext(ctx, "undecodable sqs message; it moves to the dead-letter queue after maxReceiveCount",
			"messageId", rec.MessageId, "receiveCount", attempt, "bodyBytes", len(rec.Body), "err", err)
		return fmt.Errorf("decode message %s: %w", rec.MessageId, err)
	}
	defer func() {
		if p := recover(); p != nil {
			slog.ErrorContext(ctx, "handler panicked", "messageId", rec.MessageId, "receiveCount", attempt,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = fmt.Errorf("handler panicked on message %s: %v", rec.MessageId, p)
		}
	}()
	return h(ctx, m, attempt)
}

// receiveCount is the record's ApproximateReceiveCount, 1 when absent.
func receiveCount(rec events.SQSMessage) int {
	n, err := strconv.Atoi(rec.Attributes["ApproximateReceiveCount"])
	if err != nil || n < 1 {
		return 1
	}
	return n
}
