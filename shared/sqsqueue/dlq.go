package sqsqueue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/zero-gateway/zero/shared/awserr"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
)

// DLQ is the work queue's FIFO dead-letter queue, where a message lands
// after the redrive policy's maxReceiveCount failed receives: Peek shows
// what is there, Redrive moves it back. Safe for concurrent use, though two
// operations at once on one queue hide messages from each other (a FIFO
// message in flight blocks its group).
type DLQ struct {
	client *sqs.Client
	url    string
}

// NewDLQ returns the dead-letter queue at url.
func NewDLQ(client *sqs.Client, url string) *DLQ { return &DLQ{client: client, url: url} }

// URL is the dead-letter queue's URL.
func (d *DLQ) URL() string { return d.url }

// DeadLetterQueueOf returns the dead-letter queue the redrive policy of the
// queue at workURL names. Errors: a queue without a redrive policy is
// fault.Invalid; SQS errors are classified.
func DeadLetterQueueOf(ctx context.Context, client *sqs.Client, workURL string) (*DLQ, error) {
	out, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(workURL),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameRedrivePolicy},
	})
	if err != nil {
		return nil, classify(err, "read the redrive policy of "+workURL)
	}
	raw := out.Attributes[string(types.QueueAttributeNameRedrivePolicy)]
	var policy struct {
		DeadLetterTargetArn string `json:"deadLetterTargetArn"`
	}
	if raw == "" || json.Unmarshal([]byte(raw), &policy) != nil || policy.DeadLetterTargetArn == "" {
		return nil, fault.New(fault.Invalid, "queue %s has no dead-letter queue (no redrive policy)", workURL)
	}
	// arn:<partition>:sqs:<region>:<account>:<name>
	parts := strings.Split(policy.DeadLetterTargetArn, ":")
	if len(parts) != 6 {
		return nil, fault.New(fault.Invalid, "queue %s: malformed dead-letter queue ARN %q", workURL, policy.DeadLetterTargetArn)
	}
	got, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(parts[5]), QueueOwnerAWSAccountId: aws.String(parts[4])})
	if err != nil {
		return nil, classify(err, "find the dead-letter queue "+parts[5])
	}
	return NewDLQ(client, aws.ToString(got.QueueUrl)), nil
}

// DeadLetter is one message in the dead-letter queue.
type DeadLetter struct {
	// SQSMessageID is SQS's id of the message (kept when it moved from the
	// work queue); Message.ID is the inbound id.
	SQSMessageID string
	// Group is its MessageGroupId: the session's queue group.
	Group string
	// Message is the decoded body; the zero value when it does not decode,
	// with DecodeError saying why (a malformed body is a classic poison
	// message).
	Message     inbound.Message
	DecodeError string
	// SentAt is SQS's SentTimestamp; zero when SQS did not say.
	SentAt time.Time
	// ReceiveCount is how often SQS handed the message out before this
	// look (ApproximateReceiveCount less the look's own receive; earlier
	// looks count too).
	ReceiveCount int
}

// Depth is the dead-letter queue's approximate size.
type Depth struct {
	Visible  int // ApproximateNumberOfMessages
	InFlight int // ApproximateNumberOfMessagesNotVisible: held by a look or a redrive
}

// Depth reads the queue's approximate message counts (one GetQueueAttributes).
func (d *DLQ) Depth(ctx context.Context) (Depth, error) {
	out, err := d.client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(d.url),
		AttributeNames: []types.QueueAttributeName{
			types.QueueAttributeNameApproximateNumberOfMessages,
			types.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
		},
	})
	if err != nil {
		return Depth{}, classify(err, "read the depth of "+d.url)
	}
	visible, _ := strconv.Atoi(out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessages)])
	inFlight, _ := strconv.Atoi(out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
	return Depth{Visible: visible, InFlight: inFlight}, nil
}

