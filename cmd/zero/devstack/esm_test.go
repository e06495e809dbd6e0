package devstack

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
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

func TestParseInvokeResult(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		wantOut  string
		wantType string // FunctionError type
		wantErr  string // other error
	}{
		{name: "result", status: 200, body: `{"statusCode":200}`, wantOut: `{"statusCode":200}`},
		{name: "null result", status: 200, body: `null`, wantOut: `null`},
		{name: "returned error", status: 200, body: `{"errorMessage":"boom","errorType":"errorString"}`, wantType: "errorString"},
		{name: "result that merely has errorType", status: 200, body: `{"errorType":"x","errorMessage":"y","statusCode":200}`, wantOut: `{"errorType":"x","errorMessage":"y","statusCode":200}`},
		{name: "panic", status: 502, body: `{"errorMessage":"oh no","errorType":"string","stackTrace":[]}`, wantType: "string"},
		{name: "crash", status: 502, body: `{"errorType":"Runtime.ExitError","errorMessage":"exit status 3"}`, wantType: "Runtime.ExitError"},
		{name: "timeout", status: 200, body: `Task timed out after 3.00 seconds`, wantType: "Sandbox.Timedout"},
		{name: "RIE busy", status: 400, body: ``, wantErr: "RIE answered 400"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := parseInvokeResult("F", tt.status, []byte(tt.body))
			var fe *FunctionError
			switch {
			case tt.wantType != "":
				if !errors.As(err, &fe) {
					t.Fatalf("error = %v, want a FunctionError", err)
				}
				eq(t, "type", fe.Type, tt.wantType)
				eq(t, "function", fe.Function, "F")
			case tt.wantErr != "":
				if err == nil || errors.As(err, &fe) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				eq(t, "out", string(out), tt.wantOut)
			}
		})
	}
}

func TestGroupTails(t *testing.T) {
	msg := func(id, group, seq string) sqstypes.Message {
		m := sqstypes.Message{MessageId: aws.String(id), Attributes: map[string]string{}}
		if group != "" {
			m.Attributes["MessageGroupId"] = group
			m.Attributes["SequenceNumber"] = seq
		}
		return m
	}
	tests := []struct {
		name   string
		failed []sqstypes.Message
		want   []string
	}{
		{name: "none", failed: nil, want: nil},
		{name: "one per group", failed: []sqstypes.Message{msg("a1", "a", "10"), msg("b1", "b", "11")}, want: nil},
		{name: "tail of a group", failed: []sqstypes.Message{msg("a1", "a", "10"), msg("b1", "b", "11"), msg("a2", "a", "12")}, want: []string{"a2"}},
		{name: "head is the first in the batch", failed: []sqstypes.Message{msg("a1", "a", "100"), msg("a2", "a", "99"), msg("a3", "a", "7")}, want: []string{"a2", "a3"}},
		{name: "standard queue messages have no group", failed: []sqstypes.Message{msg("x", "", ""), msg("y", "", "")}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, m := range groupTails(tt.failed) {
				got = append(got, aws.ToString(m.MessageId))
			}
			eq(t, "tails", got, tt.want)
		})
	}
}
