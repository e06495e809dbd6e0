package sqsqueue

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
)

// dlqFill sends msgs straight to the dead-letter queue, in order, the way
// the redrive policy leaves them there: in their session's group, under
// their own deduplication id.
func dlqFill(t *testing.T, q testQueue, msgs ...inbound.Message) {
	t.Helper()
	for _, m := range msgs {
		body, err := encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := testClient.SendMessage(context.Background(), &sqs.SendMessageInput{
			QueueUrl: aws.String(q.dlqURL), MessageBody: aws.String(string(body)),
			MessageGroupId: aws.String(m.QueueGroup()), MessageDeduplicationId: aws.String(m.QueueDedup()),
		}); err != nil {
			t.Fatalf("send %s to the DLQ: %v", m.ID, err)
		}
	}
}

// dlqDrain receives everything on the queue at url, deleting as it goes,
// and returns the inbound ids per session key in the order received. Each
// message must carry a redrive's deduplication id.
func dlqDrain(t *testing.T, url string) map[string][]string {
	t.Helper()
	ctx := context.Background()
	got := map[string][]string{}
	for {
		out, err := testClient.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(url), MaxNumberOfMessages: 10, VisibilityTimeout: 30, WaitTimeSeconds: 1,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameMessageDeduplicationId},
		})
		if err != nil {
			t.Fatalf("receive from %s: %v", url, err)
		}
		if len(out.Messages) == 0 {
			return got
		}
		for _, m := range out.Messages {
			msg, err := inbound.Decode([]byte(aws.ToString(m.Body)))
			if err != nil {
				t.Fatalf("body %q: %v", aws.ToString(m.Body), err)
			}
			got[msg.SessionKey] = append(got[msg.SessionKey], msg.ID)
			if dedup := m.Attributes[string(types.MessageSystemAttributeNameMessageDeduplicationId)]; !strings.HasPrefix(dedup, msg.QueueDedup()+"#redrive-") {
				t.Errorf("%s arrived with deduplication id %q; want %s#redrive-<SQS message id>", msg.ID, dedup, msg.QueueDedup())
			}
			if _, err := testClient.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// dlqIDs groups msgs' ids by session, in order.
func dlqIDs(msgs ...inbound.Message) map[string][]string {
	want := map[string][]string{}
	for _, m := range msgs {
		want[m.SessionKey] = append(want[m.SessionKey], m.ID)
	}
	return want
}

func dlqDepth(t *testing.T, d *DLQ) Depth {
	t.Helper()
	depth, err := d.Depth(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Counts (the gateway's port) reads the same numbers.
	visible, inFlight, err := d.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if visible != depth.Visible || inFlight != depth.InFlight {
		t.Errorf("Counts = %d, %d; Depth = %+v", visible, inFlight, depth)
	}
	return depth
}

func TestDLQOf(t *testing.T) {
	q := newQueues(t, 30, 5)
	d, err := DeadLetterQueueOf(context.Background(), testClient, q.url)
	if err != nil {
		t.Fatal(err)
	}
	if d.URL() != q.dlqURL {
		t.Errorf("dead-letter queue of the work queue = %s; want %s", d.URL(), q.dlqURL)
	}
	// The DLQ itself has no redrive policy.
	if _, err := DeadLetterQueueOf(context.Background(), testClient, q.dlqURL); !fault.Is(err, fault.Invalid) || !strings.Contains(err.Error(), "no dead-letter queue") {
		t.Errorf("dead-letter queue of a queue without one: %v; want fault.Invalid naming it", err)
	}
}

func TestDLQPeek(t *testing.T) {
	ctx := context.Background()
	q := newQueues(t, 30, 5)
	d := NewDLQ(testClient, q.dlqURL)
	run := awstest.Suffix()
	a1, a2, b1 := message(run, "A", 1), message(run, "A", 2), message(run, "B", 1)
	before := time.Now()
	dlqFill(t, q, a1, a2, b1)
	// A malformed body: the poison message that never decodes.
	if _, err := testClient.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl: aws.String(q.dlqURL), MessageBody: aws.String("{not json"),
		MessageGroupId: aws.String("poison-" + run), MessageDeduplicationId: aws.String("poison-" + run),
	}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name         string
		limit        int
		wantN        int
		wantReceives int // receives before the look: the earlier looks
	}{
		{name: "all", limit: 0, wantN: 4, wantReceives: 0},
		{name: "again: nothing was taken, each look counts", limit: 100, wantN: 4, wantReceives: 1},
		{name: "limit", limit: 2, wantN: 2, wantReceives: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			letters, err := d.Peek(ctx, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(letters) != tt.wantN {
				t.Fatalf("Peek(%d) returned %d letters; want %d: %+v", tt.limit, len(letters), tt.wantN, letters)
			}
			sessions := map[string][]string{}
			for _, l := range letters {
				if l.SentAt.Before(before.Add(-time.Second)) || l.SentAt.After(time.Now().Add(time.Second)) {
					t.Errorf("%s: SentAt %v is not when it was sent (after %v)", l.SQSMessageID, l.SentAt, before)
				}
				if l.ReceiveCount != tt.wantReceives {
					t.Errorf("%s: ReceiveCount %d; want %d", l.SQSMessageID, l.ReceiveCount, tt.wantReceives)
				}
				if l.DecodeError != "" {
					if l.Group != "poison-"+run || !strings.Contains(l.DecodeError, "malformed JSON") {
						t.Errorf("poison letter: group %q, decode error %q", l.Group, l.DecodeError)
					}
					continue
				}
				if l.Group != l.Message.QueueGroup() {
					t.Errorf("%s: group %q; want the session's %q", l.Message.ID, l.Group, l.Message.QueueGroup())
				}
				sessions[l.Message.SessionKey] = append(sessions[l.Message.SessionKey], l.Message.ID)
			}
			if tt.limit == 0 && !equalGroups(sessions, dlqIDs(a1, a2, b1)) {
				t.Errorf("sessions %v; want %v, each in order", sessions, dlqIDs(a1, a2, b1))
			}
			// Peek gave everything back at once: all of it is visible.
			if got := dlqDepth(t, d); got != (Depth{Visible: 4}) {
				t.Errorf("depth after Peek = %+v; want 4 visible, none in flight", got)
			}
		})
	}
}

// TestDLQPeekAfterRedrivePolicy follows a message that failed maxReceive
// times on the work queue into the DLQ, through SQS's own redrive policy.
func TestDLQPeekAfterRedrivePolicy(t *testing.T) {
	ctx := context.Background()
	q := newQueues(t, 1, 2)
	m := message(awstest.Suffix(), "P", 1)
	if err := New(testClient, q.url).Enqueue(ctx, m); err != nil {
		t.Fatal(err)
	}
	d := NewDLQ(testClient, q.dlqURL)
	deadline := time.Now().Add(20 * time.Second)
	for dlqDepth(t, d).Visible == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the message never reached the DLQ")
		}
		// Receive and never delete: a failed attempt.
		if _, err := testClient.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.url), VisibilityTimeout: 1, WaitTimeSeconds: 1}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1100 * time.Millisecond)
	}
	letters, err := d.Peek(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(letters) != 1 || letters[0].Message.ID != m.ID || letters[0].Message.SessionKey != m.SessionKey {
		t.Fatalf("Peek = %+v; want the one dead message %s", letters, m.ID)
	}
	if letters[0].ReceiveCount < 2 {
		t.Errorf("ReceiveCount %d; want at least maxReceiveCount 2", letters[0].ReceiveCount)
	}
}

