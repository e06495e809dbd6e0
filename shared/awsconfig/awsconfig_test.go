package awsconfig

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"
	"github.com/google/go-cmp/cmp"
)

// TestTally: calls made with a tallied context are counted on its tally
// and on the Counter; calls made without one only on the Counter; two
// tallies do not see each other's calls.
func TestTally(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	counter := NewCounter()
	client := sqs.NewFromConfig(aws.Config{
		Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		APIOptions: []func(*middleware.Stack) error{counter.middleware},
	}, func(o *sqs.Options) { o.BaseEndpoint = aws.String(srv.URL) })

	a, b := WithTally(context.Background()), WithTally(context.Background())
	send := func(ctx context.Context) {
		t.Helper()
		if _, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(srv.URL + "/q"), MessageBody: aws.String("x")}); err != nil {
			t.Fatal(err)
		}
	}
	send(a)
	send(a)
	send(b)
	send(context.Background())
	tests := []struct {
		name string
		got  map[string]int
		want map[string]int
	}{
		{"first tally", TallyOf(a), map[string]int{"SQS.SendMessage": 2}},
		{"second tally", TallyOf(b), map[string]int{"SQS.SendMessage": 1}},
		{"no tally", TallyOf(context.Background()), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if counter.Total() != 4 {
		t.Errorf("counter total %d; want 4", counter.Total())
	}
}

// TestCounterBytes: the bytes a call sends and receives are counted by
// service, and Reset forgets them.
func TestCounterBytes(t *testing.T) {
	const answer = `{"MessageId":"m1"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Write([]byte(answer))
	}))
	defer srv.Close()
	counter := NewCounter()
	client := sqs.NewFromConfig(aws.Config{
		Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		APIOptions: []func(*middleware.Stack) error{counter.middleware},
	}, func(o *sqs.Options) { o.BaseEndpoint = aws.String(srv.URL); o.DisableMessageChecksumValidation = true })
	body := strings.Repeat("b", 5000)
	if _, err := client.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(srv.URL + "/q"), MessageBody: aws.String(body)}); err != nil {
		t.Fatal(err)
	}
	sent, recv := counter.Bytes()
	if sent["SQS"] < int64(len(body)) || sent["SQS"] > int64(len(body))+500 {
		t.Errorf("sent %d bytes; want the %d-byte body plus a little JSON", sent["SQS"], len(body))
	}
	if recv["SQS"] != int64(len(answer)) {
		t.Errorf("received %d bytes; want %d", recv["SQS"], len(answer))
	}
	counter.Reset()
	if sent, _ := counter.Bytes(); sent["SQS"] != 0 {
		t.Errorf("after Reset, sent %d bytes; want 0", sent["SQS"])
	}
}