// Counts is Depth as two numbers (one GetQueueAttributes): what the
// gateway's status reports (its gateway.DeadLetterCounter port).
func (d *DLQ) Counts(ctx context.Context) (visible, inFlight int, err error) {
	depth, err := d.Depth(ctx)
	return depth.Visible, depth.InFlight, err
}

// Sources lists the URLs of the queues whose redrive policy names this
// dead-letter queue (one ListDeadLetterSourceQueues page; ZERO has one).
func (d *DLQ) Sources(ctx context.Context) ([]string, error) {
	out, err := d.client.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(d.url), MaxResults: aws.Int32(10)})
	if err != nil {
		return nil, classify(err, "list the queues that use "+d.url)
	}
	return out.QueueUrls, nil
}

// arn reads the ARN of the queue at url.
func (d *DLQ) arn(ctx context.Context, url string) (string, error) {
	out, err := d.client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn},
	})
	if err != nil {
		return "", classify(err, "read the ARN of "+url)
	}
	return out.Attributes[string(types.QueueAttributeNameQueueArn)], nil
}

// Timings of the receives of Peek and Redrive: a message is held long
// enough for the whole operation (Peek gives it back at once when done),
// and an empty answer is waited for a second, since a short poll may
// answer empty although messages wait.
const (
	dlqPeekHold    = 20 * time.Second
	dlqResendHold  = 60 * time.Second
	dlqReceiveWait = 1
)

// receive takes up to n (≤ 10) messages, held for hold, with their system
// and message attributes.
func (d *DLQ) receive(ctx context.Context, n int, hold time.Duration) ([]types.Message, error) {
	out, err := d.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(d.url),
		MaxNumberOfMessages:         int32(min(n, 10)),
		VisibilityTimeout:           int32(hold / time.Second),
		WaitTimeSeconds:             dlqReceiveWait,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		MessageAttributeNames:       []string{"All"},
	})
	if err != nil {
		return nil, classify(err, "receive from "+d.url)
	}
	return out.Messages, nil
}

// Peek returns up to limit messages of the queue (limit ≤ 0: all it can
// see) in queue order, without removing any: each is received and, before
// Peek returns, made visible again. While Peek runs they are hidden (at
// most 20 s), so a concurrent redrive skips them.
//
// On FIFO a message in flight blocks its group, so a session with more
// messages than one receive returns shows only its first ones; compare
// len with Depth. Errors are classified; a failure to give the messages
// back is reported after the list (they reappear within 20 s anyway).
func (d *DLQ) Peek(ctx context.Context, limit int) ([]DeadLetter, error) {
	var (
		letters  []DeadLetter
		receipts []string
		seen     = map[string]bool{}
	)
	var err error
	for limit <= 0 || len(letters) < limit {
		n := 10
		if limit > 0 {
			n = limit - len(letters)
		}
		var msgs []types.Message
		if msgs, err = d.receive(ctx, n, dlqPeekHold); err != nil || len(msgs) == 0 {
			break
		}
		fresh := false
		for _, m := range msgs {
			receipts = append(receipts, aws.ToString(m.ReceiptHandle))
			if id := aws.ToString(m.MessageId); !seen[id] {
				seen[id] = true
				fresh = true
				letters = append(letters, newDeadLetter(m))
			}
		}
		if !fresh {
			break // the first ones came round again: their hold ran out
		}
	}
	// Give them back even when ctx was cancelled: hiding them for longer
	// than the look would only stall a redrive.
	release := d.release(context.WithoutCancel(ctx), receipts)
	if err != nil {
		return letters, err
	}
	return letters, release
}

// newDeadLetter describes a received message.
func newDeadLetter(m types.Message) DeadLetter {
	l := DeadLetter{SQSMessageID: aws.ToString(m.MessageId), Group: m.Attributes[string(types.MessageSystemAttributeNameMessageGroupId)]}
	msg, err := inbound.Decode([]byte(aws.ToString(m.Body)))
	if err != nil {
		l.DecodeError = fault.Message(err)
	}
	l.Message = msg
	if ms, err := strconv.ParseInt(m.Attributes[string(types.MessageSystemAttributeNameSentTimestamp)], 10, 64); err == nil && ms > 0 {
		l.SentAt = time.UnixMilli(ms)
	}
	if n, err := strconv.Atoi(m.Attributes[string(types.MessageSystemAttributeNameApproximateReceiveCount)]); err == nil && n > 0 {
		l.ReceiveCount = n - 1
	}
	return l
}

