package emulator_test

// These tests pin down the FIFO queue guarantees the local stack relies on
// (see motoLauncher): receive cost independent of queue depth, strict
// per-group order with in-flight blocking under concurrent receivers, and
// in-order redelivery of messages released together. They use only
// standard SQS calls, so they hold on AWS and LocalStack as well.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/zero-gateway/zero/shared/emulator"
)

var (
	client *sqs.Client
	ddb    *dynamodb.Client
	// run namespaces queue names: a borrowed emulator is shared.
	run = strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
)

func TestMain(m *testing.M) {
	os.Exit(emulator.RunTests(m, nil, func(ctx context.Context, cfg aws.Config) (func(), error) {
		client = sqs.NewFromConfig(cfg)
		ddb = dynamodb.NewFromConfig(cfg)
		return nil, nil
	}))
}

// newFIFO creates a FIFO queue for one test and deletes it afterwards.
// redriveTo, when set, is the ARN of its dead-letter queue.
func newFIFO(t *testing.T, name string, visibility int, redriveTo string, maxReceives int) (url, arn string) {
	t.Helper()
	ctx := context.Background()
	attrs := map[string]string{"FifoQueue": "true", "VisibilityTimeout": strconv.Itoa(visibility)}
	if redriveTo != "" {
		attrs["RedrivePolicy"] = fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":%d}`, redriveTo, maxReceives)
	}
	out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("emu-" + name + "-" + run + ".fifo"), Attributes: attrs})
	if err != nil {
		t.Fatal(err)
	}
	url = aws.ToString(out.QueueUrl)
	t.Cleanup(func() {
		_, _ = client.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(url)})
	})
	got, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatal(err)
	}
	return url, got.Attributes["QueueArn"]
}

// sendAll sends bodies to url, each with its group (group(i)) and a
// deduplication id of its own, ten to a call, in order.
func sendAll(t *testing.T, url string, bodies []string, group func(i int) string) {
	t.Helper()
	for start := 0; start < len(bodies); start += 10 {
		var entries []sqstypes.SendMessageBatchRequestEntry
		for i := start; i < min(start+10, len(bodies)); i++ {
			entries = append(entries, sqstypes.SendMessageBatchRequestEntry{
				Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(bodies[i]),
				MessageGroupId: aws.String(group(i)), MessageDeduplicationId: aws.String(bodies[i]),
			})
		}
		out, err := client.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
		if err != nil || len(out.Failed) > 0 {
			t.Fatalf("send: %v %+v", err, out)
		}
	}
}

func receive(t *testing.T, url string, wait, visibility int32) []sqstypes.Message {
	t.Helper()
	return receiveUpTo(t, url, 10, wait, visibility)
}

func receiveUpTo(t *testing.T, url string, max, wait, visibility int32) []sqstypes.Message {
	t.Helper()
	out, err := client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(url), MaxNumberOfMessages: max, WaitTimeSeconds: wait, VisibilityTimeout: visibility,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Messages
}

func deleteAll(t *testing.T, url string, msgs []sqstypes.Message) {
	t.Helper()
	if len(msgs) == 0 {
		return
	}
	entries := make([]sqstypes.DeleteMessageBatchRequestEntry, len(msgs))
	for i, m := range msgs {
		entries[i] = sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle}
	}
	out, err := client.DeleteMessageBatch(context.Background(), &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
	if err != nil || len(out.Failed) > 0 {
		t.Fatalf("delete: %v %+v", err, out)
	}
}

