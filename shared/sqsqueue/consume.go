package sqsqueue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/zero-gateway/zero/shared/inbound"
)

// Handler processes one inbound message. attempt is the delivery count (1
// on first delivery). nil means done: the message is deleted. An error
// means retry: the message and the later ones of its message group are
// left on the queue for redelivery.
type Handler func(ctx context.Context, m inbound.Message, attempt int) error

// GroupHandler processes a run of consecutive messages of one message
// group (one session), in order. It returns how many of them, from the
// first, are fully handled; with an error, the rest of the run (and of
// its group in the batch) is retried.
type GroupHandler func(ctx context.Context, msgs []inbound.Message, attempts []int) (done int, err error)

// Reserve is the time a Consumer keeps back before the Lambda deadline to
// settle the batch (visibility changes, the response).
const Reserve = 2 * time.Second

// Defaults of a Consumer's zero fields.
const (
	DefaultConcurrency = 10 // an SQS batch holds at most 10 records
	DefaultMaxRun      = 10
)

// ErrNoBudget fails a record that was not started because less than the
// Consumer's MinBudget was left before the deadline: it is returned to the
// queue at once, for an invocation with time to run it.
var ErrNoBudget = errors.New("not started: too little time left in this invocation")

// Delayer makes received messages visible again after d (the work queue's
// ChangeMessageVisibility; *Queue implements it). receipts are the
// records' receipt handles.
type Delayer interface {
	Delay(ctx context.Context, receipts []string, d time.Duration) error
}

// Deleter deletes received messages (the work queue's DeleteMessageBatch;
// *Queue implements it). receipts are the records' receipt handles.
// Deleting a message that is already gone must not be an error.
type Deleter interface {
	Delete(ctx context.Context, receipts []string) error
}

// Consumer runs the records of one Lambda SQS event (the runner's FIFO
// work queue) through Handler, following watermill's contract: nil is
// done (the record is deleted), an error is retry.
//
// FIFO contract: records are grouped by MessageGroupId. Groups run
// concurrently, at most Concurrency at once; inside a group, records run
// strictly in batch order, up to MaxRun consecutive records per Handler
// call (queue mode collect answers them as one turn). At a group's first
// failure that record and every later record of the same group are
// reported in BatchItemFailures and Handler is not called for them; other
// groups are unaffected. Order only matters inside a group, so this keeps
// SQS FIFO's guarantee without holding back other sessions (stricter than
// AWS's generic advice of failing the whole rest of the batch).
//
// A record fails when its body does not decode as an inbound.Message (a
// poison message), when Handler returns an error or panics (recovered), or
// when less than MinBudget (plus Reserve) is left before ctx's deadline
// (ErrNoBudget: it is not started). Handler runs with a deadline Reserve
// before ctx's, so the response always reaches Lambda.
//
// Retries: a failed group's records are made visible again after
// Backoff(receive count of its first failed record) through Delayer,
// instead of after the queue's visibility timeout; records not started for
// lack of budget, and records on their last receive (so they move to the
// dead-letter queue promptly), right away. Failed, when set, is told about
// each failed group before its records are released.
//
// Per-record completion: the event source mapping deletes a batch's
// successful records only when the invocation returns, and until then
// each keeps its message group in flight (FIFO delivers nothing more of
// it). So when Deleter is set, a group that finishes while another group
// of the batch is still running deletes its done records itself, with one
// Delete (DeleteMessageBatch) on the queue they came from, and its session's
// next message is delivered at once instead of after the batch's slowest
// turn. The last group to finish leaves its records to the mapping, which
// deletes them a moment later anyway: a batch of one session costs no
// extra call. Only done records are deleted, never a failed one or one
// after a failure; the response reports the failed ones only. A delete
// that fails is logged and changes nothing else: the record was not
// reported, so the mapping deletes it when the invocation returns, or (the
// invocation dies first) it is delivered again and the handler finds it
// done by its idempotency record. A crash after the delete loses nothing:
// the record's work was done before it.
//
// Failures are logged without the body (it holds user text).
type Consumer struct {
	Handler     GroupHandler
	Concurrency int           // groups run at once; 0: DefaultConcurrency
	MaxRun      int           // most consecutive records of a group per Handler call; 0: DefaultMaxRun
	MinBudget   time.Duration // a record is not started with less time left
	MaxReceives int           // the queue's maxReceiveCount; 0: unknown, no record is treated as last
	Backoff     Backoff
	Delayer     Delayer // nil: failed records wait for the queue's visibility timeout
	// Delayers, for a function fed by several queues (the runner's lanes),
	// maps a queue's name to the Delayer of that queue: a failed record is
	// delayed on the queue it came from, named by the last field of its
	// EventSourceARN (arn:aws:sqs:<region>:<account>:<name>; see
	// QueueName). A record whose queue is not in it uses Delayer.
	Delayers map[string]Delayer
	// Deleter and Deleters, like Delayer and Delayers, delete a finished
	// group's records on the queue they came from (see Per-record
	// completion above). With neither, every record is left to the
	// event source mapping.
	Deleter  Deleter
	Deleters map[string]Deleter
	// Failed is told about each group's failed run: its decodable
	// records from the failed one on, in order, with their receive
	// counts; last reports that the first of them was on its last
	// receive (the redrive policy moves it to the dead-letter queue
	// instead of delivering it again).
	Failed func(ctx context.Context, msgs []inbound.Message, attempts []int, last bool, err error)
	Log    *slog.Logger
}

