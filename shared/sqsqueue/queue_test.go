package sqsqueue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
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
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest/ingesttest"
)

// Tests against real queues on the emulator: Queue.Enqueue in, the poll
// loop of poll_test.go and Consume out.

// message is turn seq of session, with an id unique to the test run.
func message(run, session string, seq int) inbound.Message {
	return inbound.Message{
		ID: fmt.Sprintf("test:%s:%s:%d", run, session, seq), AgentID: "main",
		SessionKey: "agent:main:telegram:direct:" + session + ":" + run, Channel: "telegram",
		ChatType: inbound.Direct, To: session, Text: strconv.Itoa(seq), ReceivedAt: time.Now().UnixMilli(),
	}
}

// recorder is a Handler that logs what it handled, per session.
type recorder struct {
	mu       sync.Mutex
	order    map[string][]int                        // session key -> seqs handled successfully, in order
	done     map[string]int                          // message id -> successful handlings
	attempts map[string][]int                        // message id -> attempt of every call
	fail     func(m inbound.Message, call int) error // nil: succeed
}

func newRecorder(fail func(m inbound.Message, call int) error) *recorder {
	return &recorder{order: map[string][]int{}, done: map[string]int{}, attempts: map[string][]int{}, fail: fail}
}

func (r *recorder) handle(_ context.Context, m inbound.Message, attempt int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempts[m.ID] = append(r.attempts[m.ID], attempt)
	if r.fail != nil {
		if err := r.fail(m, len(r.attempts[m.ID])); err != nil {
			return err
		}
	}
	seq, _ := strconv.Atoi(m.Text)
	r.order[m.SessionKey] = append(r.order[m.SessionKey], seq)
	r.done[m.ID]++
	return nil
}

func (r *recorder) handled(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done[id]
}

func (r *recorder) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.done {
		n += c
	}
	return n
}

// check asserts every message of want was handled exactly once and each
// session's messages in order.
func (r *recorder) check(t *testing.T, want []inbound.Message) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	sessions := map[string][]int{}
	for _, m := range want {
		if n := r.done[m.ID]; n != 1 {
			t.Errorf("message %s handled %d times; want exactly once", m.ID, n)
		}
		seq, _ := strconv.Atoi(m.Text)
		sessions[m.SessionKey] = append(sessions[m.SessionKey], seq)
	}
	for key, seqs := range sessions {
		if got := r.order[key]; !slices.Equal(got, seqs) {
			t.Errorf("session %s handled %v; want %v", key, got, seqs)
		}
	}
}

func TestManySessionsInOrderExactlyOnce(t *testing.T) {
	ctx := context.Background()
	q := newQueues(t, 30, 5) // no failures expected: a long visibility timeout
	queue := New(testClient, q.url)
	run := awstest.Suffix()
	var sent []inbound.Message
	for seq := 1; seq <= 5; seq++ { // interleaved: s00#1, s01#1, ..., s19#1, s00#2, ...
		for s := range 20 {
			m := message(run, fmt.Sprintf("s%02d", s), seq)
			if err := queue.Enqueue(ctx, m); err != nil {
				t.Fatalf("Enqueue %s: %v", m.ID, err)
			}
			sent = append(sent, m)
		}
	}
	rec := newRecorder(nil)
	batches := pollUntil(t, q, 3, 60*time.Second, rec.handle, func() bool { return rec.total() >= len(sent) })
	rec.check(t, sent)
	assertDrained(t, q)
	t.Logf("%d messages in %d batches over 3 pollers", len(sent), len(batches))
}

// TestWorkQueue runs the work queue's conformance suite on a fresh FIFO
// queue per case on the emulator (moto).
func TestWorkQueue(t *testing.T) {
	ingesttest.TestQueue(t, func(t *testing.T) ingesttest.Queue {
		q := newQueues(t, 30, 5)
		return ingesttest.Queue{Queue: New(testClient, q.url), Receive: func(t *testing.T, n int) []ingesttest.Delivery {
			return receive(t, q, n)
		}}
	})
}

