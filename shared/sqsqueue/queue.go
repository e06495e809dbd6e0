// Package sqsqueue is the SQS FIFO work queue between the channel functions
// and the runner: Queue.Enqueue is the producer half (the webhooks), Consume
// the consumer half (the runner's Lambda SQS event handler).
//
// One message group per session (inbound.Message.QueueGroup), so SQS hands
// the runner one session's turns in order and never two at once; the
// deduplication id is the inbound message id (QueueDedup), so an edge retry
// within SQS's 5-minute window is dropped by SQS itself. Later repeats are
// the runner's idempotency record's job.
package sqsqueue

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
)

// MaxBodyBytes is the largest body Enqueue sends: SQS's message size limit
// (1 MiB, body plus attributes; Enqueue sends no attributes). A queue
// configured with a smaller MaximumMessageSize rejects bigger bodies itself
// (fault.Invalid too).
const MaxBodyBytes = 1 << 20

// Queue sends inbound messages to one FIFO queue. Safe for concurrent use.
type Queue struct {
	client *sqs.Client
	url    string
}

// New returns a Queue on the FIFO queue at queueURL. Enqueue always sets
// MessageDeduplicationId, so the queue's ContentBasedDeduplication setting
// does not matter (template.yaml turns it off).
func New(client *sqs.Client, queueURL string) *Queue {
	return &Queue{client: client, url: queueURL}
}

// Name is the queue's name, the last part of its URL (see QueueName).
func (q *Queue) Name() string { return QueueName(q.url) }

// Enqueue validates m and sends it as JSON, with one SendMessage call.
//
// Idempotent within SQS's 5-minute deduplication window: enqueueing the
// same message id again succeeds and is not delivered twice, so a webhook
// may retry freely. Errors: an invalid or oversized message is
// fault.Invalid (retrying will not help); throttling, 5xx and network
// failures fault.Unavailable; a missing queue or bad permissions
// fault.Internal / fault.Unauthorized.
func (q *Queue) Enqueue(ctx context.Context, m inbound.Message) error {
	if err := m.Validate(); err != nil {
		return err
	}
	body, err := encode(m)
	if err != nil {
		return fault.Wrap(fault.Invalid, err, "encode inbound message %s", m.ID)
	}
	if len(body) > MaxBodyBytes {
		return fault.New(fault.Invalid, "inbound message %s is %d bytes; the queue takes at most %d", m.ID, len(body), MaxBodyBytes)
	}
	_, err = q.client.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:               &q.url,
		MessageBody:            aws.String(string(body)),
		MessageGroupId:         aws.String(m.QueueGroup()),
		MessageDeduplicationId: aws.String(m.QueueDedup()),
	})
	return classify(err, "enqueue message "+m.ID)
}

// encode returns m's JSON body in SQS's character set: encoding/json
// already replaces invalid UTF-8 and escapes control characters; the
// noncharacters U+FFFE and U+FFFF, which SQS rejects, are escaped here
// (they can only occur inside JSON strings, so escaping keeps the JSON).
func encode(m inbound.Message) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // smaller bodies; nothing renders them as HTML
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	body := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	body = bytes.ReplaceAll(body, []byte("\uFFFE"), []byte(`\ufffe`))
	body = bytes.ReplaceAll(body, []byte("\uFFFF"), []byte(`\uffff`))
	return body, nil
}

// Delay makes the received messages with these receipt handles visible
// again after d (ChangeMessageVisibilityBatch, 10 at a time), so a failed
// message is retried after a backoff rather than the queue's visibility
// timeout. Receipts that no longer hold (the message was deleted or
// received again) are skipped: there is nothing left to delay. Other
// entry failures are returned, after the rest were tried.
func (q *Queue) Delay(ctx context.Context, receipts []string, d time.Duration) error {
	var failed []string
	for start := 0; start < len(receipts); start += 10 {
		chunk := receipts[start:min(start+10, len(receipts))]
		entries := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(chunk))
		for i, r := range chunk {
			entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{
				Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(r), VisibilityTimeout: int32(d / time.Second),
			}
		}
		out, err := q.client.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: &q.url, Entries: entries})
		if err != nil {
			return classify(err, "delay "+strconv.Itoa(len(chunk))+" messages")
		}
		failed = append(failed, entryFailures(out.Failed)...)
	}
	if len(failed) > 0 {
		return fault.New(fault.Unavailable, "delay messages: %d failed, first: %s", len(failed), failed[0])
	}
	return nil
}

// Delete deletes the received messages with these receipt handles
// (DeleteMessageBatch, 10 at a time: one call for the records of one
// batch), so a finished message stops holding its message group before
// the invocation returns (see Consumer.Deleter). Idempotent: a receipt
// that no longer holds (the message was deleted already, or its
// visibility ended and it was received again, when the new delivery
// finds it done by its idempotency record) is skipped. Other entry
// failures are returned, after the rest were tried; the event source
// mapping then deletes those records when the invocation returns.
func (q *Queue) Delete(ctx context.Context, receipts []string) error {
	var failed []string
	for start := 0; start < len(receipts); start += 10 {
		chunk := receipts[start:min(start+10, len(receipts))]
		entries := make([]types.DeleteMessageBatchRequestEntry, len(chunk))
		for i, r := range chunk {
			entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(r)}
		}
		out, err := q.client.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &q.url, Entries: entries})
		if err != nil {
			return classify(err, "delete "+strconv.Itoa(len(chunk))+" messages")
		}
		failed = append(failed, entryFailures(out.Failed)...)
	}
	if len(failed) > 0 {
		return fault.New(fault.Unavailable, "delete messages: %d failed, first: %s", len(failed), failed[0])
	}
	return nil
}

// entryFailures describes a batch call's failed entries ("code: message"),
// leaving out the receipts that no longer hold (ReceiptHandleIsInvalid,
// MessageNotInflight): their message is gone or was received again.
func entryFailures(failed []types.BatchResultErrorEntry) []string {
	var out []string
	for _, f := range failed {
		if code := aws.ToString(f.Code); code != "ReceiptHandleIsInvalid" && code != "MessageNotInflight" {
			out = append(out, code+": "+aws.ToString(f.Message))
		}
	}
	return out
}