// Backoff is the delay before a failed record is delivered again:
// Base × 2^(receives−1), at most Max. A zero Base means no delay.
type Backoff struct {
	Base, Max time.Duration
}

// After returns the delay after the receives-th failed delivery.
func (b Backoff) After(receives int) time.Duration {
	if b.Base <= 0 {
		return 0
	}
	d := b.Base
	for i := 1; i < receives && (b.Max <= 0 || d < b.Max); i++ {
		d *= 2
	}
	if b.Max > 0 && d > b.Max {
		d = b.Max
	}
	return d
}

// Consume runs h over ev one record at a time per group (no collecting);
// see Consumer.
func Consume(ctx context.Context, ev events.SQSEvent, h Handler) events.SQSEventResponse {
	c := &Consumer{MaxRun: 1, Handler: func(ctx context.Context, msgs []inbound.Message, attempts []int) (int, error) {
		if err := h(ctx, msgs[0], attempts[0]); err != nil {
			return 0, err
		}
		return 1, nil
	}}
	return c.Consume(ctx, ev)
}

// groupOutcome is how one group's records ended: failed from index
// failedAt on (len(recs) when all were done).
type groupOutcome struct {
	recs     []events.SQSMessage
	failedAt int
	err      error
}

// Consume handles the batch and returns the partial batch response (the
// function needs ReportBatchItemFailures). Safe for concurrent use.
func (c *Consumer) Consume(ctx context.Context, ev events.SQSEvent) events.SQSEventResponse {
	hctx := ctx
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		hctx, cancel = context.WithDeadline(ctx, deadline.Add(-Reserve))
		defer cancel()
	}
	groups := groupRecords(ev.Records)
	outcomes := make([]groupOutcome, len(groups))
	limit := c.Concurrency
	if limit <= 0 {
		limit = DefaultConcurrency
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	var running atomic.Int64 // groups not finished yet
	running.Store(int64(len(groups)))
	for i, recs := range groups {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			outcomes[i] = c.runGroup(hctx, recs)
			if running.Add(-1) > 0 {
				c.complete(hctx, recs[:outcomes[i].failedAt])
			}
		}()
	}
	wg.Wait()
	return c.settle(ctx, ev.Records, outcomes)
}