// receive takes n messages off q (receiving and deleting, 10 at a time,
// as the event source mapping does), in the order SQS hands them out,
// each with the message group it came on.
func receive(t *testing.T, q testQueue, n int) []ingesttest.Delivery {
	t.Helper()
	ctx := context.Background()
	var got []ingesttest.Delivery
	awstest.WaitFor(t, fmt.Sprintf("%d messages received", n), 20*time.Second, func() bool {
		out, err := testClient.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: &q.url, MaxNumberOfMessages: int32(min(10, n-len(got))),
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameMessageGroupId},
		})
		if err != nil {
			t.Fatalf("ReceiveMessage: %v", err)
		}
		for _, r := range out.Messages {
			m, err := inbound.Decode([]byte(aws.ToString(r.Body)))
			if err != nil {
				t.Fatalf("decode %s: %v", aws.ToString(r.Body), err)
			}
			got = append(got, ingesttest.Delivery{Group: r.Attributes[string(types.MessageSystemAttributeNameMessageGroupId)], Message: m})
			if _, err := testClient.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &q.url, ReceiptHandle: r.ReceiptHandle}); err != nil {
				t.Fatalf("DeleteMessage: %v", err)
			}
		}
		return len(got) >= n
	})
	return got
}

func TestMidBatchFailureRedeliversTheRest(t *testing.T) {
	ctx := context.Background()
	captureLog(t) // the failure warning is expected
	q := newQueues(t, 1, 5)
	queue := New(testClient, q.url)
	run := awstest.Suffix()
	var sent []inbound.Message
	enqueue := func(seq int) {
		for _, s := range []string{"A", "B", "C"} {
			m := message(run, s, seq)
			if err := queue.Enqueue(ctx, m); err != nil {
				t.Errorf("Enqueue %s: %v", m.ID, err)
			}
			sent = append(sent, m)
		}
	}
	enqueue(1)
	enqueue(2) // A1 B1 C1 A2 B2 C2: one batch on the emulator
	a2 := message(run, "A", 2)
	rec := newRecorder(func(m inbound.Message, call int) error {
		if m.ID == a2.ID && call == 1 {
			// Turn 3 of every session arrives while A2, B2 and C2 are in
			// flight: it must wait for them.
			enqueue(3)
			return errors.New("transient failure")
		}
		return nil
	})
	batches := pollUntil(t, q, 1, 30*time.Second, rec.handle, func() bool { return rec.total() >= 9 })
	rec.check(t, sent)
	assertDrained(t, q)

	// The batch where A2 failed reported A2 alone: B2 and C2 of the other
	// sessions completed in it.
	failedIn := 0
	for _, b := range batches {
		for _, r := range b.ev.Records {
			if strings.Contains(r.Body, `"id":"`+a2.ID+`"`) && len(b.failed()) > 0 {
				failedIn++
				if want := []string{r.MessageId}; !slices.Equal(b.failed(), want) {
					t.Errorf("batch %v reported %v; want %v (only A's record)", b.ids(), b.failed(), want)
				}
			}
		}
	}
	if failedIn != 1 {
		t.Fatalf("%d batches reported A2's failure; want 1", failedIn)
	}
	if got := rec.attempts[a2.ID]; !slices.Equal(got, []int{1, 2}) {
		t.Errorf("A2 attempts = %v; want [1 2]", got)
	}
}

