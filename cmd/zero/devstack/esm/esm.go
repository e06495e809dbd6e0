// Package esm emulates a Lambda SQS event source mapping for the local
// stack: pollers long-poll the queue, invoke the function with an
// events.SQSEvent and delete what succeeded (see Mapping).
package esm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/zero-gateway/zero/cmd/zero/devstack/provision"
	"github.com/zero-gateway/zero/cmd/zero/devstack/rie"
)

// Stats counts what an event source mapping did. Batches counts
// invocations; Deleted the delete entries the queue accepted after them
// (a message the function had deleted itself counts when the queue
// accepts its stale receipt handle again, as moto does); Gone the ones it
// refused because the message was already gone (ReceiptHandleIsInvalid,
// MessageNotInflight: the function deleted it); ItemFailures the messages
// the function reported in batchItemFailures; FailedBatches the
// invocations that failed as a whole (function error or invalid response).
type Stats struct {
	Batches       int64
	Messages      int64
	Deleted       int64
	Gone          int64
	ItemFailures  int64
	FailedBatches int64
}

type counters struct {
	batches, messages, deleted, gone, itemFailures, failedBatches atomic.Int64
}

// Stats returns the mapping's counters so far.
func (m *Mapping) Stats() Stats { return m.stats.snapshot() }

func (c *counters) snapshot() Stats {
	return Stats{
		Batches:       c.batches.Load(),
		Messages:      c.messages.Load(),
		Deleted:       c.deleted.Load(),
		Gone:          c.gone.Load(),
		ItemFailures:  c.itemFailures.Load(),
		FailedBatches: c.failedBatches.Load(),
	}
}

// FailedBatchRetryDelay is how long the event source emulator keeps a
// batch invisible after its invocation failed as a whole (see Mapping).
const FailedBatchRetryDelay = 10 * time.Second

// Mapping emulates a Lambda SQS event source mapping: poll, invoke with an
// events.SQSEvent, delete what succeeded.
//
// Its pollers (one per RIE process of the function, at most the mapping's
// MaximumConcurrency) receive concurrently, each with long polls, and each
// handles its own batch. That keeps per-group order only because the
// emulator never hands out a message while an earlier one of its group is
// in flight, even under concurrent receives: SQS and LocalStack guarantee
// it, and so does moto as the emulator package launches it.
//
// As Lambda does, it deletes the messages the function did not report as
// failed only after the invocation returns, and leaves the reported ones
// alone: they come back when their visibility ends, which the function may
// have shortened itself (the runner sets a backoff with
// ChangeMessageVisibility). Until then a FIFO group's message stays in
// flight and the group's next one is not delivered, unless the function
// deleted the message itself with its receipt handle (the runner's
// per-record completion). The mapping cannot tell: it deletes every
// unreported message, and a queue that refuses the stale receipt handle
// of a message already gone is not an error (counted in Stats.Gone); a
// stale handle never deletes anything else, the group's next message
// having its own. When the invocation
// fails as a whole (function error, crash, timeout, invalid response),
// Lambda leaves the whole batch to its visibility timeout. Locally that
// would hold a session for the work queue's 90 minutes, so the one local
// rule here: such a batch is made visible again after retryDelay
// (FailedBatchRetryDelay). Its receive counts still grow, so a batch that
// keeps failing still ends in the dead-letter queue.
type Mapping struct {
	es         provision.EventSource
	sqs        *sqs.Client
	invoke     Invoke
	region     string
	wait       time.Duration
	retryDelay time.Duration
	logf       func(string, ...any)
	stats      counters
}

// Invoke runs a function (by logical id) on an event and returns its
// answer; a failure the function reports is a *rie.FunctionError.
type Invoke func(ctx context.Context, function string, payload []byte) ([]byte, error)

// New returns the mapping of es, polling with client (long polls of wait)
// and invoking through invoke; region goes into the events. Start its
// pollers with Poll.
func New(es provision.EventSource, client *sqs.Client, invoke Invoke, region string, wait time.Duration, logf func(string, ...any)) *Mapping {
	return &Mapping{es: es, sqs: client, invoke: invoke, region: region, wait: wait, retryDelay: FailedBatchRetryDelay, logf: logf}
}

