package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/cmd/zero/devstack/provision"
	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/emulator"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/sqsqueue"
	"github.com/zero-gateway/zero/shared/ssmparam"
	"github.com/zero-gateway/zero/shared/telegram/telegramtest"
	"github.com/zero-gateway/zero/shared/turn/turntest"
)

// The runner's own wiring (setup) runs here against the table and bucket
// that template.yaml defines, provisioned on a moto server, with a fake
// Telegram: the crash tests of shared/turn, repeated on the real adapters.

var resources *provision.Resources

func TestMain(m *testing.M) {
	os.Exit(emulator.RunTests(m, nil, func(ctx context.Context, cfg aws.Config) (func(), error) {
		dir, err := os.MkdirTemp("", "runner-test-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		tmpl := filepath.Join(dir, "template.json")
		if err := template.Translate(ctx, "../..", "template.yaml", tmpl); err != nil {
			return nil, err
		}
		t, err := template.Load(tmpl)
		if err != nil {
			return nil, err
		}
		resources, err = provision.Provision(ctx, cfg, t, provision.Options{
			StackName: awstest.Name("rt-"),
			Params:    map[string]string{"TelegramBotId": "1"},
		})
		return nil, err
	}))
}

// newRunner wires the runner as main does, on the provisioned resources.
func newRunner(t *testing.T, model string, extraEnv map[string]string) (*turntest.CrashStore, func(inbound.Message, int) events.SQSEventResponse, *telegramtest.Server) {
	t.Helper()
	return newCountedRunner(t, model, extraEnv, nil)
}

// newCountedRunner is newRunner whose AWS calls (and their bytes) are
// counted on calls.
func newCountedRunner(t *testing.T, model string, extraEnv map[string]string, calls *awsconfig.Counter) (*turntest.CrashStore, func(inbound.Message, int) events.SQSEventResponse, *telegramtest.Server) {
	t.Helper()
	app, tg := newRunnerApp(t, model, extraEnv, calls)
	proc := app.proc
	crash := &turntest.CrashStore{Store: proc.Store}
	proc.Store = crash
	return crash, sqsDeliverer(proc.Handle), tg
}

// sqsDeliverer delivers a message to handle as one SQS record, as the
// queue trigger does.
func sqsDeliverer(handle sqsqueue.Handler) func(inbound.Message, int) events.SQSEventResponse {
	return func(m inbound.Message, attempt int) events.SQSEventResponse {
		body, _ := json.Marshal(m)
		ev := events.SQSEvent{Records: []events.SQSMessage{{
			MessageId: "m-" + m.ID, Body: string(body),
			Attributes: map[string]string{"ApproximateReceiveCount": fmt.Sprint(attempt), "MessageGroupId": m.QueueGroup()},
		}}}
		return sqsqueue.Consume(context.Background(), ev, handle)
	}
}

// newRunnerApp is the runner's app wired as main does, on the provisioned
// resources, replying to a fake Telegram.
func newRunnerApp(t *testing.T, model string, extraEnv map[string]string, calls *awsconfig.Counter) (*app, *telegramtest.Server) {
	t.Helper()
	tg := telegramtest.New(t, "1:t")
	values := map[string]string{secret.TelegramBotToken.Name: "1:t"}
	env := map[string]string{
		"ZERO_TABLE": resources.Tables["SessionTable"].Name, "ZERO_BUCKET": resources.Buckets["TranscriptBucket"].Name,
		"TELEGRAM_API_BASE_URL": tg.URL, "ZERO_MODEL": model,
		// The template's config parameter, as provisioned: "{}" (defaults).
		"ZERO_CONFIG_PARAMETER": resources.ConfigParameter,
	}
	for k, v := range extraEnv {
		if k == "OPENAI_API_KEY" { // a secret: into SSM
			values[secret.OpenAIAPIKey.Name] = v
			continue
		}
		env[k] = v
	}
	for k, v := range secretsEnv(t, values) {
		env[k] = v
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	app, err := setup(context.Background(), slog.New(slog.DiscardHandler), calls)
	if err != nil {
		t.Fatal(err)
	}
	return app, tg
}

func message(t *testing.T, text string) inbound.Message {
	id := awstest.Suffix()
	return inbound.Message{
		ID: "telegram:1:" + id, AgentID: "main", SessionKey: "agent:main:test-" + id,
		Channel: "telegram", ChatType: inbound.Direct, From: "telegram:7", To: "7", Text: text,
	}
}

// transcriptLines counts the lines stored for the session across all parts.
func transcriptLines(t *testing.T) map[string]int {
	t.Helper()
	cfg, err := awsconfig.Load(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	bucket := resources.Buckets["TranscriptBucket"].Name
	out, err := client.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String("agents/main/sessions/")})
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]int{}
	for _, o := range out.Contents {
		obj, err := client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: o.Key})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(obj.Body)
		obj.Body.Close()
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			lines[l]++
		}
	}
	return lines
}

