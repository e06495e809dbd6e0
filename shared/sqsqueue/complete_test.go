package sqsqueue

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/inbound"
)

// Per-record completion (Consumer.Deleter): a group that finishes while
// another of its batch still runs deletes its done records itself.

// deletes records Delete calls, one receipt list per call.
type deletes struct {
	mu    sync.Mutex
	calls [][]string
	err   error
}

func (d *deletes) Delete(_ context.Context, receipts []string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls = append(d.calls, slices.Clone(receipts))
	return d.err
}

// sorted returns the calls in a stable order: groups finish concurrently.
func (d *deletes) sorted() [][]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := slices.Clone(d.calls)
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return out
}

// scriptedGroups is a GroupHandler whose groups in slow take 300 ms and
// that fails at the message ids in failAt.
func scriptedGroups(slow map[string]bool, failAt map[string]bool) GroupHandler {
	return func(_ context.Context, msgs []inbound.Message, _ []int) (int, error) {
		if slow[msgs[0].SessionKey] {
			time.Sleep(300 * time.Millisecond)
		}
		for i, m := range msgs {
			if failAt[m.ID] {
				return i, errors.New("model unavailable")
			}
		}
		return len(msgs), nil
	}
}

func TestConsumerDeletesFinishedGroups(t *testing.T) {
	rec := func(id, group string) events.SQSMessage { return attemptRecord(id, group, 1) }
	tests := []struct {
		name         string
		records      []events.SQSMessage
		slow, failAt map[string]bool
		deleteErr    error
		noDeleter    bool
		wantDeleted  [][]string
		wantFailures []string
		wantLog      string
	}{
		{
			name:    "one session: left to the event source mapping",
			records: []events.SQSMessage{rec("a1", "A"), rec("a2", "A")},
		},
		{
			name:        "a session that finishes while a slow one runs",
			records:     []events.SQSMessage{rec("a1", "A"), rec("b1", "B"), rec("a2", "A")},
			slow:        map[string]bool{"B": true},
			wantDeleted: [][]string{{"rh-a1", "rh-a2"}},
		},
		{
			name:        "every session but the last to finish, one call each",
			records:     []events.SQSMessage{rec("a1", "A"), rec("b1", "B"), rec("c1", "C")},
			slow:        map[string]bool{"C": true},
			wantDeleted: [][]string{{"rh-a1"}, {"rh-b1"}},
		},
		{
			name:         "done records before a failure deleted, the rest of the group reported",
			records:      []events.SQSMessage{rec("a1", "A"), rec("a2", "A"), rec("b1", "B"), rec("a3", "A")},
			slow:         map[string]bool{"B": true},
			failAt:       map[string]bool{"a2": true},
			wantDeleted:  [][]string{{"rh-a1"}},
			wantFailures: []string{"sqs-a2", "sqs-a3"},
		},
		{
			name:         "a group failing at its first record deletes nothing",
			records:      []events.SQSMessage{rec("a1", "A"), rec("b1", "B")},
			slow:         map[string]bool{"B": true},
			failAt:       map[string]bool{"a1": true},
			wantFailures: []string{"sqs-a1"},
		},
		{
			name:         "the slow group fails, the fast one is deleted",
			records:      []events.SQSMessage{rec("a1", "A"), rec("b1", "B"), rec("b2", "B")},
			slow:         map[string]bool{"B": true},
			failAt:       map[string]bool{"b1": true},
			wantDeleted:  [][]string{{"rh-a1"}},
			wantFailures: []string{"sqs-b1", "sqs-b2"},
		},
		{
			name:        "a failed delete is logged, the records not reported",
			records:     []events.SQSMessage{rec("a1", "A"), rec("b1", "B")},
			slow:        map[string]bool{"B": true},
			deleteErr:   errors.New("throttled"),
			wantDeleted: [][]string{{"rh-a1"}},
			wantLog:     "could not delete finished records early",
		},
		{
			name:      "no deleter: everything left to the mapping",
			records:   []events.SQSMessage{rec("a1", "A"), rec("b1", "B")},
			slow:      map[string]bool{"B": true},
			noDeleter: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := captureLog(t)
			del := &deletes{err: tt.deleteErr}
			c := &Consumer{MaxRun: 10, Handler: scriptedGroups(tt.slow, tt.failAt)}
			if !tt.noDeleter {
				c.Deleter = del
			}
			resp := c.Consume(context.Background(), events.SQSEvent{Records: tt.records})
			if diff := cmp.Diff(tt.wantDeleted, del.sorted()); diff != "" {
				t.Errorf("deleted (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantFailures, failures(resp)); diff != "" {
				t.Errorf("reported failures (-want +got):\n%s", diff)
			}
			if tt.wantLog != "" && !strings.Contains(logs.String(), tt.wantLog) {
				t.Errorf("log %q; want it to mention %q", logs.String(), tt.wantLog)
			}
		})
	}
}

