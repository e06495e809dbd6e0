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
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/zero-gateway/zero/shared/awsconfig"
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
		translateErr = Translate(context.Background(), repoRoot(t), "template.yaml", translated)
	})
	need(t, "aws-sam-translator", translateErr)
	return translated
}

// testParams are values for the template's required parameters.
var testParams = map[string]string{"TelegramBotToken": "123456:test-token", "TelegramWebhookSecret": "test_secret-1"}

func TestProvisionFromTemplate(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	t.Parallel()
	ctx := context.Background()
	tmpl, err := LoadTemplate(translatedTemplate(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	prefix := uniquePrefix(t, "prov")
	opts := ProvisionOptions{StackName: prefix, Params: testParams, Logf: t.Logf}
	res, err := Provision(ctx, cfg, tmpl, opts)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("queues", func(t *testing.T) {
		client := sqs.NewFromConfig(cfg)
		dlq, work := res.Queues["DeadLetterQueue"], res.Queues["WorkQueue"]
		eq(t, "work name", work.Name, prefix+"-workqueue.fifo")
		eq(t, "dlq name", dlq.Name, prefix+"-deadletterqueue.fifo")
		attrs := queueAttrs(t, client, work.URL)
		eq(t, "FifoQueue", attrs["FifoQueue"], "true")
		eq(t, "ContentBasedDeduplication", attrs["ContentBasedDeduplication"], "false")
		eq(t, "VisibilityTimeout", attrs["VisibilityTimeout"], "5400")
		eq(t, "MessageRetentionPeriod", attrs["MessageRetentionPeriod"], "345600")
		eq(t, "QueueArn", attrs["QueueArn"], work.ARN)
		var redrive struct {
			DeadLetterTargetArn string `json:"deadLetterTargetArn"`
			MaxReceiveCount     any    `json:"maxReceiveCount"`
		}
		if err := json.Unmarshal([]byte(attrs["RedrivePolicy"]), &redrive); err != nil {
			t.Fatalf("RedrivePolicy %q: %v", attrs["RedrivePolicy"], err)
		}
		eq(t, "deadLetterTargetArn", redrive.DeadLetterTargetArn, dlq.ARN)
		eq(t, "maxReceiveCount", fmt.Sprint(redrive.MaxReceiveCount), "5")
		dattrs := queueAttrs(t, client, dlq.URL)
		eq(t, "dlq FifoQueue", dattrs["FifoQueue"], "true")
		eq(t, "dlq MessageRetentionPeriod", dattrs["MessageRetentionPeriod"], "1209600")
	})

	t.Run("table", func(t *testing.T) {
		client := dynamodb.NewFromConfig(cfg)
		tbl := res.Tables["SessionTable"]
		eq(t, "name", tbl.Name, prefix+"-sessiontable")
		d, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(tbl.Name)})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "keys", d.Table.KeySchema, []ddbtypes.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: ddbtypes.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: ddbtypes.KeyTypeRange},
		})
		types := map[string]ddbtypes.ScalarAttributeType{}
		for _, a := range d.Table.AttributeDefinitions {
			types[aws.ToString(a.AttributeName)] = a.AttributeType
		}
		eq(t, "attribute types", types, map[string]ddbtypes.ScalarAttributeType{
			"pk": "S", "sk": "S", "agentId": "S", "updatedAt": "N", "sessionId": "S",
		})
		indexes := map[string][]ddbtypes.KeySchemaElement{}
		for _, gsi := range d.Table.GlobalSecondaryIndexes {
			indexes[aws.ToString(gsi.IndexName)] = gsi.KeySchema
		}
		eq(t, "indexes", indexes, map[string][]ddbtypes.KeySchemaElement{
			"byAgent": {
				{AttributeName: aws.String("agentId"), KeyType: ddbtypes.KeyTypeHash},
				{AttributeName: aws.String("updatedAt"), KeyType: ddbtypes.KeyTypeRange},
			},
			"bySessionId": {{AttributeName: aws.String("sessionId"), KeyType: ddbtypes.KeyTypeHash}},
		})
		if d.Table.BillingModeSummary != nil {
			eq(t, "billing", d.Table.BillingModeSummary.BillingMode, ddbtypes.BillingModePayPerRequest)
		}
		ttl, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(tbl.Name)})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "ttl attribute", aws.ToString(ttl.TimeToLiveDescription.AttributeName), "ttl")
		eq(t, "ttl status", ttl.TimeToLiveDescription.TimeToLiveStatus, ddbtypes.TimeToLiveStatusEnabled)
	})

	t.Run("bucket", func(t *testing.T) {
		client := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
		b := res.Buckets["TranscriptBucket"]
		eq(t, "name", b.Name, prefix+"-transcriptbucket")
		enc, err := client.GetBucketEncryption(ctx, &s3.GetBucketEncryptionInput{Bucket: aws.String(b.Name)})
		if err != nil {
			t.Fatal(err)
		}
		rules := enc.ServerSideEncryptionConfiguration.Rules
		if len(rules) != 1 || rules[0].ApplyServerSideEncryptionByDefault == nil {
			t.Fatalf("encryption rules = %+v", rules)
		}
		eq(t, "sse", string(rules[0].ApplyServerSideEncryptionByDefault.SSEAlgorithm), "AES256")
		pab, err := client.GetPublicAccessBlock(ctx, &s3.GetPublicAccessBlockInput{Bucket: aws.String(b.Name)})
		if err != nil {
			t.Fatal(err)
		}
		c := pab.PublicAccessBlockConfiguration
		eq(t, "public access block", []bool{aws.ToBool(c.BlockPublicAcls), aws.ToBool(c.BlockPublicPolicy), aws.ToBool(c.IgnorePublicAcls), aws.ToBool(c.RestrictPublicBuckets)}, []bool{true, true, true, true})
		own, err := client.GetBucketOwnershipControls(ctx, &s3.GetBucketOwnershipControlsInput{Bucket: aws.String(b.Name)})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "ownership", string(own.OwnershipControls.Rules[0].ObjectOwnership), "BucketOwnerEnforced")
	})

	t.Run("functions", func(t *testing.T) {
		wh, run := res.Functions["TelegramWebhook"], res.Functions["Runner"]
		eq(t, "webhook dir", wh.SourceDir, "./functions/telegram-webhook")
		eq(t, "runner dir", run.SourceDir, "./functions/runner")
		eq(t, "webhook timeout", wh.Timeout, 10*time.Second)
		eq(t, "runner timeout", run.Timeout, 900*time.Second)
		eq(t, "webhook env", wh.Env, map[string]string{
			"ZERO_QUEUE_URL":          res.Queues["WorkQueue"].URL,
			"ZERO_TABLE":              prefix + "-sessiontable",
			"TELEGRAM_WEBHOOK_SECRET": "test_secret-1",
			"TELEGRAM_BOT_TOKEN":      "123456:test-token",
			"ZERO_CONFIG_PARAMETER":   "/zero/" + prefix + "/config",
		})
		eq(t, "runner env", run.Env, map[string]string{
			"ZERO_TABLE":            prefix + "-sessiontable",
			"ZERO_BUCKET":           prefix + "-transcriptbucket",
			"TELEGRAM_BOT_TOKEN":    "123456:test-token",
			"TELEGRAM_API_BASE_URL": "https://api.telegram.org",
			"OPENAI_API_KEY":        "",
			"ANTHROPIC_API_KEY":     "",
			"OPENAI_BASE_URL":       "https://api.openai.com/v1",
			"ZERO_MODEL":            "zero/echo",
			"ZERO_CONFIG_PARAMETER": "/zero/" + prefix + "/config",
			// One parameter feeds both this and the redrive policy's
			// maxReceiveCount (checked under queues), so they cannot drift.
			"ZERO_QUEUE_URL":          res.Queues["WorkQueue"].URL,
			"ZERO_MAX_RECEIVE_COUNT":  "5",
			"ZERO_GROUP_CONCURRENCY":  "10",
			"ZERO_MIN_BUDGET_SECONDS": "120",
			"ZERO_RETRY_BASE_SECONDS": "5",
			"ZERO_RETRY_MAX_SECONDS":  "300",
		})
		eq(t, "routes", res.Routes, []Route{
			{Method: "POST", Path: "/rpc", Function: "Gateway"},
			{Method: "POST", Path: "/webhooks/telegram", Function: "TelegramWebhook"},
		})
		gw := res.Functions["Gateway"]
		eq(t, "gateway dir", gw.SourceDir, "./functions/gateway")
		eq(t, "gateway timeout", gw.Timeout, 30*time.Second)
		eq(t, "gateway env", gw.Env, map[string]string{
			"ZERO_GATEWAY_TOKEN":    "",
			"ZERO_TABLE":            prefix + "-sessiontable",
			"ZERO_BUCKET":           prefix + "-transcriptbucket",
			"ZERO_QUEUE_URL":        res.Queues["WorkQueue"].URL,
			"ZERO_CONFIG_PARAMETER": "/zero/" + prefix + "/config",
		})
		eq(t, "event sources", res.EventSources, []EventSource{{
			LogicalID: "RunnerWork", Function: "Runner", Queue: "WorkQueue",
			QueueURL: res.Queues["WorkQueue"].URL, QueueARN: res.Queues["WorkQueue"].ARN,
			BatchSize: 10, ReportBatchItemFailures: true, Enabled: true, MaximumConcurrency: 10,
		}})
	})

	t.Run("config parameter", func(t *testing.T) {
		name := "/zero/" + prefix + "/config"
		eq(t, "parameters", res.SSMParameters, map[string]SSMParameter{
			"ConfigParameter": {LogicalID: "ConfigParameter", Name: name, Type: "String"},
		})
		eq(t, "config parameter", res.ConfigParameter, name)
		got := describeParameter(t, ssm.NewFromConfig(cfg), name)
		eq(t, "value", got.value, "{}")
		eq(t, "type", got.typ, "String")
		eq(t, "description", got.description, "ZERO configuration (zero.json, JSON or JSON5).")
	})

	t.Run("idempotent", func(t *testing.T) {
		again, err := Provision(ctx, cfg, tmpl, opts)
		if err != nil {
			t.Fatalf("second Provision: %v", err)
		}
		eq(t, "queues", again.Queues, res.Queues)
		eq(t, "tables", again.Tables, res.Tables)
		eq(t, "buckets", again.Buckets, res.Buckets)
		eq(t, "parameters", again.SSMParameters, res.SSMParameters)
	})
}

