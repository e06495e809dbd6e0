package sqsqueue

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// This file plays the Lambda event source mapping for the tests: receive up
// to 10, build the SQS event as Lambda does, call Consume, delete every
// record not reported as failed. Reported records are left in flight until
// their visibility timeout, as Lambda leaves them. Pollers receive
// concurrently, as Lambda's do: the emulator keeps FIFO's group order
// (shared/emulator patches moto for it).

// batch is one poll: the event handed to Consume and its response.
type batch struct {
	ev   events.SQSEvent
	resp events.SQSEventResponse
}

// ids returns the message ids of the batch, in order.
func (b batch) ids() []string {
	var out []string
	for _, r := range b.ev.Records {
		out = append(out, r.MessageId)
	}
	return out
}

func (b batch) failed() []string {
	var out []string
	for _, f := range b.resp.BatchItemFailures {
		out = append(out, f.ItemIdentifier)
	}
	return out
}

// pollOnce receives one batch (a short poll, so pollers notice the end
// of the test quickly), consumes it and deletes what Consume did not report. It
// returns the batch; an empty receive is a batch without records.
func pollOnce(ctx context.Context, q testQueue, h Handler) (batch, error) {
	out, err := testClient.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    &q.url,
		MaxNumberOfMessages:         10,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
	})
	if err != nil || len(out.Messages) == 0 {
		return batch{}, err
	}
	var b batch
	for _, m := range out.Messages {
		b.ev.Records = append(b.ev.Records, events.SQSMessage{
			MessageId:      aws.ToString(m.MessageId),
			ReceiptHandle:  aws.ToString(m.ReceiptHandle),
			Body:           aws.ToString(m.Body),
			Md5OfBody:      aws.ToString(m.MD5OfBody),
			Attributes:     m.Attributes,
			EventSource:    "aws:sqs",
			EventSourceARN: q.arn,
			AWSRegion:      "us-east-1",
		})
	}
	b.resp = Consume(ctx, b.ev, h)
	failed := map[string]bool{}
	for _, f := range b.resp.BatchItemFailures {
		failed[f.ItemIdentifier] = true
	}
	var del []types.DeleteMessageBatchRequestEntry
	for i, r := range b.ev.Records {
		if !failed[r.MessageId] {
			del = append(del, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(r.ReceiptHandle)})
		}
	}
	if len(del) > 0 {
		res, err := testClient.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &q.url, Entries: del})
		if err != nil {
			return b, err
		}
		if len(res.Failed) > 0 {
			return b, &deleteError{res.Failed}
		}
	}
	return b, nil
}

type deleteError struct{ failed []types.BatchResultErrorEntry }

func (e *deleteError) Error() string {
	return "delete failed for " + strconv.Itoa(len(e.failed)) + " messages: " + aws.ToString(e.failed[0].Message)
}

// pollUntil runs n concurrent pollers until done reports true, failing the
// test when timeout passes first. It returns every non-empty batch.
func pollUntil(t *testing.T, q testQueue, n int, timeout time.Duration, h Handler, done func() bool) []batch {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var (
		mu      sync.Mutex
		batches []batch
		errs    []error
		wg      sync.WaitGroup
	)
	for range n {
		wg.Go(func() {
			for !done() && ctx.Err() == nil {
				b, err := pollOnce(ctx, q, h)
				mu.Lock()
				if err != nil && ctx.Err() == nil {
					errs = append(errs, err)
				}
				if len(b.ev.Records) > 0 {
					batches = append(batches, b)
				}
				mu.Unlock()
				if err != nil {
					return
				}
				if len(b.ev.Records) == 0 {
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		t.Errorf("poller: %v", err)
	}
	if !done() {
		t.Fatalf("condition not reached within %s (%d batches)", timeout, len(batches))
	}
	return batches
}

// assertDrained checks that no message is left to deliver.
func assertDrained(t *testing.T, q testQueue) {
	t.Helper()
	out, err := testClient.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: &q.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
	if err != nil {
		t.Fatalf("receive: %v", err)
	}
	if len(out.Messages) > 0 {
		t.Fatalf("queue still delivers %d messages, first %q", len(out.Messages), aws.ToString(out.Messages[0].Body))
	}
}