// groupRecords splits records by MessageGroupId, keeping batch order
// inside each group and the order of first appearance between groups.
func groupRecords(recs []events.SQSMessage) [][]events.SQSMessage {
	index := map[string]int{}
	var groups [][]events.SQSMessage
	for _, r := range recs {
		g := r.Attributes["MessageGroupId"]
		i, ok := index[g]
		if !ok {
			i = len(groups)
			index[g] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	return groups
}

// runGroup runs one group's records in order until the first failure.
func (c *Consumer) runGroup(ctx context.Context, recs []events.SQSMessage) groupOutcome {
	maxRun := c.MaxRun
	if maxRun <= 0 {
		maxRun = DefaultMaxRun
	}
	for i := 0; i < len(recs); {
		if err := c.budget(ctx); err != nil {
			return groupOutcome{recs: recs, failedAt: i, err: err}
		}
		msgs, attempts, err := c.decodeRun(ctx, recs[i:], maxRun)
		if err != nil {
			return groupOutcome{recs: recs, failedAt: i, err: err}
		}
		done, err := c.call(ctx, recs[i], msgs, attempts)
		if err != nil || done < len(msgs) {
			if err == nil {
				err = fmt.Errorf("handler finished %d of %d messages", done, len(msgs))
			}
			return groupOutcome{recs: recs, failedAt: i + min(max(done, 0), len(msgs)), err: err}
		}
		i += len(msgs)
	}
	return groupOutcome{recs: recs, failedAt: len(recs)}
}

// budget fails when ctx is done or has less than MinBudget left.
func (c *Consumer) budget(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrNoBudget, err)
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < c.MinBudget {
		return fmt.Errorf("%w (%s left, %s needed)", ErrNoBudget, time.Until(deadline).Round(time.Millisecond), c.MinBudget)
	}
	return nil
}

// decodeRun decodes recs[0] and the records that follow it, at most
// maxRun (they are all of one group). Only the first record's decode
// failure is an error: a later undecodable record ends the run before it.
func (c *Consumer) decodeRun(ctx context.Context, recs []events.SQSMessage, maxRun int) ([]inbound.Message, []int, error) {
	var msgs []inbound.Message
	var attempts []int
	for j, rec := range recs {
		if j >= maxRun {
			break
		}
		m, err := inbound.Decode([]byte(rec.Body))
		if err != nil {
			if j > 0 {
				break
			}
			c.log().ErrorContext(ctx, "undecodable sqs message; it moves to the dead-letter queue after maxReceiveCount",
				"messageId", rec.MessageId, "receiveCount", receiveCount(rec), "bodyBytes", len(rec.Body), "err", err)
			return nil, nil, fmt.Errorf("decode message %s: %w", rec.MessageId, err)
		}
		if m.QueuedAt == 0 {
			m.QueuedAt = sentTimestamp(rec)
		}
		msgs = append(msgs, m)
		attempts = append(attempts, receiveCount(rec))
	}
	return msgs, attempts, nil
}

// call runs the handler, turning a panic into an error.
func (c *Consumer) call(ctx context.Context, first events.SQSMessage, msgs []inbound.Message, attempts []int) (done int, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.log().ErrorContext(ctx, "handler panicked", "messageId", first.MessageId, "receiveCount", attempts[0],
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			done, err = 0, fmt.Errorf("handler panicked on message %s: %v", first.MessageId, p)
		}
	}()
	return c.Handler(ctx, msgs, attempts)
}

// settle reports each group's failed records, in batch order, after
// telling Failed and scheduling their next delivery.
func (c *Consumer) settle(ctx context.Context, all []events.SQSMessage, outcomes []groupOutcome) events.SQSEventResponse {
	failed := map[string]bool{}
	for _, o := range outcomes {
		if o.failedAt >= len(o.recs) {
			continue
		}
		rest := o.recs[o.failedAt:]
		first := rest[0]
		if hold, ok := heldFor(o.err); ok {
			c.log().InfoContext(ctx, "sqs records held until the chat is quiet", "messageId", first.MessageId,
				"group", first.Attributes["MessageGroupId"], "records", len(rest), "for", hold.String())
			c.release(ctx, rest, hold)
			for _, r := range rest {
				failed[r.MessageId] = true
			}
			continue
		}
		last := c.MaxReceives > 0 && receiveCount(first) >= c.MaxReceives
		delay := c.Backoff.After(receiveCount(first))
		if last || errors.Is(o.err, ErrNoBudget) {
			delay = 0
		}
		c.log().WarnContext(ctx, "sqs record failed; it and the rest of its session's records in the batch stay queued",
			"messageId", first.MessageId, "group", first.Attributes["MessageGroupId"], "receiveCount", receiveCount(first),
			"reported", len(rest), "retryAfter", delay.String(), "last", last, "err", o.err)
		if c.Failed != nil && !errors.Is(o.err, ErrNoBudget) {
			c.report(ctx, rest, last, o.err)
		}
		c.release(ctx, rest, delay)
		for _, r := range rest {
			failed[r.MessageId] = true
		}
	}
	var resp events.SQSEventResponse
	for _, r := range all {
		if failed[r.MessageId] {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
		}
	}
	return resp
}