func TestPoisonGoesToDLQ(t *testing.T) {
	ctx := context.Background()
	captureLog(t) // the poison warnings are expected
	q := newQueues(t, 1, 2)
	queue := New(testClient, q.url)
	run := awstest.Suffix()
	poison, after := message(run, "P", 1), message(run, "P", 2)
	if err := queue.Enqueue(ctx, poison); err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
	// A body no runner can decode, in its own group.
	garbage := "not json " + run
	if _, err := testClient.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl: &q.url, MessageBody: &garbage, MessageGroupId: aws.String("garbage"), MessageDeduplicationId: aws.String("garbage-" + run),
	}); err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	rec := newRecorder(func(m inbound.Message, call int) error {
		if m.ID != poison.ID {
			return nil
		}
		if call == 2 {
			// The session's next turn arrives while the poison message is
			// on its last attempt.
			if err := queue.Enqueue(ctx, after); err != nil {
				t.Errorf("Enqueue: %v", err)
			}
		}
		return errors.New("always fails")
	})

	var dead []string
	dlqHolds2 := func() bool {
		out, err := testClient.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &q.dlqURL, MaxNumberOfMessages: 10, VisibilityTimeout: 60})
		if err == nil {
			for _, m := range out.Messages {
				dead = append(dead, aws.ToString(m.Body))
			}
		}
		return len(dead) >= 2
	}
	pollUntil(t, q, 1, 60*time.Second, rec.handle, func() bool { return rec.handled(after.ID) > 0 && dlqHolds2() })

	if got := rec.attempts[poison.ID]; !slices.Equal(got, []int{1, 2}) {
		t.Errorf("poison attempts = %v; want [1 2] (maxReceiveCount 2)", got)
	}
	if rec.handled(poison.ID) != 0 || rec.handled(after.ID) != 1 {
		t.Errorf("handled poison %d, later message %d times; want 0 and 1", rec.handled(poison.ID), rec.handled(after.ID))
	}
	var gotPoison, gotGarbage bool
	for _, body := range dead {
		gotPoison = gotPoison || strings.Contains(body, poison.ID)
		gotGarbage = gotGarbage || body == garbage
	}
	if !gotPoison || !gotGarbage || len(dead) != 2 {
		t.Errorf("DLQ holds %q; want the poison message and the garbage body", dead)
	}
	assertDrained(t, q)
}

func TestEnqueueValidates(t *testing.T) {
	ctx := context.Background()
	q := newQueues(t, 30, 5)
	queue := New(testClient, q.url)
	m := message(awstest.Suffix(), "v", 1)
	m.To = ""
	counter.Reset()
	if err := queue.Enqueue(ctx, m); !fault.Is(err, fault.Invalid) {
		t.Errorf("Enqueue without to = %v; want fault.Invalid", err)
	}
	m = message(awstest.Suffix(), "v", 1)
	m.Text = strings.Repeat("x", MaxBodyBytes)
	if err := queue.Enqueue(ctx, m); !fault.Is(err, fault.Invalid) {
		t.Errorf("Enqueue of a >1 MiB body = %v; want fault.Invalid", err)
	}
	if counter.Total() != 0 {
		t.Errorf("invalid messages reached SQS: %s", counter)
	}
	missing := New(testClient, strings.Replace(q.url, "zero-test-", "zero-missing-", 1))
	if err := missing.Enqueue(ctx, message(awstest.Suffix(), "v", 1)); err == nil || fault.Is(err, fault.Invalid) {
		t.Errorf("Enqueue to a missing queue = %v; want a non-Invalid error", err)
	}
}

func TestEnqueueRoundTripsOddText(t *testing.T) {
	ctx := context.Background()
	q := newQueues(t, 30, 5)
	queue := New(testClient, q.url)
	m := message(awstest.Suffix(), "odd", 1)
	m.Text = "<b>&</b> \x00\x1f \ufffe\uffff \u2028 😀 " + strings.Repeat("é", 300_000) // ~600 KB, near the 1 MiB limit in bytes
	counter.Reset()
	if err := queue.Enqueue(ctx, m); err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
	if c := counter.String(); c != "SQS.SendMessage=1" {
		t.Errorf("Enqueue made %s; want one SendMessage", c)
	}
	var got inbound.Message
	pollUntil(t, q, 1, 30*time.Second, func(_ context.Context, in inbound.Message, _ int) error { got = in; return nil },
		func() bool { return got.ID != "" })
	if got.QueuedAt == 0 {
		t.Error("the consumer did not stamp QueuedAt from the record's SentTimestamp")
	}
	got.QueuedAt = 0 // the queue's stamp, not the sender's
	if !cmp.Equal(got, m) {
		t.Errorf("decoded message differs from the enqueued one (text %d vs %d bytes)", len(got.Text), len(m.Text))
	}
	out, err := testClient.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &q.url, AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages}})
	if err != nil || out.Attributes["ApproximateNumberOfMessages"] != "0" {
		t.Errorf("queue not empty after consuming: %v %v", out, err)
	}
}