// ssmTemplate has a named parameter the function reads its config from,
// an unnamed StringList, and refers to both.
const ssmTemplate = `{
  "Parameters": {"Doc": {"Type": "String", "Default": "{a: 1}"}},
  "Resources": {
    "Config": {"Type": "AWS::SSM::Parameter", "Properties": {
      "Name": {"Fn::Sub": "/zero/${AWS::StackName}/config"}, "Type": "String",
      "Value": {"Ref": "Doc"}, "Description": "the doc", "Tier": "Intelligent-Tiering"}},
    "Hosts": {"Type": "AWS::SSM::Parameter", "Properties": {"Type": "StringList", "Value": ["a", "b"],
      "Tags": {"team": "zero"}}},
    "Fn": {"Type": "AWS::Lambda::Function", "Properties": {"Environment": {"Variables": {
      "ZERO_CONFIG_PARAMETER": {"Ref": "Config"}, "HOSTS": {"Fn::GetAtt": ["Hosts", "Value"]},
      "HOSTS_NAME": {"Ref": "Hosts"}}}}}
  }
}`

func TestProvisionSSMParameter(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "template.json")
	if err := os.WriteFile(path, []byte(ssmTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	tmpl, err := LoadTemplate(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := ssm.NewFromConfig(cfg)
	prefix := uniquePrefix(t, "ssm")
	configName, hostsName := "/zero/"+prefix+"/config", prefix+"-hosts"
	t.Cleanup(func() {
		client.DeleteParameters(context.Background(), &ssm.DeleteParametersInput{Names: []string{configName, hostsName}})
	})
	res, err := Provision(ctx, cfg, tmpl, ProvisionOptions{StackName: prefix, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "parameters", res.SSMParameters, map[string]SSMParameter{
		"Config": {LogicalID: "Config", Name: configName, Type: "String"},
		"Hosts":  {LogicalID: "Hosts", Name: hostsName, Type: "StringList"},
	})
	eq(t, "config parameter", res.ConfigParameter, configName)
	eq(t, "env", res.Functions["Fn"].Env, map[string]string{
		"ZERO_CONFIG_PARAMETER": configName, "HOSTS": "a,b", "HOSTS_NAME": hostsName,
	})
	got := describeParameter(t, client, configName)
	eq(t, "config", got, parameterState{value: "{a: 1}", typ: "String", description: "the doc", version: 1})
	got = describeParameter(t, client, hostsName)
	eq(t, "hosts", got, parameterState{value: "a,b", typ: "StringList", version: 1})

	// Provisioning again sets the template's value, as a stack update
	// does: a new version.
	if _, err := Provision(ctx, cfg, tmpl, ProvisionOptions{StackName: prefix, Params: map[string]string{"Doc": "{a: 2}"}}); err != nil {
		t.Fatalf("second Provision: %v", err)
	}
	got = describeParameter(t, client, configName)
	eq(t, "config after update", got, parameterState{value: "{a: 2}", typ: "String", description: "the doc", version: 2})
}

type parameterState struct {
	value, typ, description string
	version                 int64
}

// describeParameter reads a parameter's value, type, description and version.
func describeParameter(t *testing.T, client *ssm.Client, name string) parameterState {
	t.Helper()
	ctx := context.Background()
	got, err := client.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(name)})
	if err != nil {
		t.Fatalf("get parameter %s: %v", name, err)
	}
	st := parameterState{value: aws.ToString(got.Parameter.Value), typ: string(got.Parameter.Type), version: got.Parameter.Version}
	desc, err := client.DescribeParameters(ctx, &ssm.DescribeParametersInput{
		ParameterFilters: []ssmtypes.ParameterStringFilter{{Key: aws.String("Name"), Option: aws.String("Equals"), Values: []string{name}}},
	})
	if err != nil || len(desc.Parameters) != 1 {
		t.Fatalf("describe parameter %s: %v (%d found)", name, err, len(desc.Parameters))
	}
	st.description = aws.ToString(desc.Parameters[0].Description)
	return st
}

func queueAttrs(t *testing.T, client *sqs.Client, url string) map[string]string {
	t.Helper()
	out, err := client.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Attributes
}

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
	if err := Build(context.Background(), repoRoot(t), src, out); err != nil {
		t.Fatal(err)
	}
	builtFuncs[name] = out
	return out
}