// release makes the messages of receipts visible again, 10 per call.
func (d *DLQ) release(ctx context.Context, receipts []string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var errs []error
	for start := 0; start < len(receipts); start += 10 {
		var entries []types.ChangeMessageVisibilityBatchRequestEntry
		for i, r := range receipts[start:min(start+10, len(receipts))] {
			entries = append(entries, types.ChangeMessageVisibilityBatchRequestEntry{
				Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String(r), VisibilityTimeout: 0,
			})
		}
		out, err := d.client.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(d.url), Entries: entries})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range out.Failed {
			errs = append(errs, fmt.Errorf("%s: %s", aws.ToString(f.Code), aws.ToString(f.Message)))
		}
	}
	if len(errs) > 0 {
		return classify(errors.Join(errs...), "make dead letters visible again (they reappear once their hold ends)")
	}
	return nil
}

// RedriveMethod says how Redrive moves messages.
type RedriveMethod string

const (
	// RedriveAuto starts a move task and falls back to resending when the
	// endpoint does not implement one (an emulator).
	RedriveAuto RedriveMethod = ""
	// RedriveMoveTask starts SQS's own StartMessageMoveTask (asynchronous).
	RedriveMoveTask RedriveMethod = "move-task"
	// RedriveResend receives each message, sends it to the target and only
	// then deletes it from the dead-letter queue.
	RedriveResend RedriveMethod = "resend"
)

// RedriveOptions configures Redrive.
type RedriveOptions struct {
	Method RedriveMethod
	// TargetURL is where messages go. "" means each message's original
	// source queue for a move task, and SourceURL for a resend.
	TargetURL string
	// SourceURL is the work queue the dead-letter queue serves: the
	// resend's target when TargetURL is "". When both are "", the one
	// queue whose redrive policy names the dead-letter queue.
	SourceURL string
	// Limit caps the messages a resend moves (≤ 0: all).
	Limit int
	// Wait is how long to follow a move task before returning (0: return
	// once it started).
	Wait time.Duration
}

// RedriveResult says what Redrive did.
type RedriveResult struct {
	// Method is the method used: RedriveMoveTask or RedriveResend.
	Method RedriveMethod
	// Target is the URL of the queue a resend sent to; "" for a move task
	// to each message's source queue.
	Target string
	// Moved is how many messages were moved (a move task: approximately,
	// as of the last look at it).
	Moved int
	// TaskHandle and TaskStatus describe a move task (RUNNING, COMPLETED,
	// FAILED, ...); TaskError is its failure reason.
	TaskHandle string
	TaskStatus string
	TaskError  string
}

