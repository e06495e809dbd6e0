package devstack

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/cmd/zero/devstack/esm"
	"github.com/zero-gateway/zero/cmd/zero/devstack/rie"
	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
	"github.com/zero-gateway/zero/shared/emulator"
)

// The integration tests share one moto server (or the emulator named by
// ZERO_AWS_ENDPOINT) and namespace their resources with a unique prefix.
var (
	emuErr  error
	tempDir string
)

func TestMain(m *testing.M) {
	var srv *emulator.Server
	srv, emuErr = emulator.Start(context.Background(), "")
	if emuErr == nil {
		srv.Setenv()
	}
	var err error
	if tempDir, err = os.MkdirTemp("", "devstack-test-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	srv.Stop()
	os.RemoveAll(tempDir)
	os.Exit(code)
}

// need fails a test when a prerequisite is missing: `make test` installs
// them all (`make deps`), so a missing one is a broken setup, not a reason
// to skip.
func need(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s unavailable (run `make deps`): %v", what, err)
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func uniquePrefix(t *testing.T, what string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "zt-" + hex.EncodeToString(b[:]) + "-" + what
}

var (
	translateOnce sync.Once
	translated    string
	translateErr  error
)

// translatedTemplate translates the repository's template.yaml once per run.
func translatedTemplate(t *testing.T) string {
	t.Helper()
	translateOnce.Do(func() {
		translated = filepath.Join(tempDir, "template.json")
		translateErr = template.Translate(context.Background(), repoRoot(t), "template.yaml", translated)
	})
	need(t, "aws-sam-translator", translateErr)
	return translated
}

// testParams are values for the template's required parameters.
var testParams = map[string]string{"TelegramBotId": "123456"}

// testSecrets are the secrets the template's functions require.
var testSecrets = map[string]string{"telegram-bot-token": "123456:test-token", "telegram-webhook-secret": "test_secret-0123456789abcdefghijkl"}

// echoFunction answers HTTP API events with the event itself as the body
// (plus a few environment variables as headers); body "fail" returns an
// error and "exit" crashes the runtime. Any other event is echoed as is.
const echoFunction = `package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(ctx context.Context, raw json.RawMessage) (any, error) {
		var ev events.APIGatewayV2HTTPRequest
		if json.Unmarshal(raw, &ev) != nil || ev.Version != "2.0" {
			return raw, nil
		}
		switch ev.Body {
		case "fail":
			return nil, errors.New("asked to fail")
		case "exit":
			os.Exit(3)
		}
		return events.APIGatewayV2HTTPResponse{
			StatusCode: 200,
			Headers: map[string]string{
				"content-type":    "application/json",
				"x-queue-url":     os.Getenv("ZERO_QUEUE_URL"),
				"x-function-name": os.Getenv("AWS_LAMBDA_FUNCTION_NAME"),
				"x-endpoint":      os.Getenv("AWS_ENDPOINT_URL"),
			},
			Body: string(raw),
		}, nil
	})
}
`

// fifoFunction logs every record it gets to $TEST_LOG (one JSON line each,
// with the batch's start and end times) and, as a FIFO consumer must,
// reports the message whose body is $TEST_FAIL_BODY and every message after
// it in the batch as failed. $TEST_SLEEP makes each batch take that long.
const fifoFunction = `package main

import (
	"context"
	"encoding/json"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		start := time.Now().UnixNano()
		if d, err := time.ParseDuration(os.Getenv("TEST_SLEEP")); err == nil {
			time.Sleep(d)
		}
		failBody := os.Getenv("TEST_FAIL_BODY")
		failing := false
		var lines []byte
		for i, r := range ev.Records {
			if failBody != "" && r.Body == failBody {
				failing = true
			}
			if failing {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
			}
			line, _ := json.Marshal(map[string]any{"record": r, "failed": failing, "index": i, "start": start, "end": time.Now().UnixNano()})
			lines = append(append(lines, line...), '\n')
		}
		f, err := os.OpenFile(os.Getenv("TEST_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return resp, err
		}
		defer f.Close()
		_, err = f.Write(lines)
		return resp, err
	})
}
`

// loggedRecord is one line of fifoFunction's log.
type loggedRecord struct {
	Record events.SQSMessage `json:"record"`
	Failed bool              `json:"failed"`
	Index  int               `json:"index"`
	Start  int64             `json:"start"`
	End    int64             `json:"end"`
}

func readRecords(t *testing.T, path string) []loggedRecord {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []loggedRecord
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec loggedRecord
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		recs = append(recs, rec)
	}
	return recs
}

var (
	buildMu    sync.Mutex
	builtFuncs = map[string]string{}
)

// buildTestFunction builds a throwaway bootstrap from source, once per run.
func buildTestFunction(t *testing.T, name, source string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := builtFuncs[name]; ok {
		return p
	}
	dir := filepath.Join(tempDir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "bootstrap")
	if err := rie.Build(context.Background(), repoRoot(t), src, out); err != nil {
		t.Fatal(err)
	}
	builtFuncs[name] = out
	return out
}

func needRIE(t *testing.T) {
	t.Helper()
	_, err := rie.FindRIE(repoRoot(t))
	need(t, "aws-lambda-rie", err)
}

func startStack(t *testing.T, opts Options) *Stack {
	t.Helper()
	opts.Root = repoRoot(t)
	opts.FrontAddr = "127.0.0.1:0"
	opts.BuildDir = t.TempDir()
	if opts.Output == nil {
		opts.Output = testWriter{t}
	}
	opts.Logf = t.Logf
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // the first builds are slow on a busy machine
	defer cancel()
	st, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	// Every AWS call the functions made must be one their template role
	// allows (action, resource, conditions): see CheckIAM.
	t.Cleanup(func() {
		if err := st.CheckIAM(); err != nil {
			t.Error(err)
		}
	})
	return st
}

// testWriter sends function output to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

func TestStackFront(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	needRIE(t)
	t.Parallel()
	echo := buildTestFunction(t, "echo", echoFunction)
	st := startStack(t, Options{
		Template:   translatedTemplate(t),
		Prefix:     uniquePrefix(t, "front"),
		Params:     testParams,
		Secrets:    testSecrets,
		Bootstraps: map[string]string{"TelegramWebhook": echo, "Runner": echo},
		PoolSizes:  map[string]int{"TelegramWebhook": 2, "Runner": 1},
		PollWait:   time.Second,
	})
	url := st.FrontURL + "/webhooks/telegram"

	post := func(t *testing.T, body string, header http.Header) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest("POST", url+"?x=1&x=2", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = header
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}

	t.Run("webhook gets a v2 event", func(t *testing.T) {
		h := http.Header{}
		h.Set("Content-Type", "application/json")
		h.Set("X-Telegram-Bot-Api-Secret-Token", "test_secret-1")
		h.Add("X-Multi", "a")
		h.Add("X-Multi", "b")
		resp, body := post(t, `{"update_id":7}`, h)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		var ev events.APIGatewayV2HTTPRequest
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Fatalf("body is not an event: %v: %s", err, body)
		}
		eq(t, "version", ev.Version, "2.0")
		eq(t, "routeKey", ev.RouteKey, "POST /webhooks/telegram")
		eq(t, "rawPath", ev.RawPath, "/webhooks/telegram")
		eq(t, "rawQueryString", ev.RawQueryString, "x=1&x=2")
		eq(t, "query", ev.QueryStringParameters, map[string]string{"x": "1,2"})
		eq(t, "secret", ev.Headers["x-telegram-bot-api-secret-token"], "test_secret-1")
		eq(t, "multi", ev.Headers["x-multi"], "a,b")
		eq(t, "body", ev.Body, `{"update_id":7}`)
		eq(t, "method", ev.RequestContext.HTTP.Method, "POST")
		eq(t, "sourceIp", ev.RequestContext.HTTP.SourceIP, "127.0.0.1")
		eq(t, "stage", ev.RequestContext.Stage, "$default")
		if ev.RequestContext.RequestID == "" || ev.RequestContext.TimeEpoch == 0 {
			t.Errorf("requestContext lacks requestId/timeEpoch: %+v", ev.RequestContext)
		}
		eq(t, "queue URL env", resp.Header.Get("X-Queue-Url"), st.Resources.Queues["WorkQueue"].URL)
		eq(t, "function name env", resp.Header.Get("X-Function-Name"), st.Resources.Functions["TelegramWebhook"].Name)
		// The function reaches the emulator through its own recording
		// listener (see CheckIAM).
		eq(t, "endpoint env", resp.Header.Get("X-Endpoint"), st.iam.endpoints["TelegramWebhook"])
		eq(t, "content type", resp.Header.Get("Content-Type"), "application/json")
	})

	t.Run("unknown route", func(t *testing.T) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		eq(t, "status", resp.StatusCode, 404)
		eq(t, "body", string(b), `{"message":"Not Found"}`)
	})

	t.Run("function error is a 500", func(t *testing.T) {
		resp, b := post(t, "fail", http.Header{})
		eq(t, "status", resp.StatusCode, 500)
		eq(t, "body", string(b), `{"message":"Internal Server Error"}`)
	})

	t.Run("runtime crash is a 500 and the next call works", func(t *testing.T) {
		resp, _ := post(t, "exit", http.Header{})
		eq(t, "crash status", resp.StatusCode, 500)
		for i := 0; i < 3; i++ {
			resp, b := post(t, "ok", http.Header{})
			eq(t, "status after crash", resp.StatusCode, 200)
			if resp.StatusCode != 200 {
				t.Logf("body: %s", b)
			}
		}
	})

	t.Run("concurrent requests are serialised per RIE process", func(t *testing.T) {
		var wg sync.WaitGroup
		codes := make([]int, 12)
		for i := range codes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := http.Post(url, "application/json", strings.NewReader(`{"n":`+strconv.Itoa(i)+`}`))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				codes[i] = resp.StatusCode
			}()
		}
		wg.Wait()
		for i, c := range codes {
			if c != 200 {
				t.Errorf("request %d: status %d", i, c)
			}
		}
	})

	t.Run("direct invoke reports function errors", func(t *testing.T) {
		ev, _ := json.Marshal(events.APIGatewayV2HTTPRequest{Version: "2.0", Body: "fail"})
		_, err := st.Invoke(context.Background(), "TelegramWebhook", ev)
		fe, ok := err.(*rie.FunctionError)
		if !ok {
			t.Fatalf("error = %v, want *rie.FunctionError", err)
		}
		eq(t, "message", fe.Message, "asked to fail")
	})
}

