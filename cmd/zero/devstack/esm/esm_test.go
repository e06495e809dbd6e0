package esm

import (
	"context"
	"encoding/json"
	"fmt"
	mathrand "math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/zero-gateway/zero/cmd/zero/devstack/provision"
	"github.com/zero-gateway/zero/cmd/zero/devstack/rie"
	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/awstest"
)

func testMessages(ids ...string) []sqstypes.Message {
	msgs := make([]sqstypes.Message, len(ids))
	for i, id := range ids {
		msgs[i] = sqstypes.Message{MessageId: aws.String(id), ReceiptHandle: aws.String("rh-" + id), Body: aws.String("body " + id)}
	}
	return msgs
}

func TestBatchOutcome(t *testing.T) {
	tests := []struct {
		name       string
		response   string
		report     bool
		wantDone   []string
		wantFailed int
		wantErr    string
	}{
		{name: "no reporting: all done", response: `{"batchItemFailures":[{"itemIdentifier":"b"}]}`, wantDone: []string{"a", "b", "c"}},
		{name: "null response", response: `null`, report: true, wantDone: []string{"a", "b", "c"}},
		{name: "empty response", response: ``, report: true, wantDone: []string{"a", "b", "c"}},
		{name: "empty object", response: `{}`, report: true, wantDone: []string{"a", "b", "c"}},
		{name: "empty failures", response: `{"batchItemFailures":[]}`, report: true, wantDone: []string{"a", "b", "c"}},
		{name: "fifo tail failed", response: `{"batchItemFailures":[{"itemIdentifier":"b"},{"itemIdentifier":"c"}]}`, report: true, wantDone: []string{"a"}, wantFailed: 2},
		{name: "only the middle failed", response: `{"batchItemFailures":[{"itemIdentifier":"b"}]}`, report: true, wantDone: []string{"a", "c"}, wantFailed: 1},
		{name: "invalid JSON fails all", response: `{"batchItemFailures":`, report: true, wantErr: "invalid batch response"},
		{name: "not an object fails all", response: `"ok"`, report: true, wantErr: "invalid batch response"},
		{name: "empty identifier fails all", response: `{"batchItemFailures":[{"itemIdentifier":""}]}`, report: true, wantErr: "valid itemIdentifier"},
		{name: "null identifier fails all", response: `{"batchItemFailures":[{"itemIdentifier":null}]}`, report: true, wantErr: "valid itemIdentifier"},
		{name: "misspelt key fails all", response: `{"batchItemFailures":[{"itemId":"b"}]}`, report: true, wantErr: "valid itemIdentifier"},
		{name: "unknown id fails all", response: `{"batchItemFailures":[{"itemIdentifier":"z"}]}`, report: true, wantErr: "not in the batch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done, failed, err := batchOutcome(testMessages("a", "b", "c"), []byte(tt.response), tt.report)
			if len(done)+len(failed) != 3 && err == nil {
				t.Errorf("done %d + failed %d != 3", len(done), len(failed))
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, m := range done {
				ids = append(ids, aws.ToString(m.MessageId))
			}
			eq(t, "done", ids, tt.wantDone)
			eq(t, "failed", len(failed), tt.wantFailed)
		})
	}
}