func TestRunnerRetriesOnRealStores(t *testing.T) {
	tests := []struct {
		name      string
		crash     func(c *turntest.CrashStore)
		attempts  int
		wantSends int
	}{
		{"no crash", func(*turntest.CrashStore) {}, 1, 1},
		{"killed after the transcript part, before the commit", func(c *turntest.CrashStore) { c.CommitBefore = 1 }, 2, 1},
		{"killed after the commit, before the reply", func(c *turntest.CrashStore) { c.CommitAfter = 1 }, 2, 1},
		{"killed after the reply, before finishing (the one documented repeat)", func(c *turntest.CrashStore) { c.FinishBefore = 1 }, 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			crash, deliver, tg := newRunner(t, "zero/echo", nil)
			tc.crash(crash)
			m := message(t, "hello "+tc.name)
			before := transcriptLines(t)
			attempt := 1
			for ; attempt <= 3; attempt++ {
				if resp := deliver(m, attempt); len(resp.BatchItemFailures) == 0 {
					break
				}
			}
			if attempt != tc.attempts {
				t.Fatalf("done on attempt %d; want %d", attempt, tc.attempts)
			}
			// A replay hours later (past SQS's 5-minute dedup) does nothing.
			if resp := deliver(m, 1); len(resp.BatchItemFailures) != 0 {
				t.Fatalf("replay failed: %+v", resp)
			}
			if len(tg.Texts()) != tc.wantSends || tg.Texts()[0] != "echo: "+m.Text {
				t.Fatalf("Telegram got %q; want %d × the echo reply", tg.Texts(), tc.wantSends)
			}
			added := 0
			for line, n := range transcriptLines(t) {
				if n-before[line] > 1 {
					t.Errorf("transcript line written %d times: %.80s", n-before[line], line)
				}
				if strings.Contains(line, `"sourceId":"`+m.ID+`"`) {
					added++
				}
			}
			if added != 2 {
				t.Fatalf("%d transcript lines carry the message; want the user and the assistant line", added)
			}
		})
	}
}