// TestConsumerDeletesOnSourceQueue: a finished group's records are
// deleted on the queue they came from (the lanes), with the default
// Deleter for an unknown queue.
func TestConsumerDeletesOnSourceQueue(t *testing.T) {
	const (
		workARN = "arn:aws:sqs:us-east-1:123456789012:zero-workqueue.fifo"
		subARN  = "arn:aws:sqs:us-east-1:123456789012:zero-subagentqueue.fifo"
		otherQ  = "arn:aws:sqs:us-east-1:123456789012:other.fifo"
	)
	from := func(id, group, arn string) events.SQSMessage {
		r := attemptRecord(id, group, 1)
		r.EventSourceARN = arn
		return r
	}
	work, sub, def := &deletes{}, &deletes{}, &deletes{}
	c := &Consumer{
		MaxRun: 10, Handler: scriptedGroups(map[string]bool{"C": true}, nil),
		Deleter: def, Deleters: map[string]Deleter{QueueName(workARN): work, QueueName(subARN): sub},
	}
	resp := c.Consume(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		from("a1", "A", workARN), from("s1", "S", subARN), from("x1", "X", otherQ), from("c1", "C", workARN),
	}})
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %v", failures(resp))
	}
	for _, q := range []struct {
		name string
		got  *deletes
		want [][]string
	}{{"work", work, [][]string{{"rh-a1"}}}, {"subagent", sub, [][]string{{"rh-s1"}}}, {"default", def, [][]string{{"rh-x1"}}}} {
		if diff := cmp.Diff(q.want, q.got.sorted()); diff != "" {
			t.Errorf("%s queue deletes (-want +got):\n%s", q.name, diff)
		}
	}
}

// TestQueueDeleteReleasesTheGroup, on the emulator: deleting a received
// message lets FIFO deliver its group's next one while nothing else
// changed, and Delete is idempotent (again, or a receipt that never
// held, is no error).
func TestQueueDeleteReleasesTheGroup(t *testing.T) {
	ctx := context.Background()
	q := newQueues(t, 30, 5)
	queue := New(testClient, q.url)
	run := awstest.Suffix()
	first, second := message(run, "G", 1), message(run, "G", 2)
	receive := func() []types.Message {
		t.Helper()
		out, err := testClient.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &q.url, MaxNumberOfMessages: 10})
		if err != nil {
			t.Fatalf("receive: %v", err)
		}
		return out.Messages
	}
	if err := queue.Enqueue(ctx, first); err != nil {
		t.Fatal(err)
	}
	got := receive()
	if len(got) != 1 {
		t.Fatalf("received %d messages; want the first", len(got))
	}
	if err := queue.Enqueue(ctx, second); err != nil {
		t.Fatal(err)
	}
	if held := receive(); len(held) != 0 {
		t.Fatalf("received %d messages while the group's first is in flight; want none (FIFO)", len(held))
	}
	receipt := aws.ToString(got[0].ReceiptHandle)
	for _, receipts := range [][]string{{receipt}, {receipt}, {"not-a-receipt-handle"}} {
		if err := queue.Delete(ctx, receipts); err != nil {
			t.Fatalf("Delete(%v): %v; want nil (idempotent)", receipts, err)
		}
	}
	next := receive()
	if len(next) != 1 || !strings.Contains(aws.ToString(next[0].Body), second.ID) {
		t.Fatalf("after the delete received %d messages; want the group's second", len(next))
	}
}