// BenchmarkEnqueue measures SendMessage calls per Enqueue (1).
func BenchmarkEnqueue(b *testing.B) {
	ctx := context.Background()
	out, err := testClient.CreateQueue(ctx, &sqs.CreateQueueInput{
		QueueName:  aws.String(awstest.Name("zero-bench-") + ".fifo"),
		Attributes: map[string]string{"FifoQueue": "true"},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { testClient.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: out.QueueUrl}) })
	queue := New(testClient, *out.QueueUrl)
	run := awstest.Suffix()
	counter.Reset()
	for i := 0; b.Loop(); i++ {
		if err := queue.Enqueue(ctx, message(run, fmt.Sprint("s", i%20), i)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(counter.Total())/float64(b.N), "calls/op")
}

// TestRetryBackoffIsWhatTheNextReceiveSees: a failed record comes back
// after the Consumer's backoff, not the queue's visibility timeout (30 s
// here), and the second failure waits twice as long.
func TestRetryBackoffIsWhatTheNextReceiveSees(t *testing.T) {
	ctx := context.Background()
	captureLog(t) // the failure warnings are expected
	q := newQueues(t, 30, 5)
	queue := New(testClient, q.url)
	m := message(awstest.Suffix(), "R", 1)
	if err := queue.Enqueue(ctx, m); err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
	const base = time.Second
	c := &Consumer{
		Delayer: queue, Backoff: Backoff{Base: base, Max: time.Minute}, MaxReceives: 5,
		Handler: func(context.Context, []inbound.Message, []int) (int, error) {
			return 0, errors.New("model unavailable")
		},
	}
	// receive waits for the next delivery of m, up to 20 s, and returns it
	// as a Lambda record with the time it became receivable.
	receive := func() (events.SQSMessage, time.Time) {
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			out, err := testClient.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
				QueueUrl: &q.url, MaxNumberOfMessages: 10,
				MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
			})
			if err != nil {
				t.Fatalf("ReceiveMessage: %v", err)
			}
			if len(out.Messages) == 1 {
				got := out.Messages[0]
				return events.SQSMessage{MessageId: aws.ToString(got.MessageId), ReceiptHandle: aws.ToString(got.ReceiptHandle),
					Body: aws.ToString(got.Body), Attributes: got.Attributes}, time.Now()
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatal("the failed message did not come back within 20 s (the queue's visibility is 30 s)")
		return events.SQSMessage{}, time.Time{}
	}
	rec, _ := receive()
	for n := 1; n <= 2; n++ {
		if got := receiveCount(rec); got != n {
			t.Fatalf("receive %d: ApproximateReceiveCount = %d", n, got)
		}
		failedAt := time.Now()
		if resp := c.Consume(ctx, events.SQSEvent{Records: []events.SQSMessage{rec}}); len(resp.BatchItemFailures) != 1 {
			t.Fatalf("receive %d: failures %v; want the record", n, failures(resp))
		}
		var back time.Time
		rec, back = receive()
		want := c.Backoff.After(n)
		if waited := back.Sub(failedAt); waited < want-200*time.Millisecond || waited > want+3*time.Second {
			t.Errorf("failure %d: the record came back after %s; want about %s (the backoff)", n, waited.Round(time.Millisecond), want)
		}
	}
}
