package devstack

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
)

// ESMStats counts what an event source mapping did. Batches counts
// invocations; Deleted the messages deleted after them; ItemFailures the
// messages the function reported in batchItemFailures; FailedBatches the
// invocations that failed as a whole (function error or invalid response).
type ESMStats struct {
	Batches       int64
	Messages      int64
	Deleted       int64
	ItemFailures  int64
	FailedBatches int64
}

type esmCounters struct {
	batches, messages, deleted, itemFailures, failedBatches atomic.Int64
}

func (c *esmCounters) snapshot() ESMStats {
	return ESMStats{
		Batches:       c.batches.Load(),
		Messages:      c.messages.Load(),
		Deleted:       c.deleted.Load(),
		ItemFailures:  c.itemFailures.Load(),
		FailedBatches: c.failedBatches.Load(),
	}
}

// esm emulates a Lambda SQS event source mapping: poll, invoke with an
// events.SQSEvent, delete what succeeded.
//
// Its pollers take turns to receive (recv), and poll briefly while a batch
// is being processed (busy): moto decides which message groups are in
// flight once at the start of a ReceiveMessage call, so concurrent or long
// polls could hand out a message while an earlier one of its group is still
// being processed. One receive at a time, refreshed every second while
// anything is in flight, keeps per-group order on moto as SQS does.
type esm struct {
	es     EventSource
	sqs    *sqs.Client
	invoke func(ctx context.Context, function string, payload []byte) ([]byte, error)
	region string
	wait   time.Duration
	logf   func(string, ...any)
	stats  esmCounters

	recv chan struct{} // capacity 1: held while a ReceiveMessage call runs
	busy atomic.Int32  // batches received and not yet settled
}

func newESM(es EventSource, client *sqs.Client, invoke func(context.Context, string, []byte) ([]byte, error), region string, wait time.Duration, logf func(string, ...any)) *esm {
	return &esm{es: es, sqs: client, invoke: invoke, region: region, wait: wait, logf: logf, recv: make(chan struct{}, 1)}
}

// poll runs one poller until stop ends. Several pollers share an esm, one
// per RIE process of the function, so batches of different message groups
// are processed concurrently.
//
// A ReceiveMessage call is never abandoned: the emulator would go on
// polling and hide what it finds for the visibility timeout (12 minutes for
// the work queue). Stopping therefore waits for the open call to end, at
// most the poll wait, and makes whatever it returns visible again.
func (m *esm) poll(stop context.Context) {
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

// receive gets one batch, taking its turn among the pollers. A non-empty
// batch counts as busy until the caller settles it.
func (m *esm) receive(stop context.Context) ([]sqstypes.Message, error) {
	select {
	case m.recv <- struct{}{}:
	case <-stop.Done():
		return nil, nil
	}
	defer func() { <-m.recv }()
	if stop.Err() != nil {
		return nil, nil
	}
	wait := m.wait
	if m.busy.Load() > 0 {
		wait = min(wait, time.Second)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait+30*time.Second)
	defer cancel()
	out, err := m.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(m.es.QueueURL),
		MaxNumberOfMessages:         int32(min(max(m.es.BatchSize, 1), 10)),
		WaitTimeSeconds:             int32(wait / time.Second),
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
		MessageAttributeNames:       []string{"All"},
	})
	if err != nil {
		return nil, fmt.Errorf("receive from %s: %w", m.es.QueueURL, err)
	}
	if len(out.Messages) > 0 {
		m.busy.Add(1)
	}
	return out.Messages, nil
}

// pollOnce receives one batch and handles it. It returns only receive and
// delete errors; function failures are logged and leave the messages to
// come back after the visibility timeout, as in Lambda.
func (m *esm) pollOnce(stop context.Context) error {
	msgs, err := m.receive(stop)
	if err != nil || len(msgs) == 0 {
		return err
	}
	defer m.busy.Add(-1)
	// Clean-up calls must work after stop.
	bg := context.Background()
	if stop.Err() != nil {
		m.release(bg, msgs)
		return nil
	}
	m.stats.batches.Add(1)
	m.stats.messages.Add(int64(len(msgs)))
	payload, err := json.Marshal(newSQSEvent(msgs, m.es.QueueARN, m.region))
	if err != nil {
		m.release(bg, msgs)
		return fmt.Errorf("encode SQS event: %w", err)
	}
	res, err := m.invoke(bg, m.es.Function, payload)
	var done, failed []sqstypes.Message
	wholeBatch := false
	if err != nil {
		var fe *FunctionError
		if !errors.As(err, &fe) {
			if stop.Err() != nil {
				// The stack closed under the invocation: hand the batch
				// back now rather than after the visibility timeout.
				m.release(bg, msgs)
				return nil
			}
			m.logf("%s: batch of %d not delivered to %s: %v", m.es.LogicalID, len(msgs), m.es.Function, err)
		} else {
			m.logf("%s: batch of %d failed in %s: %s: %s", m.es.LogicalID, len(msgs), m.es.Function, fe.Type, fe.Message)
		}
		failed, wholeBatch = msgs, true
	} else if done, failed, err = batchOutcome(msgs, res, m.es.ReportBatchItemFailures); err != nil {
		m.logf("%s: batch of %d treated as failed: %v", m.es.LogicalID, len(msgs), err)
		done, failed, wholeBatch = nil, msgs, true
	}
	derr := m.delete(bg, done)
	m.release(bg, groupTails(failed))
	if wholeBatch {
		m.stats.failedBatches.Add(1)
	} else {
		m.stats.itemFailures.Add(int64(len(failed)))
	}
	return derr
}

// groupTails returns the failed FIFO messages that are not the first
// failed message of their group in the batch. A FIFO batch lists each
// group's messages in order (SequenceNumber would not do: moto makes them
// up at random).
func groupTails(failed []sqstypes.Message) []sqstypes.Message {
	seen := map[string]bool{}
	var tails []sqstypes.Message
	for _, msg := range failed {
		g := msg.Attributes["MessageGroupId"]
		if g == "" {
			continue
		}
		if seen[g] {
			tails = append(tails, msg)
		}
		seen[g] = true
	}
	return tails
}

// release makes msgs visible again at once. Used when stopping, and for the
// failed messages queued behind their group's first failed one: SQS keeps the group blocked
// behind that message anyway, so on AWS this changes nothing; moto, though,
// can redeliver several in-flight messages of one group out of order when
// their visibility timeouts end together, and with only the head in flight
// it delivers the group in order.
func (m *esm) release(ctx context.Context, msgs []sqstypes.Message) {
	if len(msgs) == 0 {
		return
	}
	entries := make([]sqstypes.ChangeMessageVisibilityBatchRequestEntry, len(msgs))
	for i, msg := range msgs {
		entries[i] = sqstypes.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: msg.ReceiptHandle, VisibilityTimeout: 0}
	}
	out, err := m.sqs.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(m.es.QueueURL), Entries: entries})
	if err != nil {
		m.logf("%s: release %d queued messages: %v", m.es.LogicalID, len(msgs), err)
		return
	}
	for _, f := range out.Failed {
		m.logf("%s: release message %s failed: %s %s", m.es.LogicalID, aws.ToString(f.Id), aws.ToString(f.Code), aws.ToString(f.Message))
	}
}

func (m *esm) delete(ctx context.Context, msgs []sqstypes.Message) error {
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
	for _, f := range out.Failed {
		m.logf("%s: delete message %s failed: %s %s", m.es.LogicalID, aws.ToString(f.Id), aws.ToString(f.Code), aws.ToString(f.Message))
	}
	return nil
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