// TestRunnerOpenAIModel runs a turn through the OpenAI-compatible adapter
// against a fake Chat Completions server.
func TestRunnerOpenAIModel(t *testing.T) {
	var got struct {
		Model    string `json:"model"`
		Messages []struct{ Role, Content string }
	}
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		json.NewDecoder(r.Body).Decode(&got)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c1","object":"chat.completion","created":1,"model":"test-model","choices":[{"index":0,"message":{"role":"assistant","content":"Hi from the model"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":4,"total_tokens":16}}`)
	}))
	defer llm.Close()
	_, deliver, tg := newRunner(t, "openai/test-model", map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": llm.URL + "/v1"})
	m := message(t, "hi model")
	if resp := deliver(m, 1); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("turn failed: %+v", resp)
	}
	if len(tg.Texts()) != 1 || tg.Texts()[0] != "Hi from the model" {
		t.Fatalf("Telegram got %q; want the model's answer", tg.Texts())
	}
	if got.Model != "test-model" || len(got.Messages) != 2 || got.Messages[0].Role != "system" || got.Messages[1].Content != "hi model" {
		t.Fatalf("model request = %+v; want test-model with the system prompt and the message", got)
	}
}

// TestRunnerFollowsConfigParameter: the runner reads zero.json from the
// template's SSM parameter. With a send policy that denies everything the
// turn runs and is recorded but nothing is sent; /status (a command,
// always answered) reports it.
func TestRunnerFollowsConfigParameter(t *testing.T) {
	ctx := context.Background()
	awsCfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	param := ssmparam.New(ssm.NewFromConfig(awsCfg), resources.ConfigParameter)
	if _, err := param.Put(ctx, []byte(`{session: {sendPolicy: {default: "deny"}}}`)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { param.Put(ctx, []byte("{}")) })

	_, deliver, tg := newRunner(t, "zero/echo", nil)
	m := message(t, "hello")
	if resp := deliver(m, 1); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("turn failed: %+v", resp)
	}
	if len(tg.Texts()) != 0 {
		t.Fatalf("Telegram got %q; the send policy denies delivery", tg.Texts())
	}
	recorded := 0
	for line := range transcriptLines(t) {
		if strings.Contains(line, `"sourceId":"`+m.ID+`"`) {
			recorded++
		}
	}
	if recorded != 2 {
		t.Fatalf("%d transcript lines carry the withheld turn; want its user and assistant lines", recorded)
	}
	status := message(t, "/status")
	status.SessionKey = m.SessionKey
	if resp := deliver(status, 1); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("/status failed: %+v", resp)
	}
	if len(tg.Texts()) != 1 || !strings.Contains(tg.Texts()[0], "Sending: off (from config)") {
		t.Fatalf("Telegram got %q; want the /status answer reporting sending off", tg.Texts())
	}
}

// secretsEnv writes the given secrets (by name) into SSM under a fresh
// stack's path and returns the runner's *_PARAMETER variables for them;
// the ones not given are named but not set.
func secretsEnv(t *testing.T, values map[string]string) map[string]string {
	t.Helper()
	stack := awstest.Name("rs-")
	cfg, err := awsconfig.Load(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, spec := range []secret.Spec{secret.TelegramBotToken, secret.OpenAIAPIKey, secret.AnthropicAPIKey} {
		param := secret.Parameter(stack, spec.Name)
		env[spec.Env] = param
		if v, ok := values[spec.Name]; ok {
			if _, err := ssmparam.PutSecret(context.Background(), ssm.NewFromConfig(cfg), param, v, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	return env
}

func TestSetupNamesMissingConfig(t *testing.T) {
	withToken := secretsEnv(t, map[string]string{secret.TelegramBotToken.Name: "1:t"})
	noToken := secretsEnv(t, nil)
	badToken := secretsEnv(t, map[string]string{secret.TelegramBotToken.Name: "no-bot-id"})
	tests := []struct {
		name, unset, model, want string
		secrets                  map[string]string
	}{
		{"no table", "ZERO_TABLE", "zero/echo", "ZERO_TABLE", withToken},
		{"no bot token parameter", "TELEGRAM_BOT_TOKEN_PARAMETER", "zero/echo", "TELEGRAM_BOT_TOKEN_PARAMETER", withToken},
		{"bot token not set in SSM", "", "zero/echo", "secret telegram-bot-token is not set", noToken},
		{"malformed bot token", "", "zero/echo", "secret telegram-bot-token is malformed", badToken},
		{"malformed model", "", "gpt-4", "ZERO_MODEL", withToken},
		{"unknown provider", "", "acme/x", "ZERO_MODEL", withToken},
		{"OpenAI without a key", "", "openai/gpt-4o-mini", "OPENAI_API_KEY", withToken},
		{"Anthropic without a key", "", "anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY", withToken},
		{"no config parameter", "ZERO_CONFIG_PARAMETER", "zero/echo", "ZERO_CONFIG_PARAMETER", withToken},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range map[string]string{"ZERO_TABLE": "t", "ZERO_BUCKET": "b", "ZERO_MODEL": tc.model, "OPENAI_BASE_URL": "", "ANTHROPIC_BASE_URL": "", "ZERO_CONFIG_PARAMETER": "/zero/t/config"} {
				t.Setenv(k, v)
			}
			for k, v := range tc.secrets {
				t.Setenv(k, v)
			}
			if tc.unset != "" {
				t.Setenv(tc.unset, "")
			}
			_, err := setup(context.Background(), slog.New(slog.DiscardHandler), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("setup = %v; want an error naming %s", err, tc.want)
			}
		})
	}
}

// TestSampleEvent runs events/runner-sqs-batch.json (the event
// `sam local invoke Runner -e` would use) through the runner's handler.
func TestSampleEvent(t *testing.T) {
	raw, err := os.ReadFile("../../events/runner-sqs-batch.json")
	if err != nil {
		t.Fatal(err)
	}
	var ev events.SQSEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatalf("sample event: %v", err)
	}
	// A fresh message id per run: the store remembers handled ones.
	var m inbound.Message
	if err := json.Unmarshal([]byte(ev.Records[0].Body), &m); err != nil {
		t.Fatalf("sample body: %v", err)
	}
	m.ID, m.SessionKey = message(t, "").ID, message(t, "").SessionKey
	body, _ := json.Marshal(m)
	ev.Records[0].Body = string(body)
	_, _, tg := newRunner(t, "zero/echo", nil)
	app, err := setup(context.Background(), slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp := app.consumer.Consume(context.Background(), ev); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("sample event failed: %+v", resp)
	}
	if len(tg.Texts()) != 1 || tg.Texts()[0] != "echo: Hello, ZERO!" {
		t.Fatalf("Telegram got %q; want the echo reply", tg.Texts())
	}
}

// TestRunnerSecretsReadOnceAndRotated: the runner reads its secrets (bot
// token, model keys) with one GetParameters at cold start and none per
// turn; a rotated model key reaches the model once ZERO_SECRETS_TTL has
// passed.
func TestRunnerSecretsReadOnceAndRotated(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	defer llm.Close()
	tg := telegramtest.New(t, "1:t")
	env := secretsEnv(t, map[string]string{secret.TelegramBotToken.Name: "1:t", secret.OpenAIAPIKey.Name: "sk-old"})
	for k, v := range env {
		t.Setenv(k, v)
	}
	for k, v := range map[string]string{
		"ZERO_TABLE": resources.Tables["SessionTable"].Name, "ZERO_BUCKET": resources.Buckets["TranscriptBucket"].Name,
		"TELEGRAM_API_BASE_URL": tg.URL, "ZERO_MODEL": "openai/m", "OPENAI_BASE_URL": llm.URL + "/v1",
		"ZERO_CONFIG_PARAMETER": resources.ConfigParameter, "ZERO_SECRETS_TTL": "300ms",
	} {
		t.Setenv(k, v)
	}
	calls := awsconfig.NewCounter()
	app, err := setup(context.Background(), slog.New(slog.DiscardHandler), calls)
	if err != nil {
		t.Fatal(err)
	}
	if got := calls.String(); got != "SSM.GetParameters=1" {
		t.Errorf("cold start made %s; want SSM.GetParameters=1", got)
	}
	deliver := func(m inbound.Message) {
		t.Helper()
		body, _ := json.Marshal(m)
		ev := events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m-" + m.ID, Body: string(body),
			Attributes: map[string]string{"ApproximateReceiveCount": "1", "MessageGroupId": m.QueueGroup()}}}}
		if resp := sqsqueue.Consume(context.Background(), ev, app.proc.Handle); len(resp.BatchItemFailures) != 0 {
			t.Fatalf("turn failed: %+v", resp)
		}
	}
	calls.Reset()
	deliver(message(t, "one"))
	if strings.Contains(calls.String(), "GetParameters") {
		t.Errorf("a turn within the TTL read the secrets (%s)", calls)
	}
	cfg, _ := awsconfig.Load(context.Background(), nil)
	if _, err := ssmparam.PutSecret(context.Background(), ssm.NewFromConfig(cfg), env[secret.OpenAIAPIKey.Env], "sk-new", ""); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	deliver(message(t, "two"))
	mu.Lock()
	defer mu.Unlock()
	if len(keys) != 2 || keys[0] != "Bearer sk-old" || keys[1] != "Bearer sk-new" {
		t.Errorf("the model saw keys %q; want sk-old, then sk-new after the rotation", keys)
	}
}