// Redrive moves the dead-letter queue's messages back to the work queue.
//
// Order: a resend moves one message at a time in queue order, so each
// group (session) keeps its order; a move task keeps FIFO order itself.
//
// Idempotency: a message leaves the dead-letter queue only after it was
// sent, so re-running after a failure or a crash moves what is left and a
// run on an empty queue moves nothing. A crash between the send and the
// delete resends that message with the same deduplication id (SQS drops it
// within 5 minutes; later the runner's idempotency record, keyed by the
// inbound id, does).
//
// Errors are classified; Moved counts what moved before one. A move task
// the endpoint does not implement (or refuses for this queue) is
// fault.Invalid under RedriveMoveTask and the cue to resend under
// RedriveAuto; one already running is fault.Conflict.
func (d *DLQ) Redrive(ctx context.Context, opts RedriveOptions) (RedriveResult, error) {
	switch opts.Method {
	case RedriveAuto, RedriveMoveTask:
		res, err := d.moveTask(ctx, opts)
		if err == nil || opts.Method == RedriveMoveTask || !errors.Is(err, errNoMoveTask) {
			return res, err
		}
	case RedriveResend:
	default:
		return RedriveResult{}, fault.New(fault.Invalid, "unknown redrive method %q (want %s or %s)", opts.Method, RedriveMoveTask, RedriveResend)
	}
	target := opts.TargetURL
	if target == "" {
		target = opts.SourceURL
	}
	if target == "" {
		sources, err := d.Sources(ctx)
		if err != nil {
			return RedriveResult{Method: RedriveResend}, err
		}
		if len(sources) != 1 {
			return RedriveResult{Method: RedriveResend}, fault.New(fault.Invalid,
				"resending from %s needs the work queue's URL: %d queues name it as their dead-letter queue", d.url, len(sources))
		}
		target = sources[0]
	}
	moved, err := d.resend(ctx, target, opts.Limit)
	return RedriveResult{Method: RedriveResend, Target: target, Moved: moved}, err
}

// errNoMoveTask marks an endpoint without move tasks (an emulator), or
// one that refuses them for this queue.
var errNoMoveTask = errors.New("this SQS endpoint does not implement StartMessageMoveTask for this queue")

// moveTask starts a message move task and follows it for opts.Wait.
func (d *DLQ) moveTask(ctx context.Context, opts RedriveOptions) (RedriveResult, error) {
	res := RedriveResult{Method: RedriveMoveTask, Target: opts.TargetURL}
	source, err := d.arn(ctx, d.url)
	if err != nil {
		return res, err
	}
	in := &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(source)}
	if opts.TargetURL != "" {
		dest, err := d.arn(ctx, opts.TargetURL)
		if err != nil {
			return res, err
		}
		in.DestinationArn = aws.String(dest)
	}
	// One attempt: an emulator without the action answers 5xx, which the
	// default retryer would repeat before the fallback.
	out, err := d.client.StartMessageMoveTask(ctx, in, func(o *sqs.Options) { o.RetryMaxAttempts = 1 })
	switch {
	case err == nil:
	case moveTaskUnknown(err):
		return res, fault.Wrap(fault.Invalid, fmt.Errorf("%w: %w", errNoMoveTask, err), "redrive %s", d.url)
	case awserr.APICode(err) == "UnsupportedOperation" || awserr.APICode(err) == "AWS.SimpleQueueService.UnsupportedOperation":
		// SQS refuses a move task here (FIFO redrive came late to some
		// partitions), unless it refused because one already runs: a
		// resend beside it would interleave.
		if running, handle := d.runningTask(ctx, source); running {
			return res, fault.New(fault.Conflict, "a message move task (%s) is already running on %s", handle, d.url)
		}
		return res, fault.Wrap(fault.Invalid, fmt.Errorf("%w: %w", errNoMoveTask, err), "redrive %s", d.url)
	default:
		return res, classify(err, "start a message move task on "+d.url)
	}
	res.TaskHandle, res.TaskStatus = aws.ToString(out.TaskHandle), "RUNNING"
	deadline := time.Now().Add(opts.Wait)
	for {
		list, err := d.client.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(source), MaxResults: aws.Int32(1)})
		if err != nil {
			return res, classify(err, "follow the message move task on "+d.url)
		}
		if len(list.Results) > 0 {
			t := list.Results[0]
			res.TaskStatus, res.TaskError = aws.ToString(t.Status), aws.ToString(t.FailureReason)
			res.Moved = int(t.ApproximateNumberOfMessagesMoved)
		}
		if res.TaskStatus != "RUNNING" || !time.Now().Before(deadline) {
			return res, nil
		}
		select {
		case <-ctx.Done():
			return res, classify(ctx.Err(), "follow the message move task on "+d.url)
		case <-time.After(time.Second):
		}
	}
}

