package sqsqueue

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/inbound"
)

// TestHeld: a group whose handler holds its records is reported for
// redelivery after the hold, rounded up to whole seconds, without the
// failure backoff or the Failed report; other groups are unaffected.
func TestHeld(t *testing.T) {
	for _, tc := range []struct {
		name string
		hold time.Duration
		want time.Duration
	}{
		{"a fraction of a second is a second", 300 * time.Millisecond, time.Second},
		{"rounded up", 1200 * time.Millisecond, 2 * time.Second},
		{"whole seconds as they are", 3 * time.Second, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			captureLog(t)
			withReceipt := func(r events.SQSMessage) events.SQSMessage { r.ReceiptHandle = "rh-" + r.MessageId; return r }
			recs := []events.SQSMessage{withReceipt(record("a1", "A", "one")), withReceipt(record("b1", "B", "other")), withReceipt(record("a2", "A", "two"))}
			d := &delays{}
			reported := 0
			c := &Consumer{
				MaxRun: 10, MaxReceives: 5, Backoff: Backoff{Base: time.Minute}, Delayer: d,
				Failed: func(context.Context, []inbound.Message, []int, bool, error) { reported++ },
				Handler: func(_ context.Context, msgs []inbound.Message, _ []int) (int, error) {
					if msgs[0].SessionKey == "A" {
						return 0, &Held{For: tc.hold}
					}
					return len(msgs), nil
				},
			}
			resp := c.Consume(context.Background(), events.SQSEvent{Records: recs})
			if diff := cmp.Diff([]string{"sqs-a1", "sqs-a2"}, failures(resp)); diff != "" {
				t.Errorf("reported (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(map[string]time.Duration{"rh-sqs-a1": tc.want, "rh-sqs-a2": tc.want}, d.calls); diff != "" {
				t.Errorf("delays (-want +got):\n%s", diff)
			}
			if reported != 0 {
				t.Errorf("Failed told %d times about a hold", reported)
			}
		})
	}
}

// TestQueuedAt: the consumer hands the handler each message with the
// record's SentTimestamp as its QueuedAt (what debounce measures quiet
// by); a message that carries one keeps it.
func TestQueuedAt(t *testing.T) {
	stamped := record("a1", "A", "one")
	stamped.Attributes["SentTimestamp"] = "1767225600123"
	plain := record("a2", "A", "two")
	var got []int64
	c := &Consumer{MaxRun: 10, Handler: func(_ context.Context, msgs []inbound.Message, _ []int) (int, error) {
		for _, m := range msgs {
			got = append(got, m.QueuedAt)
		}
		return len(msgs), nil
	}}
	c.Consume(context.Background(), events.SQSEvent{Records: []events.SQSMessage{stamped, plain}})
	if diff := cmp.Diff([]int64{1767225600123, 0}, got); diff != "" {
		t.Errorf("QueuedAt (-want +got):\n%s", diff)
	}
}