// Poll runs one poller until stop ends. Several pollers share a Mapping,
// so batches are received and processed concurrently.
//
// A ReceiveMessage call is never abandoned: the emulator would go on
// polling and hide what it finds for the visibility timeout (90 minutes
// for the work queue). Stopping therefore waits for the open call to end,
// at most the poll wait, and makes whatever it returns visible again.
func (m *Mapping) Poll(stop context.Context) {
	backoff := time.Second
	for stop.Err() == nil {
		if err := m.pollOnce(stop); err != nil {
			m.logf("%s: %v", m.es.LogicalID, err)
			select {
			case <-stop.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, 10*time.Second)
			continue
		}
		backoff = time.Second
	}
}

// receive long-polls for one batch.
func (m *Mapping) receive(stop context.Context) ([]sqstypes.Message, error) {
	if stop.Err() != nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.wait+30*time.Second)
	defer cancel()
	out, err := m.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(m.es.QueueURL),
		MaxNumberOfMessages:         int32(min(max(m.es.BatchSize, 1), 10)),
		WaitTimeSeconds:             int32(m.wait / time.Second),
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
		MessageAttributeNames:       []string{"All"},
	})
	if err != nil {
		return nil, fmt.Errorf("receive from %s: %w", m.es.QueueURL, err)
	}
	return out.Messages, nil
}

// pollOnce receives one batch and handles it. It returns only receive and
// delete errors; function failures are logged and counted.
func (m *Mapping) pollOnce(stop context.Context) error {
	msgs, err := m.receive(stop)
	if err != nil || len(msgs) == 0 {
		return err
	}
	// Clean-up calls must work after stop.
	bg := context.Background()
	if stop.Err() != nil {
		m.release(bg, msgs, 0)
		return nil
	}
	m.stats.batches.Add(1)
	m.stats.messages.Add(int64(len(msgs)))
	payload, err := json.Marshal(newSQSEvent(msgs, m.es.QueueARN, m.region))
	if err != nil {
		m.release(bg, msgs, 0)
		return fmt.Errorf("encode SQS event: %w", err)
	}
	res, err := m.invoke(bg, m.es.Function, payload)
	if err != nil {
		var fe *rie.FunctionError
		switch {
		case !errors.As(err, &fe) && stop.Err() != nil:
			// The stack closed under the invocation: hand the batch
			// back now rather than after the visibility timeout.
			m.release(bg, msgs, 0)
			return nil
		case fe == nil:
			m.logf("%s: batch of %d not delivered to %s: %v", m.es.LogicalID, len(msgs), m.es.Function, err)
		default:
			m.logf("%s: batch of %d failed in %s: %s: %s", m.es.LogicalID, len(msgs), m.es.Function, fe.Type, fe.Message)
		}
		m.failBatch(bg, msgs)
		return nil
	}
	done, failed, err := batchOutcome(msgs, res, m.es.ReportBatchItemFailures)
	if err != nil {
		m.logf("%s: batch of %d treated as failed: %v", m.es.LogicalID, len(msgs), err)
		m.failBatch(bg, msgs)
		return nil
	}
	m.stats.itemFailures.Add(int64(len(failed)))
	return m.delete(bg, done)
}

// failBatch applies the local rule for a batch whose invocation failed as
// a whole: visible again after retryDelay (see Mapping). A group's messages
// share that timeout, so the emulator returns them oldest first.
func (m *Mapping) failBatch(ctx context.Context, msgs []sqstypes.Message) {
	m.stats.failedBatches.Add(1)
	m.release(ctx, msgs, m.retryDelay)
}

// release sets the visibility timeout of msgs to after (0: visible at once).
func (m *Mapping) release(ctx context.Context, msgs []sqstypes.Message, after time.Duration) {
	if len(msgs) == 0 {
		return
	}
	entries := make([]sqstypes.ChangeMessageVisibilityBatchRequestEntry, len(msgs))
	for i, msg := range msgs {
		entries[i] = sqstypes.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: msg.ReceiptHandle, VisibilityTimeout: int32(after / time.Second)}
	}
	out, err := m.sqs.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(m.es.QueueURL), Entries: entries})
	if err != nil {
		m.logf("%s: release %d messages: %v", m.es.LogicalID, len(msgs), err)
		return
	}
	for _, f := range out.Failed {
		m.logf("%s: release message %s failed: %s %s", m.es.LogicalID, aws.ToString(f.Id), aws.ToString(f.Code), aws.ToString(f.Message))
	}
}