// esmTemplate is a minimal template for the event source mapping test: a
// FIFO queue with a 2 s visibility timeout, a function, its role (the
// mapping polls with it) and its trigger.
const esmTemplate = `{
  "Parameters": {"Greeting": {"Type": "String", "Default": "hi"}},
  "Resources": {
    "Jobs": {"Type": "AWS::SQS::Queue", "Properties": {"FifoQueue": true, "ContentBasedDeduplication": false, "VisibilityTimeout": 2}},
    "Worker": {"Type": "AWS::Lambda::Function", "Properties": {"Timeout": 10, "Role": {"Fn::GetAtt": ["WorkerRole", "Arn"]},
      "Environment": {"Variables": {"JOBS_URL": {"Ref": "Jobs"}, "GREETING": {"Ref": "Greeting"}}}}},
    "WorkerRole": {"Type": "AWS::IAM::Role", "Properties": {"Policies": [{"PolicyName": "poll", "PolicyDocument": {"Statement": [
      {"Effect": "Allow", "Action": ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility"], "Resource": {"Fn::GetAtt": ["Jobs", "Arn"]}}]}}]}},
    "WorkerJobs": {"Type": "AWS::Lambda::EventSourceMapping", "Properties": {
      "EventSourceArn": {"Fn::GetAtt": ["Jobs", "Arn"]}, "FunctionName": {"Ref": "Worker"},
      "BatchSize": 10, "FunctionResponseTypes": ["ReportBatchItemFailures"]}}
  }
}`