// equalGroups compares per-session id lists.
func equalGroups(got, want map[string][]string) bool {
	if len(got) != len(want) {
		return false
	}
	for k, w := range want {
		if !slices.Equal(got[k], w) {
			return false
		}
	}
	return true
}

func TestDLQRedrive(t *testing.T) {
	tests := []struct {
		name   string
		method RedriveMethod
	}{
		// moto has no StartMessageMoveTask: auto falls back to resending.
		{name: "auto falls back to resend", method: RedriveAuto},
		{name: "resend", method: RedriveResend},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			q := newQueues(t, 30, 5)
			d := NewDLQ(testClient, q.dlqURL)
			run := awstest.Suffix()
			// Interleaved, more than one receive's worth.
			var sent []inbound.Message
			for seq := 1; seq <= 4; seq++ {
				for _, s := range []string{"A", "B", "C"} {
					sent = append(sent, message(run, s, seq))
				}
			}
			dlqFill(t, q, sent...)

			res, err := d.Redrive(ctx, RedriveOptions{Method: tt.method, SourceURL: q.url})
			if err != nil {
				t.Fatal(err)
			}
			if res.Method != RedriveResend || res.Moved != len(sent) {
				t.Errorf("Redrive = %+v; want %d moved by resend", res, len(sent))
			}
			if got := dlqDepth(t, d); got != (Depth{}) {
				t.Errorf("DLQ depth after redrive = %+v; want empty", got)
			}
			again, err := d.Redrive(ctx, RedriveOptions{Method: tt.method, SourceURL: q.url})
			if err != nil || again.Moved != 0 {
				t.Errorf("second Redrive = %+v, %v; want nothing moved", again, err)
			}
			if got, want := dlqDrain(t, q.url), dlqIDs(sent...); !equalGroups(got, want) {
				t.Errorf("work queue holds %v; want %v, each session in order, each once", got, want)
			}
		})
	}
}