func bodies(msgs []sqstypes.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, aws.ToString(m.Body))
	}
	return out
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestFIFOCostIndependentOfDepth measures ReceiveMessage (ten messages
// returned each time) and SendMessage on FIFO queues holding about 10 and
// 800 messages (100 groups), sampling the queues alternately so background
// load hits both alike. The deep queue may cost a little more, not a
// multiple: unpatched moto 5.2.1 took about 25x longer to receive there.
func TestFIFOCostIndependentOfDepth(t *testing.T) {
	const samples = 15
	type depth struct {
		n             int
		url           string
		recv, send    []time.Duration
		sent, deleted int
	}
	depths := []*depth{{n: 10}, {n: 200}, {n: 800}}
	for _, d := range depths {
		d.url, _ = newFIFO(t, "depth"+strconv.Itoa(d.n), 60, "", 0)
		var bs []string
		for i := range d.n {
			bs = append(bs, fmt.Sprintf("d%d-%d", d.n, i))
		}
		sendAll(t, d.url, bs, func(i int) string { return "g" + strconv.Itoa(i%100) })
		d.sent = d.n
	}
	ctx := context.Background()
	for range samples {
		for _, d := range depths {
			start := time.Now()
			msgs := receive(t, d.url, 0, 60)
			d.recv = append(d.recv, time.Since(start))
			if len(msgs) != 10 {
				t.Fatalf("depth %d: received %d messages, want 10", d.n, len(msgs))
			}
			deleteAll(t, d.url, msgs)
			// Refill to keep the depth, timing each send.
			for _, m := range msgs {
				start := time.Now()
				_, err := client.SendMessage(ctx, &sqs.SendMessageInput{
					QueueUrl: aws.String(d.url), MessageBody: aws.String(fmt.Sprintf("d%d-%d", d.n, d.sent)),
					MessageGroupId: aws.String(m.Attributes["MessageGroupId"]), MessageDeduplicationId: aws.String(fmt.Sprintf("d%d-%d", d.n, d.sent)),
				})
				d.send = append(d.send, time.Since(start))
				if err != nil {
					t.Fatal(err)
				}
				d.sent++
			}
		}
	}
	for _, d := range depths {
		t.Logf("depth %4d: ReceiveMessage median %v, SendMessage median %v", d.n, median(d.recv), median(d.send))
	}
	shallow, deep := depths[0], depths[len(depths)-1]
	tests := []struct {
		name          string
		shallow, deep time.Duration
		maxRatio      float64
	}{
		{name: "ReceiveMessage", shallow: median(shallow.recv), deep: median(deep.recv), maxRatio: 3},
		{name: "SendMessage", shallow: median(shallow.send), deep: median(deep.send), maxRatio: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ratio := float64(tt.deep) / float64(tt.shallow); ratio >= tt.maxRatio {
				t.Errorf("median at depth %d is %.1fx that at depth %d (%v vs %v), want < %.0fx", deep.n, ratio, shallow.n, tt.deep, tt.shallow, tt.maxRatio)
			}
		})
	}
}