// runningTask reports whether a move task runs on the queue at source.
func (d *DLQ) runningTask(ctx context.Context, source string) (bool, string) {
	list, err := d.client.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(source), MaxResults: aws.Int32(1)})
	if err != nil || len(list.Results) == 0 {
		return false, ""
	}
	return aws.ToString(list.Results[0].Status) == "RUNNING", aws.ToString(list.Results[0].TaskHandle)
}

// moveTaskUnknown tells an endpoint that does not know the action (an
// emulator) from SQS refusing this task: an unknown-action code, a 501, or
// a 404/500 whose body is no AWS error at all (moto answers its
// NotImplementedError with an HTML 500).
func moveTaskUnknown(err error) bool {
	switch status := awserr.Status(err); awserr.APICode(err) {
	case "InvalidAction", "UnknownOperationException", "UnknownOperation", "NotImplemented", "NotImplementedException":
		return true
	case "":
		return status == 404 || status == 500 || status == 501
	default:
		return status == 501
	}
}

// resend moves up to limit messages to the queue at target, one at a time.
func (d *DLQ) resend(ctx context.Context, target string, limit int) (int, error) {
	moved := 0
	for limit <= 0 || moved < limit {
		n := 10
		if limit > 0 {
			n = limit - moved
		}
		msgs, err := d.receive(ctx, n, dlqResendHold)
		if err != nil || len(msgs) == 0 {
			return moved, err
		}
		for i, m := range msgs {
			if err := d.resendOne(ctx, target, m); err != nil {
				// The group of m must not move on without m; give this
				// batch's rest back for the next run.
				rest := make([]string, 0, len(msgs)-i)
				for _, r := range msgs[i:] {
					rest = append(rest, aws.ToString(r.ReceiptHandle))
				}
				return moved, errors.Join(err, d.release(context.WithoutCancel(ctx), rest))
			}
			moved++
		}
	}
	return moved, nil
}

// resendOne sends m to target in its group and then deletes it here.
func (d *DLQ) resendOne(ctx context.Context, target string, m types.Message) error {
	body := aws.ToString(m.Body)
	// The group the message had (SQS keeps it into the DLQ); the inbound
	// id's dedup (SQS replaced the original one with its message id on
	// the way into a FIFO DLQ). A body that does not decode keeps SQS's.
	group := m.Attributes[string(types.MessageSystemAttributeNameMessageGroupId)]
	dedup := m.Attributes[string(types.MessageSystemAttributeNameMessageDeduplicationId)]
	if msg, err := inbound.Decode([]byte(body)); err == nil {
		dedup = msg.QueueDedup()
		if group == "" {
			group = msg.QueueGroup()
		}
	}
	if group == "" || dedup == "" {
		return fault.New(fault.Invalid, "dead letter %s has no message group and its body is no inbound message: resend it by hand", aws.ToString(m.MessageId))
	}
	_, err := d.client.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:               aws.String(target),
		MessageBody:            aws.String(body),
		MessageAttributes:      m.MessageAttributes,
		MessageGroupId:         aws.String(group),
		MessageDeduplicationId: aws.String(RedriveDedup(dedup, aws.ToString(m.MessageId))),
	})
	if err != nil {
		return classify(err, "resend dead letter "+aws.ToString(m.MessageId))
	}
	_, err = d.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(d.url), ReceiptHandle: m.ReceiptHandle})
	return classify(err, "delete resent dead letter "+aws.ToString(m.MessageId)+" (it is on the work queue too; a re-run resends it under the same deduplication id)")
}

// RedriveDedup is the deduplication id of a resent dead letter: its
// original one, marked with the dead letter's SQS message id, so it is not
// dropped as a repeat of the original send, yet a second resend of the
// same dead letter is. Hashed when it would not fit SQS's 128 characters.
func RedriveDedup(original, sqsMessageID string) string {
	id := original + "#redrive-" + sqsMessageID
	if len(id) <= 128 {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "r-" + hex.EncodeToString(sum[:])
}