// startESMStack runs esmTemplate's Worker (the fifo test function, which
// logs each record it handles to the returned file) behind its queue
// trigger, with opts' extra settings.
func startESMStack(t *testing.T, what string, opts Options) (*Stack, string) {
	t.Helper()
	need(t, "AWS emulator", emuErr)
	needRIE(t)
	t.Parallel()
	dir := t.TempDir()
	opts.Template = filepath.Join(dir, "template.json")
	if err := os.WriteFile(opts.Template, []byte(esmTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "records.jsonl")
	opts.Prefix = uniquePrefix(t, what)
	opts.Bootstraps = map[string]string{"Worker": buildTestFunction(t, "fifo", fifoFunction)}
	opts.ExtraEnv = append(opts.ExtraEnv, "TEST_LOG="+logPath)
	return startStack(t, opts), logPath
}

func TestStackEventSource(t *testing.T) {
	ctx := context.Background()
	st, logPath := startESMStack(t, "esm", Options{ExtraEnv: []string{"TEST_FAIL_BODY=2"}, PollWait: time.Second})
	queue := st.Resources.Queues["Jobs"]
	client := sqs.NewFromConfig(st.AWSConfig)
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	var entries []sqstypes.SendMessageBatchRequestEntry
	for _, body := range []string{"1", "2", "3"} {
		entries = append(entries, sqstypes.SendMessageBatchRequestEntry{
			Id: aws.String("m" + body), MessageBody: aws.String(body),
			MessageGroupId: aws.String("session-a"), MessageDeduplicationId: aws.String(run + "-" + body),
			MessageAttributes: map[string]sqstypes.MessageAttributeValue{"kind": {DataType: aws.String("String"), StringValue: aws.String("turn")}},
		})
	}
	sent, err := client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(queue.URL), Entries: entries})
	if err != nil || len(sent.Failed) > 0 {
		t.Fatalf("send: %v %+v", err, sent)
	}

	// Wait until message 1 was deleted and message 2 reported as failed.
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, _ := st.Stats("WorkerJobs")
		if s.Deleted >= 1 && s.ItemFailures >= 1 {
			t.Logf("stats: %+v", s)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no processed batch in time: %+v", s)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	// With the pollers gone, 2 and 3 come back (in order) once their
	// visibility timeout ends; 1 was deleted.
	var left []string
	deadline = time.Now().Add(30 * time.Second)
	for len(left) < 2 && time.Now().Before(deadline) {
		out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(queue.URL), MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 30,
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Messages {
			left = append(left, aws.ToString(m.Body))
			if _, err := client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(queue.URL), ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
		}
	}
	eq(t, "messages left", left, []string{"2", "3"})

	// What the function saw: a Lambda-shaped SQS event.
	var first *events.SQSMessage
	for _, rec := range readRecords(t, logPath) {
		if rec.Record.Body == "1" {
			if rec.Failed {
				t.Errorf("message 1 reported failed")
			}
			first = &rec.Record
		}
	}
	if first == nil {
		t.Fatal("message 1 never delivered")
	}
	sum := md5.Sum([]byte("1"))
	eq(t, "md5OfBody", first.Md5OfBody, hex.EncodeToString(sum[:]))
	eq(t, "eventSource", first.EventSource, "aws:sqs")
	eq(t, "eventSourceARN", first.EventSourceARN, queue.ARN)
	eq(t, "awsRegion", first.AWSRegion, st.AWSConfig.Region)
	eq(t, "MessageGroupId", first.Attributes["MessageGroupId"], "session-a")
	eq(t, "MessageDeduplicationId", first.Attributes["MessageDeduplicationId"], run+"-1")
	eq(t, "ApproximateReceiveCount", first.Attributes["ApproximateReceiveCount"], "1")
	for _, k := range []string{"SentTimestamp", "SequenceNumber", "ApproximateFirstReceiveTimestamp"} {
		if first.Attributes[k] == "" {
			t.Errorf("attribute %s missing: %v", k, first.Attributes)
		}
	}
	kind := first.MessageAttributes["kind"]
	eq(t, "message attribute", aws.ToString(kind.StringValue), "turn")
	eq(t, "message attribute type", kind.DataType, "String")
}