// TestFIFOGroupOrderUnderConcurrentReceivers runs 8 receivers against 50
// groups of 10 messages. Each group's messages must arrive oldest first,
// each exactly once, with strictly increasing sequence numbers, and never
// while another receive call holds a message of the same group.
func TestFIFOGroupOrderUnderConcurrentReceivers(t *testing.T) {
	const groups, perGroup, receivers = 50, 10, 8
	url, _ := newFIFO(t, "order", 30, "", 0)
	var bs []string
	for seq := range perGroup {
		for g := range groups {
			bs = append(bs, fmt.Sprintf("g%02d-%02d", g, seq))
		}
	}
	sendAll(t, url, bs, func(i int) string { return strings.Split(bs[i], "-")[0] })

	var (
		mu         sync.Mutex
		next       = map[string]int{}    // group -> index of the message it must deliver next
		lastSeq    = map[string]string{} // group -> SequenceNumber of its last message
		holder     = map[string]int{}    // group -> receive call holding it in flight
		seen       int
		violations []string
		calls      int
	)
	fail := func(format string, args ...any) { violations = append(violations, fmt.Sprintf(format, args...)) }
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for range receivers {
		wg.Go(func() {
			for ctx.Err() == nil {
				mu.Lock()
				done := seen == groups*perGroup
				mu.Unlock()
				if done {
					return
				}
				out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
					QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1,
					MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
				})
				if err != nil {
					if ctx.Err() == nil {
						t.Error(err)
					}
					return
				}
				mu.Lock()
				calls++
				call := calls
				mine := map[string]bool{}
				for _, m := range out.Messages {
					body := aws.ToString(m.Body)
					g, idx, _ := strings.Cut(body, "-")
					n, _ := strconv.Atoi(idx)
					if h, ok := holder[g]; ok && h != call {
						fail("%s delivered while call %d holds group %s", body, h, g)
					}
					holder[g], mine[g] = call, true
					if n != next[g] {
						fail("group %s: got message %d, want %d", g, n, next[g])
					}
					next[g] = n + 1
					if rc := m.Attributes["ApproximateReceiveCount"]; rc != "1" {
						fail("%s: ApproximateReceiveCount %s, want 1", body, rc)
					}
					seq := m.Attributes["SequenceNumber"]
					if prev := lastSeq[g]; prev != "" && (len(seq) < len(prev) || len(seq) == len(prev) && seq <= prev) {
						fail("%s: SequenceNumber %s not after %s", body, seq, prev)
					}
					lastSeq[g] = seq
					seen++
				}
				mu.Unlock()
				time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
				// Give the groups up before deleting: once the delete is
				// done another receiver may rightly get their next message.
				mu.Lock()
				for g := range mine {
					delete(holder, g)
				}
				mu.Unlock()
				deleteAll(t, url, out.Messages)
			}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("only %d of %d messages received in time", seen, groups*perGroup)
	}
	for _, v := range violations[:min(len(violations), 10)] {
		t.Error(v)
	}
	if len(violations) > 0 {
		t.Errorf("%d violations", len(violations))
	}
	if seen != groups*perGroup {
		t.Errorf("received %d messages, want %d", seen, groups*perGroup)
	}
	t.Logf("%d receive calls", calls)
}

// TestFIFOReleasedTogetherComeBackInOrder receives a group's five messages
// in one call, makes them visible again in various ways, and expects them
// back oldest first, as one group: a message made visible while others of
// its group are still in flight must wait for them.
func TestFIFOReleasedTogetherComeBackInOrder(t *testing.T) {
	tests := []struct {
		name string
		// order lists message indexes in the order they are released.
		order []int
		// oneByOne releases each with its own ChangeMessageVisibility
		// call instead of one batch call.
		oneByOne bool
		// headFirst makes message 0 visible first while the rest stay in
		// flight, checks the group stays blocked, then releases the rest.
		headFirst bool
	}{
		{name: "batch call in send order", order: []int{0, 1, 2, 3, 4}},
		{name: "batch call in reverse order", order: []int{4, 3, 2, 1, 0}},
		{name: "one call each, newest first", order: []int{4, 3, 2, 1, 0}, oneByOne: true},
		{name: "head released while the rest are in flight", order: []int{1, 2, 3, 4}, headFirst: true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			url, _ := newFIFO(t, "release"+strconv.Itoa(i), 30, "", 0)
			var want []string
			for n := range 5 {
				want = append(want, fmt.Sprintf("c%d-m%d", i, n))
			}
			sendAll(t, url, want, func(int) string { return "g" })
			msgs := receive(t, url, 2, 30)
			if got := bodies(msgs); !slices.Equal(got, want) {
				t.Fatalf("first receive = %v, want %v", got, want)
			}
			const timeout = 1
			release := func(idx []int, timeout int32) {
				if tt.oneByOne {
					for _, n := range idx {
						if _, err := client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url), ReceiptHandle: msgs[n].ReceiptHandle, VisibilityTimeout: timeout}); err != nil {
							t.Fatal(err)
						}
					}
					return
				}
				var entries []sqstypes.ChangeMessageVisibilityBatchRequestEntry
				for _, n := range idx {
					entries = append(entries, sqstypes.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(n)), ReceiptHandle: msgs[n].ReceiptHandle, VisibilityTimeout: timeout})
				}
				out, err := client.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(url), Entries: entries})
				if err != nil || len(out.Failed) > 0 {
					t.Fatalf("change visibility: %v %+v", err, out)
				}
			}
			if tt.headFirst {
				release([]int{0}, 0)
				if got := receive(t, url, 1, 30); len(got) > 0 {
					t.Fatalf("received %v while messages 1-4 of the group are in flight", bodies(got))
				}
			}
			release(tt.order, timeout)
			if got := receive(t, url, 0, 30); len(got) > 0 {
				t.Fatalf("received %v before the visibility timeout ended", bodies(got))
			}
			var again []sqstypes.Message
			deadline := time.Now().Add(10 * time.Second)
			for len(again) < len(want) && time.Now().Before(deadline) {
				again = append(again, receive(t, url, 2, 30)...)
			}
			if got := bodies(again); !slices.Equal(got, want) {
				t.Fatalf("after release = %v, want %v", got, want)
			}
			for _, m := range again {
				if rc := m.Attributes["ApproximateReceiveCount"]; rc != "2" {
					t.Errorf("%s: ApproximateReceiveCount %s, want 2", aws.ToString(m.Body), rc)
				}
			}
		})
	}
}

