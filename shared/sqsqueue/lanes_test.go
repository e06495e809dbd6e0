package sqsqueue

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/inbound"
)

// TestConsumerDelaysOnSourceQueue: a failed record is delayed on the queue
// it came from (its EventSourceARN's name in Delayers), a record of an
// unknown or unnamed queue on the default Delayer, none without one.
func TestConsumerDelaysOnSourceQueue(t *testing.T) {
	const (
		workARN = "arn:aws:sqs:us-east-1:123456789012:zero-workqueue.fifo"
		subARN  = "arn:aws:sqs:us-east-1:123456789012:zero-subagentqueue.fifo"
	)
	from := func(id, group, arn string) events.SQSMessage {
		r := attemptRecord(id, group, 1)
		r.EventSourceARN = arn
		return r
	}
	tests := []struct {
		name              string
		records           []events.SQSMessage
		noDefault         bool
		wantWork, wantSub map[string]time.Duration
		wantDefault       map[string]time.Duration
	}{
		{
			name:     "work queue record",
			records:  []events.SQSMessage{from("a1", "A", workARN)},
			wantWork: map[string]time.Duration{"rh-a1": time.Second},
		},
		{
			name:    "sub-agent queue record",
			records: []events.SQSMessage{from("s1", "S", subARN)},
			wantSub: map[string]time.Duration{"rh-s1": time.Second},
		},
		{
			name:        "unknown queue uses the default",
			records:     []events.SQSMessage{from("x1", "X", "arn:aws:sqs:us-east-1:123456789012:other.fifo")},
			wantDefault: map[string]time.Duration{"rh-x1": time.Second},
		},
		{
			name:        "no EventSourceARN uses the default",
			records:     []events.SQSMessage{from("x1", "X", "")},
			wantDefault: map[string]time.Duration{"rh-x1": time.Second},
		},
		{
			name:      "unknown queue without a default is left alone",
			records:   []events.SQSMessage{from("x1", "X", "arn:aws:sqs:us-east-1:123456789012:other.fifo")},
			noDefault: true,
		},
		{
			name: "records of both queues",
			records: []events.SQSMessage{
				from("a1", "A", workARN), from("a2", "A", workARN), from("s1", "S", subARN),
			},
			wantWork: map[string]time.Duration{"rh-a1": time.Second, "rh-a2": time.Second},
			wantSub:  map[string]time.Duration{"rh-s1": time.Second},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			captureLog(t)
			work, sub, def := &delays{}, &delays{}, &delays{}
			c := &Consumer{
				MaxRun: 10, MaxReceives: 5, Backoff: Backoff{Base: time.Second, Max: time.Minute},
				Delayers: map[string]Delayer{QueueName(workARN): work, QueueName(subARN): sub},
				Handler: func(context.Context, []inbound.Message, []int) (int, error) {
					return 0, errors.New("boom")
				},
			}
			if !tt.noDefault {
				c.Delayer = def
			}
			c.Consume(context.Background(), events.SQSEvent{Records: tt.records})
			for _, got := range []struct {
				name       string
				want, have map[string]time.Duration
			}{{"work", tt.wantWork, work.calls}, {"subagent", tt.wantSub, sub.calls}, {"default", tt.wantDefault, def.calls}} {
				if diff := cmp.Diff(got.want, got.have); diff != "" {
					t.Errorf("%s queue delays (-want +got):\n%s", got.name, diff)
				}
			}
		})
	}
}

// TestQueueName: the name is the last field of an ARN or a URL.
func TestQueueName(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"ARN", "arn:aws:sqs:us-east-1:123456789012:zero-workqueue.fifo", "zero-workqueue.fifo"},
		{"AWS URL", "https://sqs.us-east-1.amazonaws.com/123456789012/zero-workqueue.fifo", "zero-workqueue.fifo"},
		{"emulator URL", "http://127.0.0.1:4566/123456789012/zero-workqueue.fifo", "zero-workqueue.fifo"},
		{"bare name", "zero-workqueue.fifo", "zero-workqueue.fifo"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := QueueName(tt.in); got != tt.want {
				t.Errorf("QueueName(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}