// report tells Failed about a group's failed records that decode.
func (c *Consumer) report(ctx context.Context, rest []events.SQSMessage, last bool, err error) {
	var msgs []inbound.Message
	var attempts []int
	for _, r := range rest {
		m, derr := inbound.Decode([]byte(r.Body))
		if derr != nil {
			break
		}
		msgs = append(msgs, m)
		attempts = append(attempts, receiveCount(r))
	}
	if len(msgs) > 0 {
		c.Failed(ctx, msgs, attempts, last, err)
	}
}

// release schedules the records' next delivery, each on the queue it
// came from (see Consumer.Delayers). A failure is only logged: the records
// then come back after the queue's visibility timeout.
func (c *Consumer) release(ctx context.Context, recs []events.SQSMessage, d time.Duration) {
	for _, q := range byQueue(recs, func(name string) bool { _, ok := c.Delayers[name]; return ok }) {
		delayer := c.Delayer
		if q.name != "" {
			delayer = c.Delayers[q.name]
		}
		if delayer == nil {
			continue
		}
		if err := delayer.Delay(ctx, q.receipts, d); err != nil {
			c.log().ErrorContext(ctx, "could not schedule the retry; the records return after the queue's visibility timeout",
				"records", len(q.receipts), "queue", q.name, "err", err)
		}
	}
}

// complete deletes a finished group's done records, each on the queue it
// came from (see Consumer.Deleters), so the group's next message is
// delivered before the invocation returns. A failure is only logged: the
// records are not reported, so the event source mapping deletes them
// when the invocation returns.
func (c *Consumer) complete(ctx context.Context, done []events.SQSMessage) {
	for _, q := range byQueue(done, func(name string) bool { _, ok := c.Deleters[name]; return ok }) {
		deleter := c.Deleter
		if q.name != "" {
			deleter = c.Deleters[q.name]
		}
		if deleter == nil {
			continue
		}
		if err := deleter.Delete(ctx, q.receipts); err != nil {
			c.log().WarnContext(ctx, "could not delete finished records early; the event source mapping deletes them when the invocation returns",
				"records", len(q.receipts), "queue", q.name, "group", done[0].Attributes["MessageGroupId"], "err", err)
		}
	}
}

// queueReceipts are the receipt handles of one queue's records.
type queueReceipts struct {
	name     string // "": a queue known only as the default
	receipts []string
}

// byQueue splits the receipt handles of recs (those that have one) by the
// queue each record came from: its EventSourceARN's name when known
// reports it, else "" (the default queue). Queues come in first-seen
// order, receipts in record order, for stable calls.
func byQueue(recs []events.SQSMessage, known func(name string) bool) []queueReceipts {
	var out []queueReceipts
	index := map[string]int{}
	for _, r := range recs {
		if r.ReceiptHandle == "" {
			continue
		}
		name := QueueName(r.EventSourceARN)
		if !known(name) {
			name = ""
		}
		i, seen := index[name]
		if !seen {
			i = len(out)
			index[name] = i
			out = append(out, queueReceipts{name: name})
		}
		out[i].receipts = append(out[i].receipts, r.ReceiptHandle)
	}
	return out
}

// QueueName returns the queue's name from its ARN
// (arn:aws:sqs:<region>:<account>:<name>) or its URL
// (https://sqs.<region>.amazonaws.com/<account>/<name>, or an emulator's
// http://host/<account>/<name>): the part after the last ':' or '/'.
func QueueName(arnOrURL string) string {
	return arnOrURL[strings.LastIndexAny(arnOrURL, ":/")+1:]
}

func (c *Consumer) log() *slog.Logger {
	if c.Log == nil {
		return slog.Default()
	}
	return c.Log
}

// receiveCount is the record's ApproximateReceiveCount, 1 when absent.
func receiveCount(rec events.SQSMessage) int {
	n, err := strconv.Atoi(rec.Attributes["ApproximateReceiveCount"])
	if err != nil || n < 1 {
		return 1
	}
	return n
}