func TestDLQRedriveLimitKeepsOrder(t *testing.T) {
	ctx := context.Background()
	q := newQueues(t, 30, 5)
	d := NewDLQ(testClient, q.dlqURL)
	run := awstest.Suffix()
	sent := []inbound.Message{message(run, "A", 1), message(run, "A", 2), message(run, "A", 3), message(run, "B", 1)}
	dlqFill(t, q, sent...)
	first, err := d.Redrive(ctx, RedriveOptions{Method: RedriveResend, SourceURL: q.url, Limit: 2})
	if err != nil || first.Moved != 2 {
		t.Fatalf("Redrive with limit 2 = %+v, %v; want 2 moved", first, err)
	}
	if got := dlqDepth(t, d); got.Visible != 2 || got.InFlight != 0 {
		t.Errorf("DLQ depth after the limited redrive = %+v; want 2 visible", got)
	}
	rest, err := d.Redrive(ctx, RedriveOptions{Method: RedriveResend, SourceURL: q.url})
	if err != nil || rest.Moved != 2 {
		t.Fatalf("second Redrive = %+v, %v; want the other 2", rest, err)
	}
	if got, want := dlqDrain(t, q.url), dlqIDs(sent...); !equalGroups(got, want) {
		t.Errorf("work queue holds %v; want %v", got, want)
	}
}

func TestDLQRedriveFailedSendKeepsTheMessages(t *testing.T) {
	ctx := context.Background()
	q := newQueues(t, 30, 5)
	d := NewDLQ(testClient, q.dlqURL)
	run := awstest.Suffix()
	dlqFill(t, q, message(run, "A", 1), message(run, "A", 2))
	gone := strings.TrimSuffix(q.url, ".fifo") + "-gone.fifo"
	res, err := d.Redrive(ctx, RedriveOptions{Method: RedriveResend, TargetURL: gone})
	if err == nil || res.Moved != 0 {
		t.Fatalf("Redrive to a missing queue = %+v, %v; want an error and nothing moved", res, err)
	}
	// Nothing was deleted, and what was received is visible again at once.
	if got := dlqDepth(t, d); got != (Depth{Visible: 2}) {
		t.Errorf("DLQ depth after the failed redrive = %+v; want both still visible", got)
	}
}

func TestDLQRedriveMoveTaskUnsupported(t *testing.T) {
	q := newQueues(t, 30, 5)
	d := NewDLQ(testClient, q.dlqURL)
	dlqFill(t, q, message(awstest.Suffix(), "A", 1))
	res, err := d.Redrive(context.Background(), RedriveOptions{Method: RedriveMoveTask})
	if !errors.Is(err, errNoMoveTask) || !fault.Is(err, fault.Invalid) {
		t.Fatalf("move task on moto: %+v, %v; want errNoMoveTask, fault.Invalid", res, err)
	}
	if got := dlqDepth(t, d); got != (Depth{Visible: 1}) {
		t.Errorf("DLQ depth = %+v; want the message untouched", got)
	}
}