func TestNewSQSEvent(t *testing.T) {
	msgs := []sqstypes.Message{{
		MessageId:     aws.String("m1"),
		ReceiptHandle: aws.String("rh1"),
		Body:          aws.String("hello"),
		MD5OfBody:     aws.String("5d41402abc4b2a76b9719d911017c592"),
		Attributes: map[string]string{
			"ApproximateReceiveCount": "1", "SentTimestamp": "1700000000000", "MessageGroupId": "g",
			"MessageDeduplicationId": "d", "SequenceNumber": "1", "ApproximateFirstReceiveTimestamp": "1700000000001",
		},
		MessageAttributes: map[string]sqstypes.MessageAttributeValue{
			"kind": {DataType: aws.String("String"), StringValue: aws.String("turn")},
		},
	}}
	ev := newSQSEvent(msgs, "arn:aws:sqs:us-east-1:123456789012:q.fifo", "us-east-1")
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Records []map[string]any `json:"Records"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Records) != 1 {
		t.Fatalf("records = %d", len(raw.Records))
	}
	r := raw.Records[0]
	for k, want := range map[string]any{
		"messageId": "m1", "receiptHandle": "rh1", "body": "hello", "md5OfBody": "5d41402abc4b2a76b9719d911017c592",
		"eventSource": "aws:sqs", "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:q.fifo", "awsRegion": "us-east-1",
	} {
		eq(t, k, r[k], want)
	}
	attrs := r["attributes"].(map[string]any)
	eq(t, "MessageGroupId", attrs["MessageGroupId"], any("g"))
	eq(t, "ApproximateReceiveCount", attrs["ApproximateReceiveCount"], any("1"))
	kind := r["messageAttributes"].(map[string]any)["kind"].(map[string]any)
	eq(t, "kind", kind, map[string]any{"stringValue": "turn", "dataType": "String", "stringListValues": []any{}, "binaryListValues": []any{}})

	var typed events.SQSEvent
	if err := json.Unmarshal(b, &typed); err != nil {
		t.Fatal(err)
	}
	eq(t, "typed group", typed.Records[0].Attributes["MessageGroupId"], "g")
}

// scriptedFunction stands in for a function behind an event source
// mapping: it records every event it gets and answers with respond.
type scriptedFunction struct {
	mu      sync.Mutex
	events  []events.SQSEvent
	respond func(ctx context.Context, ev events.SQSEvent) ([]byte, error)
}

func (f *scriptedFunction) invoke(ctx context.Context, _ string, payload []byte) ([]byte, error) {
	var ev events.SQSEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.events = append(f.events, ev)
	f.mu.Unlock()
	return f.respond(ctx, ev)
}

func (f *scriptedFunction) received() []events.SQSEvent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.events)
}

// esmQueue creates a FIFO queue on the test emulator and returns a client
// and the event source that reads it.
func esmQueue(t *testing.T, batchSize int) (*sqs.Client, provision.EventSource) {
	t.Helper()
	need(t, "AWS emulator", emuErr)
	ctx := context.Background()
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := sqs.NewFromConfig(cfg)
	out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{
		QueueName:  aws.String(uniquePrefix(t, "esmq") + ".fifo"),
		Attributes: map[string]string{"FifoQueue": "true", "VisibilityTimeout": "30"},
	})
	if err != nil {
		t.Fatal(err)
	}
	url := aws.ToString(out.QueueUrl)
	t.Cleanup(func() {
		_, _ = client.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(url)})
	})
	attrs, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatal(err)
	}
	return client, provision.EventSource{
		LogicalID: "Test", Function: "F", QueueURL: url, QueueARN: attrs.Attributes["QueueArn"],
		BatchSize: batchSize, ReportBatchItemFailures: true, Enabled: true,
	}
}

// runESM runs n pollers of a Mapping for es until the test ends.
func runESM(t *testing.T, client *sqs.Client, es provision.EventSource, n int, fn *scriptedFunction) *Mapping {
	t.Helper()
	m := New(es, client, fn.invoke, "us-east-1", time.Second, t.Logf)
	m.retryDelay = time.Second
	stop, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { m.Poll(stop) })
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	return m
}

func sendToGroups(t *testing.T, client *sqs.Client, url string, bodies []string, group func(body string) string) {
	t.Helper()
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	for start := 0; start < len(bodies); start += 10 {
		var entries []sqstypes.SendMessageBatchRequestEntry
		for i, body := range bodies[start:min(start+10, len(bodies))] {
			entries = append(entries, sqstypes.SendMessageBatchRequestEntry{
				Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(body),
				MessageGroupId: aws.String(group(body)), MessageDeduplicationId: aws.String(run + "-" + body),
			})
		}
		out, err := client.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
		if err != nil || len(out.Failed) > 0 {
			t.Fatalf("send: %v %+v", err, out)
		}
	}
}

func queueCounts(t *testing.T, client *sqs.Client, url string) (visible, inFlight string) {
	t.Helper()
	out, err := client.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []sqstypes.QueueAttributeName{
		sqstypes.QueueAttributeNameApproximateNumberOfMessages, sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
	}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Attributes["ApproximateNumberOfMessages"], out.Attributes["ApproximateNumberOfMessagesNotVisible"]
}

// TestESMSettle checks what happens to a batch after the invocation, as
// Lambda does it: unreported messages are deleted, reported failures are
// left to their visibility timeout (30 s here: not seen again during the
// test), and a batch whose invocation failed as a whole comes back, in
// order, after the local retry delay.
func TestESMSettle(t *testing.T) {
	failB := func(_ context.Context, ev events.SQSEvent) ([]byte, error) {
		var resp events.SQSEventResponse
		for _, r := range ev.Records {
			if r.Body >= "b" {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
			}
		}
		return json.Marshal(resp)
	}
	tests := []struct {
		name    string
		respond func(context.Context, events.SQSEvent) ([]byte, error)
		// wantBatches are the bodies of each invocation, in order.
		wantBatches  [][]string
		wantVisible  string // ApproximateNumberOfMessages at the end
		wantInFlight string // ApproximateNumberOfMessagesNotVisible at the end
		want         Stats
	}{
		{
			name:        "all done",
			respond:     func(context.Context, events.SQSEvent) ([]byte, error) { return []byte("null"), nil },
			wantBatches: [][]string{{"a", "b", "c"}}, wantVisible: "0", wantInFlight: "0",
			want: Stats{Batches: 1, Messages: 3, Deleted: 3},
		},
		{
			name:        "reported failures left alone",
			respond:     failB,
			wantBatches: [][]string{{"a", "b", "c"}}, wantVisible: "0", wantInFlight: "2",
			want: Stats{Batches: 1, Messages: 3, Deleted: 1, ItemFailures: 2},
		},
		{
			name: "function error: whole batch retried",
			respond: func(_ context.Context, ev events.SQSEvent) ([]byte, error) {
				if ev.Records[0].Attributes["ApproximateReceiveCount"] == "1" {
					return nil, &rie.FunctionError{Function: "F", Type: "errorString", Message: "boom"}
				}
				return []byte("null"), nil
			},
			wantBatches: [][]string{{"a", "b", "c"}, {"a", "b", "c"}}, wantVisible: "0", wantInFlight: "0",
			want: Stats{Batches: 2, Messages: 6, Deleted: 3, FailedBatches: 1},
		},
		{
			name: "invalid response: whole batch retried",
			respond: func(_ context.Context, ev events.SQSEvent) ([]byte, error) {
				if ev.Records[0].Attributes["ApproximateReceiveCount"] == "1" {
					return []byte(`{"batchItemFailures":[{"itemIdentifier":"nope"}]}`), nil
				}
				return []byte("null"), nil
			},
			wantBatches: [][]string{{"a", "b", "c"}, {"a", "b", "c"}}, wantVisible: "0", wantInFlight: "0",
			want: Stats{Batches: 2, Messages: 6, Deleted: 3, FailedBatches: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client, es := esmQueue(t, 10)
			fn := &scriptedFunction{respond: tt.respond}
			m := runESM(t, client, es, 2, fn)
			sendToGroups(t, client, es.QueueURL, []string{"a", "b", "c"}, func(string) string { return "g" })
			want := tt.want
			awstest.WaitFor(t, "batches settled", 10*time.Second, func() bool {
				s := m.stats.snapshot()
				return s.Batches >= want.Batches && s.Deleted+s.ItemFailures >= want.Deleted+want.ItemFailures
			})
			// Long enough for a wrongly released failure to come back.
			time.Sleep(1500 * time.Millisecond)
			eq(t, "stats", m.stats.snapshot(), want)
			var batches [][]string
			for _, ev := range fn.received() {
				var bodies []string
				for _, r := range ev.Records {
					bodies = append(bodies, r.Body)
				}
				batches = append(batches, bodies)
			}
			eq(t, "batches", batches, tt.wantBatches)
			visible, inFlight := queueCounts(t, client, es.QueueURL)
			eq(t, "visible", visible, tt.wantVisible)
			eq(t, "in flight", inFlight, tt.wantInFlight)
		})
	}
}

// TestESMRecords checks the records a function gets: a receipt handle it
// can use (here to return a failed record at once, as the runner does
// with its backoff), the queue's ARN, and the system attributes.
func TestESMRecords(t *testing.T) {
	client, es := esmQueue(t, 10)
	fn := &scriptedFunction{}
	fn.respond = func(ctx context.Context, ev events.SQSEvent) ([]byte, error) {
		var resp events.SQSEventResponse
		for _, r := range ev.Records {
			if r.Attributes["ApproximateReceiveCount"] == "1" {
				if _, err := client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(es.QueueURL), ReceiptHandle: aws.String(r.ReceiptHandle), VisibilityTimeout: 0}); err != nil {
					return nil, err
				}
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
			}
		}
		return json.Marshal(resp)
	}
	m := runESM(t, client, es, 1, fn)
	sendToGroups(t, client, es.QueueURL, []string{"x"}, func(string) string { return "session-1" })
	awstest.WaitFor(t, "deleted after the function's own retry", 10*time.Second, func() bool { return m.stats.deleted.Load() == 1 })
	got := fn.received()
	eq(t, "invocations", len(got), 2)
	for i, ev := range got {
		r := ev.Records[0]
		eq(t, "eventSourceARN", r.EventSourceARN, es.QueueARN)
		eq(t, "eventSource", r.EventSource, "aws:sqs")
		eq(t, "MessageGroupId", r.Attributes["MessageGroupId"], "session-1")
		eq(t, "ApproximateReceiveCount", r.Attributes["ApproximateReceiveCount"], strconv.Itoa(i+1))
		if !strings.HasSuffix(r.Attributes["MessageDeduplicationId"], "-x") {
			t.Errorf("MessageDeduplicationId = %q", r.Attributes["MessageDeduplicationId"])
		}
		if r.ReceiptHandle == "" || r.Attributes["SentTimestamp"] == "" {
			t.Errorf("record %d lacks a receipt handle or SentTimestamp: %+v", i, r)
		}
	}
	if got[0].Records[0].ReceiptHandle == got[1].Records[0].ReceiptHandle {
		t.Error("the second receive reused the first receipt handle")
	}
}

// TestESMConcurrentPollers checks that pollers receive and invoke at once:
// four single-message batches of four groups, each taking 400 ms, all run
// together.
func TestESMConcurrentPollers(t *testing.T) {
	client, es := esmQueue(t, 1)
	var running, peak atomic.Int32
	fn := &scriptedFunction{respond: func(context.Context, events.SQSEvent) ([]byte, error) {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(400 * time.Millisecond)
		running.Add(-1)
		return nil, nil
	}}
	m := runESM(t, client, es, 4, fn)
	time.Sleep(200 * time.Millisecond) // let the pollers start their long polls
	sendToGroups(t, client, es.QueueURL, []string{"g1", "g2", "g3", "g4"}, func(body string) string { return body })
	awstest.WaitFor(t, "all deleted", 10*time.Second, func() bool { return m.stats.deleted.Load() == 4 })
	eq(t, "invocations at once", peak.Load(), int32(4))
}

// TestESMGroupOrderUnderConcurrency runs 4 pollers over 20 groups of 5
// messages with a function that fails about one record in five on its
// first delivery (failing the rest of its group in the batch, all with a
// 1 s backoff set by ChangeMessageVisibility, as the runner does). Every
// message must succeed exactly once, each group in send order, and no two
// invocations may hold messages of one group at the same time.
func TestESMGroupOrderUnderConcurrency(t *testing.T) {
	const groups, perGroup = 20, 5
	client, es := esmQueue(t, 10)
	var (
		mu         sync.Mutex
		active     = map[string]bool{}
		next       = map[string]int{}
		succeeded  int
		violations []string
	)
	fn := &scriptedFunction{respond: func(ctx context.Context, ev events.SQSEvent) ([]byte, error) {
		mu.Lock()
		mine := map[string]bool{}
		for _, r := range ev.Records {
			g := r.Attributes["MessageGroupId"]
			if active[g] && !mine[g] {
				violations = append(violations, fmt.Sprintf("%s delivered while group %s is being processed", r.Body, g))
			}
			active[g], mine[g] = true, true
		}
		mu.Unlock()
		time.Sleep(time.Duration(mathrand.IntN(30)) * time.Millisecond)
		var resp events.SQSEventResponse
		var retry []sqstypes.ChangeMessageVisibilityBatchRequestEntry
		failedGroup := map[string]bool{}
		mu.Lock()
		for _, r := range ev.Records {
			g := r.Attributes["MessageGroupId"]
			if failedGroup[g] || r.Attributes["ApproximateReceiveCount"] == "1" && mathrand.IntN(5) == 0 {
				failedGroup[g] = true
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
				retry = append(retry, sqstypes.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(len(retry))), ReceiptHandle: aws.String(r.ReceiptHandle), VisibilityTimeout: 1})
				continue
			}
			_, idx, _ := strings.Cut(r.Body, "-")
			if n, _ := strconv.Atoi(idx); n != next[g] {
				violations = append(violations, fmt.Sprintf("group %s: message %d succeeded, want %d", g, n, next[g]))
			} else {
				next[g]++
			}
			succeeded++
		}
		// Give the groups up before answering: their messages stay in
		// flight until the esm deletes them or the backoff below ends.
		for g := range mine {
			delete(active, g)
		}
		mu.Unlock()
		if len(retry) > 0 {
			if _, err := client.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(es.QueueURL), Entries: retry}); err != nil {
				return nil, err
			}
		}
		return json.Marshal(resp)
	}}
	m := runESM(t, client, es, 4, fn)
	var bodies []string
	for n := range perGroup {
		for g := range groups {
			bodies = append(bodies, fmt.Sprintf("%02d-%d", g, n))
		}
	}
	sendToGroups(t, client, es.QueueURL, bodies, func(body string) string { return "g" + body[:2] })
	awstest.WaitFor(t, "every message deleted", 30*time.Second, func() bool { return m.stats.deleted.Load() == groups*perGroup })
	mu.Lock()
	defer mu.Unlock()
	for _, v := range violations[:min(len(violations), 10)] {
		t.Error(v)
	}
	eq(t, "violations", len(violations), 0)
	eq(t, "succeeded", succeeded, groups*perGroup)
	s := m.stats.snapshot()
	if s.ItemFailures == 0 {
		t.Error("no record failed: the test did not exercise retries")
	}
	t.Logf("stats: %+v", s)
}

func TestDeleteFailures(t *testing.T) {
	entry := func(id, code string) sqstypes.BatchResultErrorEntry {
		return sqstypes.BatchResultErrorEntry{Id: aws.String(id), Code: aws.String(code), SenderFault: true}
	}
	tests := []struct {
		name       string
		in         []sqstypes.BatchResultErrorEntry
		wantGone   int
		wantFailed []string
	}{
		{name: "none"},
		{name: "deleted by the function", in: []sqstypes.BatchResultErrorEntry{entry("0", "ReceiptHandleIsInvalid"), entry("1", "MessageNotInflight")}, wantGone: 2},
		{name: "a real failure is kept", in: []sqstypes.BatchResultErrorEntry{entry("0", "ReceiptHandleIsInvalid"), entry("1", "InternalError")}, wantGone: 1, wantFailed: []string{"1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gone, failed := deleteFailures(tt.in)
			var ids []string
			for _, f := range failed {
				ids = append(ids, aws.ToString(f.Id))
			}
			eq(t, "gone", gone, tt.wantGone)
			eq(t, "failed", ids, tt.wantFailed)
		})
	}
}

// TestESMFunctionDeletesEarly: a batch holds group g's first message and
// a slow message of group s. The mapping deletes g's message only when
// the invocation returns, so g's second message waits for s, unless the
// function deleted g's message itself (per-record completion): then g's
// second message is delivered, to another poller, while the first
// invocation still runs. The mapping's own delete of the message the
// function deleted is no error.
func TestESMFunctionDeletesEarly(t *testing.T) {
	const slow = 2 * time.Second
	tests := []struct {
		name       string
		selfDelete bool
		// wantBefore: g's second message is delivered before the slow
		// invocation returns.
		wantBefore bool
	}{
		{name: "left to the mapping: held until the invocation returns"},
		{name: "deleted by the function: delivered at once", selfDelete: true, wantBefore: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client, es := esmQueue(t, 10)
			var slowReturned, secondAt atomic.Int64 // unix nanoseconds
			fn := &scriptedFunction{}
			fn.respond = func(ctx context.Context, ev events.SQSEvent) ([]byte, error) {
				for _, r := range ev.Records {
					switch {
					case r.Body == "g-2":
						secondAt.Store(time.Now().UnixNano())
					case r.Body == "g-1" && tt.selfDelete:
						if _, err := client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(es.QueueURL), ReceiptHandle: aws.String(r.ReceiptHandle)}); err != nil {
							return nil, err
						}
					}
				}
				if slices.ContainsFunc(ev.Records, func(r events.SQSMessage) bool { return r.Body == "s-1" }) {
					time.Sleep(slow)
					slowReturned.Store(time.Now().UnixNano())
				}
				return []byte("null"), nil
			}
			// Both first messages are queued before the pollers start,
			// so they share one batch.
			sendToGroups(t, client, es.QueueURL, []string{"g-1", "s-1"}, func(body string) string { return body[:1] })
			var logs logLines
			m := New(es, client, fn.invoke, "us-east-1", time.Second, logs.logf)
			stopPollers := startPollers(m, 2)
			t.Cleanup(stopPollers)
			awstest.WaitFor(t, "the first batch", 5*time.Second, func() bool { return len(fn.received()) >= 1 })
			eq(t, "first batch size", len(fn.received()[0].Records), 2)
			sendToGroups(t, client, es.QueueURL, []string{"g-2"}, func(body string) string { return body[:1] })
			awstest.WaitFor(t, "every message deleted", 10*time.Second, func() bool { return m.stats.deleted.Load()+m.stats.gone.Load() >= 3 })
			if before := secondAt.Load() < slowReturned.Load(); before != tt.wantBefore {
				t.Errorf("g's second message delivered %s the slow invocation returned; want before: %v",
					map[bool]string{true: "before", false: "after"}[before], tt.wantBefore)
			}
			stopPollers()
			eq(t, "mapping errors", logs.lines(), []string(nil))
			visible, inFlight := queueCounts(t, client, es.QueueURL)
			eq(t, "left", visible+"/"+inFlight, "0/0")
		})
	}
}

// logLines collects a Mapping's log lines.
type logLines struct {
	mu  sync.Mutex
	all []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, fmt.Sprintf(format, args...))
}

func (l *logLines) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.all)
}

// startPollers runs n pollers of m; the returned stop ends them and
// waits (safe to call twice).
func startPollers(m *Mapping, n int) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { m.Poll(ctx) })
	}
	return func() { cancel(); wg.Wait() }
}