func needRIE(t *testing.T) {
	t.Helper()
	_, err := FindRIE(repoRoot(t))
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
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { st.Close() })
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
		eq(t, "endpoint env", resp.Header.Get("X-Endpoint"), st.EndpointURL)
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

	t.Run("killed RIE processes are restarted", func(t *testing.T) {
		p := st.pools["TelegramWebhook"]
		for _, pr := range p.procs {
			_ = syscall.Kill(-pr.cmd.Process.Pid, syscall.SIGKILL)
			<-pr.exited
		}
		for i := 0; i < 2*len(p.procs); i++ {
			out, err := st.Invoke(context.Background(), "TelegramWebhook", []byte(`{"direct":true}`))
			if err != nil {
				t.Fatalf("invoke %d after kill: %v", i, err)
			}
			eq(t, "echo", string(out), `{"direct":true}`)
		}
	})

	t.Run("direct invoke reports function errors", func(t *testing.T) {
		ev, _ := json.Marshal(events.APIGatewayV2HTTPRequest{Version: "2.0", Body: "fail"})
		_, err := st.Invoke(context.Background(), "TelegramWebhook", ev)
		fe, ok := err.(*FunctionError)
		if !ok {
			t.Fatalf("error = %v, want *FunctionError", err)
		}
		eq(t, "message", fe.Message, "asked to fail")
	})
}

// esmTemplate is a minimal template for the event source mapping test: a
// FIFO queue with a 2 s visibility timeout, a function and its trigger.
const esmTemplate = `{
  "Parameters": {"Greeting": {"Type": "String", "Default": "hi"}},
  "Resources": {
    "Jobs": {"Type": "AWS::SQS::Queue", "Properties": {"FifoQueue": true, "ContentBasedDeduplication": false, "VisibilityTimeout": 2}},
    "Worker": {"Type": "AWS::Lambda::Function", "Properties": {"Timeout": 10,
      "Environment": {"Variables": {"JOBS_URL": {"Ref": "Jobs"}, "GREETING": {"Ref": "Greeting"}}}}},
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
	waitFor := func(what string, ok func(ESMStats) bool) {
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
	waitFor("a-1 received", func(s ESMStats) bool { return s.Batches >= 1 })
	send("a", "a-2")
	send("b", "b-1")
	send("a", "a-3")
	waitFor("all deleted", func(s ESMStats) bool { return s.Deleted >= 4 })

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