func TestDLQRedriveTarget(t *testing.T) {
	ctx := context.Background()
	q := newQueues(t, 30, 5)
	other := newQueues(t, 30, 5)
	run := awstest.Suffix()
	tests := []struct {
		name      string
		dlqURL    string
		opts      RedriveOptions
		wantQueue string // "" wants an error
	}{
		{name: "the source queue SQS names", dlqURL: q.dlqURL, opts: RedriveOptions{Method: RedriveResend}, wantQueue: q.url},
		{name: "the work queue given", dlqURL: q.dlqURL, opts: RedriveOptions{Method: RedriveResend, SourceURL: q.url}, wantQueue: q.url},
		{name: "another target wins", dlqURL: q.dlqURL, opts: RedriveOptions{Method: RedriveResend, SourceURL: q.url, TargetURL: other.url}, wantQueue: other.url},
		// No queue names other's work queue as its dead-letter queue.
		{name: "no source known", dlqURL: other.url, opts: RedriveOptions{Method: RedriveResend}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := message(run, "T", i)
			dlqFill(t, testQueue{dlqURL: tt.dlqURL}, m)
			res, err := NewDLQ(testClient, tt.dlqURL).Redrive(ctx, tt.opts)
			if tt.wantQueue == "" {
				if !fault.Is(err, fault.Invalid) || !strings.Contains(err.Error(), "needs the work queue") {
					t.Fatalf("Redrive = %+v, %v; want fault.Invalid asking for the work queue", res, err)
				}
				if _, err := testClient.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(tt.dlqURL)}); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err != nil || res.Moved != 1 || res.Target != tt.wantQueue {
				t.Fatalf("Redrive = %+v, %v; want 1 moved to %s", res, err, tt.wantQueue)
			}
			if got, want := dlqDrain(t, tt.wantQueue), dlqIDs(m); !equalGroups(got, want) {
				t.Errorf("%s holds %v; want %v", tt.wantQueue, got, want)
			}
		})
	}
}

func TestMoveTaskUnsupported(t *testing.T) {
	// response builds the error the SDK returns for an HTTP status, with
	// an AWS error code when code is not "".
	response := func(status int, code string) error {
		var inner error = errors.New("deserialization failed, invalid character '<'")
		if code != "" {
			inner = &smithy.GenericAPIError{Code: code, Message: "m"}
		}
		return &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
			Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}}, Err: inner,
		}}
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{name: "moto: HTML 500", err: response(500, ""), want: true},
		{name: "no such route", err: response(404, ""), want: true},
		{name: "not implemented", err: response(501, ""), want: true},
		{name: "unknown action code", err: response(400, "InvalidAction"), want: true},
		{name: "SQS internal error", err: response(500, "InternalError"), want: false},
		{name: "unsupported for this queue", err: response(400, "AWS.SimpleQueueService.UnsupportedOperation"), want: false},
		{name: "no such queue", err: response(400, "ResourceNotFoundException"), want: false},
		{name: "throttled", err: response(400, "RequestThrottled"), want: false},
		{name: "network", err: errors.New("dial tcp: connection refused"), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := moveTaskUnknown(tt.err); got != tt.want {
				t.Errorf("moveTaskUnknown(%v) = %v; want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestRedriveDedup(t *testing.T) {
	long := strings.Repeat("d", 128)
	tests := []struct {
		name     string
		original string
		id       string
		want     string // "" checks the hashed form
	}{
		{name: "fits", original: "telegram:1:42", id: "m-1", want: "telegram:1:42#redrive-m-1"},
		{name: "too long is hashed", original: long, id: "m-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RedriveDedup(tt.original, tt.id)
			if tt.want != "" && got != tt.want {
				t.Errorf("RedriveDedup = %q; want %q", got, tt.want)
			}
			if len(got) > 128 || !fitsSQSID(got) {
				t.Errorf("RedriveDedup = %q: not a valid SQS deduplication id", got)
			}
			if got == tt.original || got != RedriveDedup(tt.original, tt.id) || got == RedriveDedup(tt.original, tt.id+"x") {
				t.Errorf("RedriveDedup(%q, %q) = %q: want new, stable and distinct per dead letter", tt.original, tt.id, got)
			}
		})
	}
}

func fitsSQSID(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '!' || s[i] > '~' {
			return false
		}
	}
	return s != ""
}