// delete deletes the messages of a returned invocation that the function
// did not report (DeleteMessageBatch, at most 10: one batch).
func (m *Mapping) delete(ctx context.Context, msgs []sqstypes.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	entries := make([]sqstypes.DeleteMessageBatchRequestEntry, len(msgs))
	for i, msg := range msgs {
		entries[i] = sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: msg.ReceiptHandle}
	}
	out, err := m.sqs.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(m.es.QueueURL), Entries: entries})
	if err != nil {
		return fmt.Errorf("delete %d messages from %s: %w", len(msgs), m.es.QueueURL, err)
	}
	m.stats.deleted.Add(int64(len(out.Successful)))
	gone, failed := deleteFailures(out.Failed)
	m.stats.gone.Add(int64(gone))
	for _, f := range failed {
		m.logf("%s: delete message %s failed: %s %s", m.es.LogicalID, aws.ToString(f.Id), aws.ToString(f.Code), aws.ToString(f.Message))
	}
	return nil
}

// deleteFailures splits a DeleteMessageBatch's failed entries into the
// messages already gone (the function deleted them itself: their receipt
// handle no longer holds), which Lambda ignores, and real failures.
func deleteFailures(entries []sqstypes.BatchResultErrorEntry) (gone int, failed []sqstypes.BatchResultErrorEntry) {
	for _, f := range entries {
		switch aws.ToString(f.Code) {
		case "ReceiptHandleIsInvalid", "MessageNotInflight":
			gone++
		default:
			failed = append(failed, f)
		}
	}
	return gone, failed
}

// batchOutcome decides which messages of a successful invocation are done
// (to delete), following Lambda: without ReportBatchItemFailures all are
// done. With it, a null/empty response or an empty batchItemFailures means
// all are done; invalid JSON, or an itemIdentifier that is missing, empty or
// not a message of the batch, fails the whole batch (an error here);
// otherwise every message not reported is done and the rest failed.
func batchOutcome(msgs []sqstypes.Message, response []byte, report bool) (done, failed []sqstypes.Message, err error) {
	if !report {
		return msgs, nil, nil
	}
	trimmed := bytes.TrimSpace(response)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return msgs, nil, nil
	}
	var resp struct {
		BatchItemFailures []map[string]json.RawMessage `json:"batchItemFailures"`
	}
	if err := json.Unmarshal(trimmed, &resp); err != nil {
		return nil, nil, fmt.Errorf("invalid batch response: %w", err)
	}
	inBatch := map[string]bool{}
	for _, msg := range msgs {
		inBatch[aws.ToString(msg.MessageId)] = true
	}
	failedIDs := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		raw, ok := f["itemIdentifier"]
		var id string
		if !ok || json.Unmarshal(raw, &id) != nil || id == "" {
			return nil, nil, fmt.Errorf("batch item failure without a valid itemIdentifier: %v", f)
		}
		if !inBatch[id] {
			return nil, nil, fmt.Errorf("batch item failure names message %s, which is not in the batch", id)
		}
		failedIDs[id] = true
	}
	for _, msg := range msgs {
		if failedIDs[aws.ToString(msg.MessageId)] {
			failed = append(failed, msg)
		} else {
			done = append(done, msg)
		}
	}
	return done, failed, nil
}

// newSQSEvent builds the event Lambda sends for a batch of SQS messages.
func newSQSEvent(msgs []sqstypes.Message, queueARN, region string) events.SQSEvent {
	ev := events.SQSEvent{Records: make([]events.SQSMessage, 0, len(msgs))}
	for _, msg := range msgs {
		attrs := map[string]string{}
		for k, v := range msg.Attributes {
			attrs[k] = v
		}
		mattrs := map[string]events.SQSMessageAttribute{}
		for k, v := range msg.MessageAttributes {
			a := events.SQSMessageAttribute{
				StringValue:      v.StringValue,
				BinaryValue:      v.BinaryValue,
				StringListValues: v.StringListValues,
				BinaryListValues: v.BinaryListValues,
				DataType:         aws.ToString(v.DataType),
			}
			if a.StringListValues == nil {
				a.StringListValues = []string{}
			}
			if a.BinaryListValues == nil {
				a.BinaryListValues = [][]byte{}
			}
			mattrs[k] = a
		}
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId:              aws.ToString(msg.MessageId),
			ReceiptHandle:          aws.ToString(msg.ReceiptHandle),
			Body:                   aws.ToString(msg.Body),
			Md5OfBody:              aws.ToString(msg.MD5OfBody),
			Md5OfMessageAttributes: aws.ToString(msg.MD5OfMessageAttributes),
			Attributes:             attrs,
			MessageAttributes:      mattrs,
			EventSourceARN:         queueARN,
			EventSource:            "aws:sqs",
			AWSRegion:              region,
		})
	}
	return ev
}