// TestStackEventSourceGroupOrder checks that a message group is processed
// one batch at a time and in order while several pollers run: a message
// sent while an earlier one of its group is being processed must wait.
func TestStackEventSourceGroupOrder(t *testing.T) {
	ctx := context.Background()
	st, logPath := startESMStack(t, "order", Options{
		ExtraEnv:  []string{"TEST_SLEEP=1s"},
		PoolSizes: map[string]int{"Worker": 4},
		PollWait:  5 * time.Second,
	})
	queue := st.Resources.Queues["Jobs"]
	client := sqs.NewFromConfig(st.AWSConfig)
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	send := func(group, body string) {
		t.Helper()
		if _, err := client.SendMessage(ctx, &sqs.SendMessageInput{
			QueueUrl: aws.String(queue.URL), MessageBody: aws.String(body),
			MessageGroupId: aws.String(group), MessageDeduplicationId: aws.String(run + body),
		}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor := func(what string, ok func(esm.Stats) bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			s, _ := st.Stats("WorkerJobs")
			if ok(s) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not in time: %+v", what, s)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// Let the pollers settle into long polls first: moto decides at the
	// start of a poll which groups are busy, which is how a message could
	// slip past an earlier one of its group still being processed.
	time.Sleep(1500 * time.Millisecond)
	send("a", "a-1")
	// a-1 is now being processed (for a second); the others arrive meanwhile.
	waitFor("a-1 received", func(s esm.Stats) bool { return s.Batches >= 1 })
	send("a", "a-2")
	send("b", "b-1")
	send("a", "a-3")
	waitFor("all deleted", func(s esm.Stats) bool { return s.Deleted >= 4 })

	type span struct{ start, end int64 }
	order := map[string][]string{}
	spans := map[string][]span{}
	recs := readRecords(t, logPath)
	sort.SliceStable(recs, func(i, j int) bool {
		if recs[i].Start != recs[j].Start {
			return recs[i].Start < recs[j].Start
		}
		return recs[i].Index < recs[j].Index
	})
	for _, rec := range recs {
		g := rec.Record.Attributes["MessageGroupId"]
		order[g] = append(order[g], rec.Record.Body)
		if n := len(spans[g]); n == 0 || spans[g][n-1].start != rec.Start {
			spans[g] = append(spans[g], span{rec.Start, rec.End})
		}
	}
	eq(t, "order of a", order["a"], []string{"a-1", "a-2", "a-3"})
	eq(t, "order of b", order["b"], []string{"b-1"})
	for i := 1; i < len(spans["a"]); i++ {
		if spans["a"][i].start < spans["a"][i-1].end {
			t.Errorf("group a: batch %d started before batch %d ended", i, i-1)
		}
	}
}

// eq reports a difference between got and want as a go-cmp diff. SDK
// types' unexported (empty) fields are compared too.
func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if diff := cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
	}
}
