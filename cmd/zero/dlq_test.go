package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/inbound"
)

// dlqStack is a work queue with its FIFO dead-letter queue and a table
// with the template's keys, on the emulator.
type dlqStack struct {
	sqs        *sqs.Client
	ddb        *dynamodb.Client
	work, dlq  string // queue URLs
	table, run string
}

func newDLQStack(t *testing.T) *dlqStack {
	t.Helper()
	ctx := context.Background()
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	s := &dlqStack{sqs: sqs.NewFromConfig(cfg), ddb: dynamodb.NewFromConfig(cfg), run: hex.EncodeToString(b[:])}
	create := func(name string, attrs map[string]string) (url, arn string) {
		attrs["FifoQueue"] = "true"
		out, err := s.sqs.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
		if err != nil {
			t.Fatalf("create queue %s: %v", name, err)
		}
		url = aws.ToString(out.QueueUrl)
		t.Cleanup(func() { s.sqs.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(url)}) })
		got, err := s.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
		if err != nil {
			t.Fatal(err)
		}
		return url, got.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
	}
	base := "zero-cli-dlq-" + s.run
	var dlqARN string
	s.dlq, dlqARN = create(base+"-dlq.fifo", map[string]string{})
	s.work, _ = create(base+".fifo", map[string]string{
		"VisibilityTimeout": "30",
		"RedrivePolicy":     fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"5"}`, dlqARN),
	})
	s.table = base
	if _, err := s.ddb.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(s.table),
		BillingMode: ddbtypes.BillingModePayPerRequest,
		AttributeDefinitions: []ddbtypes.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: ddbtypes.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: ddbtypes.ScalarAttributeTypeS},
		},
		KeySchema: []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: ddbtypes.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: ddbtypes.KeyTypeRange},
		},
	}); err != nil {
		t.Fatalf("create table: %v", err)
	}
	t.Cleanup(func() {
		s.ddb.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(s.table)})
	})
	// The flags under test, not a developer's exported stack, name the queues.
	for _, name := range []string{queueURLEnv, dlqURLEnv, tableEnv} {
		t.Setenv(name, "")
	}
	return s
}

// message is turn seq of session in this stack's run.
func (s *dlqStack) message(session string, seq int) inbound.Message {
	return inbound.Message{
		ID: fmt.Sprintf("telegram:1:%s-%s-%d", s.run, session, seq), AgentID: "main",
		SessionKey: "agent:main:telegram:direct:" + session + "-" + s.run, Channel: "telegram",
		ChatType: inbound.Direct, To: session, Text: strconv.Itoa(seq), ReceivedAt: time.Now().UnixMilli(),
	}
}

// dead puts msgs in the dead-letter queue, in order, as the redrive
// policy leaves them.
func (s *dlqStack) dead(t *testing.T, msgs ...inbound.Message) {
	t.Helper()
	for _, m := range msgs {
		body, _ := json.Marshal(m)
		if _, err := s.sqs.SendMessage(context.Background(), &sqs.SendMessageInput{
			QueueUrl: aws.String(s.dlq), MessageBody: aws.String(string(body)),
			MessageGroupId: aws.String(m.QueueGroup()), MessageDeduplicationId: aws.String(m.QueueDedup()),
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// failure writes the runner's failure record of m.
func (s *dlqStack) failure(t *testing.T, m inbound.Message, errText string, attempts int, at, ttl time.Time) {
	t.Helper()
	n := func(v int64) ddbtypes.AttributeValue {
		return &ddbtypes.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
	}
	if _, err := s.ddb.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: map[string]ddbtypes.AttributeValue{
		"pk":         &ddbtypes.AttributeValueMemberS{Value: "msg#" + m.ID},
		"sk":         &ddbtypes.AttributeValueMemberS{Value: "failure"},
		"sessionKey": &ddbtypes.AttributeValueMemberS{Value: m.SessionKey},
		"error":      &ddbtypes.AttributeValueMemberS{Value: errText},
		"attempts":   n(int64(attempts)),
		"at":         n(at.UnixMilli()),
		"ttl":        n(ttl.Unix()),
	}}); err != nil {
		t.Fatal(err)
	}
}

// workIDs drains the work queue: the inbound ids per session, in order.
func (s *dlqStack) workIDs(t *testing.T) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	for {
		out, err := s.sqs.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(s.work), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			return got
		}
		for _, m := range out.Messages {
			msg, err := inbound.Decode([]byte(aws.ToString(m.Body)))
			if err != nil {
				t.Fatal(err)
			}
			got[msg.SessionKey] = append(got[msg.SessionKey], msg.ID)
			s.sqs.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: aws.String(s.work), ReceiptHandle: m.ReceiptHandle})
		}
	}
}

func TestDLQList(t *testing.T) {
	s := newDLQStack(t)
	now := time.Now()
	a1, b1 := s.message("a", 1), s.message("b", 1)
	s.dead(t, a1, b1)
	if _, err := s.sqs.SendMessage(context.Background(), &sqs.SendMessageInput{
		QueueUrl: aws.String(s.dlq), MessageBody: aws.String("{not json"),
		MessageGroupId: aws.String("poison-" + s.run), MessageDeduplicationId: aws.String("poison-" + s.run),
	}); err != nil {
		t.Fatal(err)
	}
	const cause = "model provider unavailable (HTTP 503)\nafter 5 attempts"
	s.failure(t, a1, cause, 5, now.Add(-time.Minute), now.Add(24*time.Hour))
	// Expired but not yet deleted (TTL is lazy): not shown.
	s.failure(t, b1, "stale", 2, now.Add(-48*time.Hour), now.Add(-time.Hour))

	t.Run("table", func(t *testing.T) {
		stdout, stderr, err := runCLI(t, "dlq", "list", "--queue", s.work, "--table", s.table)
		checkErr(t, err, "")
		if stderr != "" {
			t.Errorf("stderr = %q; want nothing", stderr)
		}
		lines := strings.Split(stdout, "\n")
		find := func(substr string) string {
			for _, l := range lines {
				if strings.Contains(l, substr) {
					return l
				}
			}
			t.Fatalf("no line contains %q in\n%s", substr, stdout)
			return ""
		}
		if !strings.HasPrefix(lines[0], "dead-letter queue "+s.dlq) {
			t.Errorf("first line %q; want the dead-letter queue's URL", lines[0])
		}
		for _, col := range []string{"SESSION", "MESSAGE", "AGE", "RECEIVES", "ERROR"} {
			if !strings.Contains(find("SESSION"), col) {
				t.Errorf("header lacks %s:\n%s", col, stdout)
			}
		}
		rows := []struct{ key, want string }{
			{a1.ID, a1.SessionKey + " "},
			{a1.ID, "just now"},
			{a1.ID, "model provider unavailable (HTTP 503) after 5 attempts"}, // one line
			{b1.ID, b1.SessionKey + " "},
			{b1.ID, "(no failure record)"},
			{"not an inbound message", "malformed JSON"},
		}
		for _, r := range rows {
			if line := find(r.key); !strings.Contains(line, r.want) {
				t.Errorf("row of %s = %q; want it to contain %q", r.key, line, r.want)
			}
		}
	})

	t.Run("json", func(t *testing.T) {
		stdout, _, err := runCLI(t, "dlq", "list", "--queue", s.work, "--table", s.table, "--json")
		checkErr(t, err, "")
		var got dlqList
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("--json output %q: %v", stdout, err)
		}
		if got.Queue != s.dlq || got.Table != s.table || got.Visible != 3 || len(got.Messages) != 3 {
			t.Fatalf("list = %+v; want the DLQ, the table, 3 visible and 3 messages", got)
		}
		byID := map[string]dlqRow{}
		for _, m := range got.Messages {
			byID[m.ID] = m
			// One earlier look (the table subtest) counts as a receive.
			if m.AgeSeconds < 0 || m.AgeSeconds > 120 || m.SentAt == 0 || m.ReceiveCount != 1 {
				t.Errorf("%s: age %ds, sentAt %d, receives %d; want just sent, once looked at", m.ID, m.AgeSeconds, m.SentAt, m.ReceiveCount)
			}
		}
		a := byID[a1.ID]
		if a.SessionKey != a1.SessionKey || a.Error != cause || a.Attempts != 5 || a.FailedAt != now.Add(-time.Minute).UnixMilli() || a.Group != a1.QueueGroup() {
			t.Errorf("row of a1 = %+v; want its session, group and failure record", a)
		}
		if b := byID[b1.ID]; b.SessionKey != b1.SessionKey || b.Error != "" || b.Attempts != 0 {
			t.Errorf("row of b1 = %+v; want no (expired) failure", b)
		}
		if p := byID[""]; !strings.Contains(p.BodyError, "malformed JSON") || p.Group != "poison-"+s.run {
			t.Errorf("row of the poison body = %+v; want its body error and group", p)
		}
	})

	t.Run("from the environment, without a table", func(t *testing.T) {
		t.Setenv(dlqURLEnv, s.dlq)
		stdout, stderr, err := runCLI(t, "dlq", "list", "--limit", "2")
		checkErr(t, err, "")
		if !strings.Contains(stderr, "no --table") {
			t.Errorf("stderr = %q; want a note that errors are not shown", stderr)
		}
		if strings.Contains(stdout, "model provider") || strings.Contains(stdout, "(no failure record)") {
			t.Errorf("stdout shows failures without a table:\n%s", stdout)
		}
		if !strings.Contains(stdout, "1 more not shown") {
			t.Errorf("stdout = %q; want the third message counted as not shown", stdout)
		}
	})
}

func TestDLQListEmpty(t *testing.T) {
	s := newDLQStack(t)
	stdout, _, err := runCLI(t, "dlq", "list", "--dlq", s.dlq, "--table", s.table)
	checkErr(t, err, "")
	if want := "dead-letter queue " + s.dlq + ": empty\n"; stdout != want {
		t.Errorf("stdout = %q; want %q", stdout, want)
	}
	stdout, _, err = runCLI(t, "dlq", "list", "--dlq", s.dlq, "--json")
	checkErr(t, err, "")
	if !strings.Contains(stdout, `"messages": []`) {
		t.Errorf("--json of an empty queue = %s; want an empty messages list", stdout)
	}
}

func TestDLQRedrive(t *testing.T) {
	s := newDLQStack(t)
	sent := []inbound.Message{s.message("a", 1), s.message("b", 1), s.message("a", 2), s.message("a", 3), s.message("b", 2)}
	s.dead(t, sent...)

	stdout, _, err := runCLI(t, "dlq", "redrive", "--queue", s.work, "--dry-run")
	checkErr(t, err, "")
	if want := "dry run: 5 message(s) of " + s.dlq + " would move to their source queue\n"; stdout != want {
		t.Errorf("dry run printed %q; want %q", stdout, want)
	}
	if got := s.workIDs(t); len(got) != 0 {
		t.Fatalf("a dry run moved %v", got)
	}

	// moto has no StartMessageMoveTask: auto resends.
	stdout, _, err = runCLI(t, "dlq", "redrive", "--queue", s.work)
	checkErr(t, err, "")
	if want := "moved 5 message(s) from " + s.dlq + " to " + s.work + " (resent in order per session)\n"; stdout != want {
		t.Errorf("redrive printed %q; want %q", stdout, want)
	}
	want := map[string][]string{}
	for _, m := range sent {
		want[m.SessionKey] = append(want[m.SessionKey], m.ID)
	}
	got := s.workIDs(t)
	for key, ids := range want {
		if !slices.Equal(got[key], ids) {
			t.Errorf("work queue has %v for %s; want %v (in order, once)", got[key], key, ids)
		}
	}

	stdout, _, err = runCLI(t, "dlq", "redrive", "--dlq", s.dlq, "--json")
	checkErr(t, err, "")
	var again dlqRedriveReport
	if err := json.Unmarshal([]byte(stdout), &again); err != nil {
		t.Fatalf("--json output %q: %v", stdout, err)
	}
	if again != (dlqRedriveReport{Queue: s.dlq, Target: s.work, Method: "resend"}) {
		t.Errorf("second redrive = %+v; want nothing moved, nothing left", again)
	}
}

func TestDLQRedriveMoveTaskUnsupported(t *testing.T) {
	s := newDLQStack(t)
	s.dead(t, s.message("a", 1))
	_, _, err := runCLI(t, "dlq", "redrive", "--dlq", s.dlq, "--method", "move-task")
	checkErr(t, err, "does not implement StartMessageMoveTask")
}

func TestDLQUsage(t *testing.T) {
	t.Setenv(queueURLEnv, "")
	t.Setenv(dlqURLEnv, "")
	tests := []struct {
		name       string
		args       []string
		wantErr    string
		wantHelp   bool
		wantStdout string
		wantStderr string
	}{
		{name: "listed in help", args: []string{"help"}, wantStdout: "dlq "},
		{name: "no subcommand", args: []string{"dlq"}, wantHelp: true, wantStderr: "usage: zero dlq list"},
		{name: "help", args: []string{"dlq", "-h"}, wantStdout: "zero dlq redrive"},
		{name: "unknown subcommand", args: []string{"dlq", "purge"}, wantErr: `unknown dlq command "purge"`},
		{name: "list -h", args: []string{"dlq", "list", "-h"}, wantHelp: true, wantStderr: "-table"},
		{name: "redrive -h", args: []string{"dlq", "redrive", "-h"}, wantHelp: true, wantStderr: "-dry-run"},
		{name: "no queue", args: []string{"dlq", "list"}, wantErr: "name the queue: --queue URL"},
		{name: "bad limit", args: []string{"dlq", "list", "--limit", "0"}, wantErr: "--limit must be positive"},
		{name: "bad method", args: []string{"dlq", "redrive", "--method", "teleport"}, wantErr: `--method "teleport"`},
		{name: "arguments", args: []string{"dlq", "list", "extra"}, wantErr: "takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := runCLI(t, tt.args...)
			switch {
			case tt.wantHelp:
				if !errors.Is(err, flag.ErrHelp) {
					t.Errorf("err = %v, want flag.ErrHelp", err)
				}
			default:
				checkErr(t, err, tt.wantErr)
			}
			if !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("stdout = %q, want it to contain %q", stdout, tt.wantStdout)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tt.wantStderr)
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	tests := []struct {
		name, in string
		n        int
		want     string
	}{
		{name: "short", in: "boom", n: 10, want: "boom"},
		{name: "newlines and runs of blanks", in: "a\n  b\tc", n: 10, want: "a b c"},
		{name: "cut with an ellipsis", in: "ééééé", n: 3, want: "éé…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := oneLine(tt.in, tt.n); got != tt.want {
				t.Errorf("oneLine(%q, %d) = %q; want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}