// TestFIFOSemanticsKept checks what the launcher must not change:
// deduplication, redrive to the dead-letter queue after maxReceiveCount
// receives (the next message of the group follows), and the system
// attributes of a received message.
func TestFIFOSemanticsKept(t *testing.T) {
	ctx := context.Background()
	t.Run("deduplication", func(t *testing.T) {
		url, _ := newFIFO(t, "dedup", 30, "", 0)
		for range 2 {
			if _, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("x"), MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("same")}); err != nil {
				t.Fatal(err)
			}
		}
		got := receive(t, url, 1, 30)
		if len(got) != 1 {
			t.Fatalf("received %v, want one message", bodies(got))
		}
	})
	t.Run("redrive after maxReceiveCount", func(t *testing.T) {
		dlq, dlqARN := newFIFO(t, "dlq", 30, "", 0)
		url, _ := newFIFO(t, "redrive", 30, dlqARN, 2)
		sendAll(t, url, []string{"poison", "next"}, func(int) string { return "g" })
		for attempt := 1; attempt <= 2; attempt++ {
			msgs := receiveUpTo(t, url, 1, 1, 30)
			if len(msgs) == 0 || aws.ToString(msgs[0].Body) != "poison" {
				t.Fatalf("attempt %d: received %v, want poison first", attempt, bodies(msgs))
			}
			for _, m := range msgs {
				if _, err := client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if got := bodies(receive(t, url, 1, 30)); !slices.Equal(got, []string{"next"}) {
			t.Errorf("after two receives = %v, want [next]", got)
		}
		if got := bodies(receive(t, dlq, 5, 30)); !slices.Equal(got, []string{"poison"}) {
			t.Errorf("dead-letter queue holds %v, want [poison]", got)
		}
	})
	t.Run("system attributes", func(t *testing.T) {
		url, _ := newFIFO(t, "attrs", 30, "", 0)
		before := time.Now().Add(-time.Second).UnixMilli()
		if _, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("x"), MessageGroupId: aws.String("grp"), MessageDeduplicationId: aws.String("dd")}); err != nil {
			t.Fatal(err)
		}
		msgs := receive(t, url, 1, 30)
		if len(msgs) != 1 {
			t.Fatalf("received %d messages", len(msgs))
		}
		a := msgs[0].Attributes
		sent, _ := strconv.ParseInt(a["SentTimestamp"], 10, 64)
		for _, c := range []struct {
			name string
			ok   bool
		}{
			{"MessageGroupId", a["MessageGroupId"] == "grp"},
			{"MessageDeduplicationId", a["MessageDeduplicationId"] == "dd"},
			{"ApproximateReceiveCount", a["ApproximateReceiveCount"] == "1"},
			{"SentTimestamp", sent >= before && sent <= time.Now().Add(time.Second).UnixMilli()},
			{"SequenceNumber", a["SequenceNumber"] != ""},
		} {
			if !c.ok {
				t.Errorf("attribute %s wrong: %v", c.name, a)
			}
		}
	})
}
