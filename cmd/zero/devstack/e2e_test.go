package devstack

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/cost"
	"github.com/zero-gateway/zero/shared/metrics"
	"github.com/zero-gateway/zero/shared/ssmparam"
	"github.com/zero-gateway/zero/shared/telegram/telegramtest"
	"github.com/zero-gateway/zero/shared/workspace"
)

// invocationLog collects the functions' "done" log lines, which carry the
// AWS calls each invocation made (counted by an SDK middleware).
type invocationLog struct {
	t  *testing.T
	mu sync.Mutex
	// batches are the runner's, requests the webhook's.
	batches, requests []invocation
	// emf are the runner's EMF metric lines (shared/metrics), as
	// CloudWatch reads them; emfErrs the lines it would refuse.
	emf     []metrics.Parsed
	emfErrs []error
}

type invocation struct {
	Msg      string `json:"msg"`
	Records  int    `json:"records"`
	Status   int    `json:"status"`
	AWSCalls int    `json:"aws_calls"`
	AWSOps   string `json:"aws_ops"`
	// DurationMS is the handler's time (the runner's batch, the
	// webhook's request), without the Lambda runtime's own.
	DurationMS float64 `json:"duration_ms"`
}

func (l *invocationLog) Write(b []byte) (int, error) {
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if l.t != nil {
			l.t.Log(line)
		}
		_, js, ok := strings.Cut(line, "{")
		if !ok {
			continue
		}
		if strings.Contains(js, `"_aws"`) {
			p, err := metrics.Check([]byte("{" + js))
			l.mu.Lock()
			if err != nil {
				l.emfErrs = append(l.emfErrs, fmt.Errorf("%w: %s", err, line))
			} else {
				l.emf = append(l.emf, p)
			}
			l.mu.Unlock()
			continue
		}
		var inv invocation
		if json.Unmarshal([]byte("{"+js), &inv) != nil {
			continue
		}
		l.mu.Lock()
		switch inv.Msg {
		case "batch done":
			l.batches = append(l.batches, inv)
		case "request done":
			l.requests = append(l.requests, inv)
		}
		l.mu.Unlock()
	}
	return len(b), nil
}

func (l *invocationLog) snapshot() (batches, requests []invocation) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]invocation(nil), l.batches...), append([]invocation(nil), l.requests...)
}

const (
	e2eToken  = "123456:e2e-token"
	e2eSecret = "e2e_secret-0123456789abcdefghijklmn"
	// e2eGatewayToken is the gateway API's bearer token.
	e2eGatewayToken = "e2e-gateway-token-0123456789abcdefgh"
	// e2eHooksToken is the webhook hooks' bearer token.
	e2eHooksToken = "e2e-hooks-token-0123456789abcdefghij"
	// e2eConfig admits the sample update's sender (the webhook admits
	// nobody on a channel without allowFrom).
	e2eConfig = `{channels: {telegram: {allowFrom: ["*"], owners: ["*"]}}}`
)

// e2eStack starts the whole local stack from template.yaml with the real
// bootstraps, a fake Telegram and the offline model.
// configTTL 0 means the local default (DefaultConfigTTL).
func e2eStack(t *testing.T, quiet bool, configTTL time.Duration) (*Stack, *telegramtest.Server, *invocationLog) {
	need(t, "AWS emulator", emuErr)
	needRIE(t)
	tg := telegramtest.New(t, e2eToken)
	logs := &invocationLog{t: t}
	if quiet {
		logs.t = nil
	}
	st := startStack(t, Options{
		Template: translatedTemplate(t),
		Prefix:   uniquePrefix(t, "e2e"),
		Params: map[string]string{
			"TelegramBotId": "123456", "TelegramAPIBaseURL": tg.URL, "ZeroModel": "zero/echo",
		},
		// Written into the emulator's SSM as SecureString parameters,
		// where the functions read them at cold start.
		Secrets: map[string]string{
			"telegram-bot-token": e2eToken, "telegram-webhook-secret": e2eSecret, "gateway-token": e2eGatewayToken,
			"hooks-token": e2eHooksToken,
		},
		Config:    []byte(e2eConfig),
		ConfigTTL: configTTL,
		PollWait:  time.Second,
		Output:    logs,
	})
	return st, tg, logs
}

// postUpdate posts a Telegram update to the front and returns the status.
func postUpdate(t *testing.T, st *Stack, secret string, body []byte) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, st.FrontURL+"/webhooks/telegram", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST /webhooks/telegram: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// update returns the sample private-chat update with another id and text.
func update(t *testing.T, id int, text string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "events", "telegram-private-text.json"))
	if err != nil {
		t.Fatal(err)
	}
	var u map[string]any
	if err := json.Unmarshal(raw, &u); err != nil {
		t.Fatal(err)
	}
	u["update_id"] = id
	u["message"].(map[string]any)["text"] = text
	out, _ := json.Marshal(u)
	return out
}

func queueDepth(t *testing.T, st *Stack) int {
	t.Helper()
	out, err := sqs.NewFromConfig(st.AWSConfig).GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(st.Resources.Queues["WorkQueue"].URL),
		AttributeNames: []sqstypes.QueueAttributeName{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"},
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range out.Attributes {
		var i int
		fmt.Sscan(v, &i)
		n += i
	}
	return n
}

// TestEndToEndTelegram drives the real bootstraps under the RIE: Telegram
// update -> front -> webhook -> FIFO queue -> event source -> runner ->
// DynamoDB + S3 + sendMessage to a fake Telegram.
func TestEndToEndTelegram(t *testing.T) {
	st, tg, _ := e2eStack(t, false, 0)
	ctx := context.Background()

	t.Run("wrong or missing secret is 401 and queues nothing", func(t *testing.T) {
		for _, secret := range []string{"", "wrong-secret"} {
			if got := postUpdate(t, st, secret, update(t, 900, "intruder")); got != http.StatusUnauthorized {
				t.Fatalf("secret %q: status %d; want 401", secret, got)
			}
		}
		if n := queueDepth(t, st); n != 0 {
			t.Fatalf("queue holds %d messages after rejected requests; want 0", n)
		}
	})
	t.Run("malformed body is 400", func(t *testing.T) {
		if got := postUpdate(t, st, e2eSecret, []byte(`{"update_id":`)); got != http.StatusBadRequest {
			t.Fatalf("status %d; want 400", got)
		}
	})

	if got := postUpdate(t, st, e2eSecret, update(t, 1000, "Hello, ZERO!")); got != http.StatusOK {
		t.Fatalf("POST update: status %d; want 200", got)
	}
	sent := tg.WaitSent(t, 1)
	if sent[0].ChatID != "123456789" || sent[0].Text != "echo: Hello, ZERO!" {
		t.Fatalf("sendMessage = %+v; want the echo reply to chat 123456789", sent[0])
	}

	// The session entry is in DynamoDB, the transcript in S3.
	item, err := dynamodb.NewFromConfig(st.AWSConfig).GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(st.Resources.Tables["SessionTable"].Name), ConsistentRead: aws.Bool(true),
		Key: map[string]ddbtypes.AttributeValue{
			"pk": &ddbtypes.AttributeValueMemberS{Value: "session#agent:main:main"},
			"sk": &ddbtypes.AttributeValueMemberS{Value: "entry"},
		},
	})
	if err != nil || item.Item == nil {
		t.Fatalf("session entry: %v (item %v)", err, item)
	}
	sid, _ := item.Item["sessionId"].(*ddbtypes.AttributeValueMemberS)
	if sid == nil || len(sid.Value) != 36 {
		t.Fatalf("entry has no UUID sessionId: %v", item.Item["sessionId"])
	}
	for _, attr := range []string{"updatedAt", "channel", "chatType", "deliveryContext", "lastChannel", "lastTo", "origin", "totalTokens"} {
		if _, ok := item.Item[attr]; !ok {
			t.Errorf("entry lacks %s", attr)
		}
	}
	s3c := s3.NewFromConfig(st.AWSConfig, func(o *s3.Options) { o.UsePathStyle = true })
	key := "agents/main/sessions/" + sid.Value + ".jsonl.d/0000000001.jsonl"
	obj, err := s3c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(st.Resources.Buckets["TranscriptBucket"].Name), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("transcript part %s: %v", key, err)
	}
	part, _ := io.ReadAll(obj.Body)
	obj.Body.Close()
	lines := strings.Split(strings.TrimSpace(string(part)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"type":"session"`) || !strings.Contains(lines[1], "Hello, ZERO!") || !strings.Contains(lines[2], "echo: Hello, ZERO!") {
		t.Fatalf("transcript part =\n%s\nwant header, user and assistant lines", part)
	}

	t.Run("config is in the parameter the functions read", func(t *testing.T) {
		name := st.Resources.ConfigParameter
		for _, fn := range []string{"TelegramWebhook", "Runner"} {
			env := strings.Join(st.FunctionEnv[fn], "\n") + "\n"
			for _, want := range []string{"ZERO_CONFIG_PARAMETER=" + name + "\n", "ZERO_CONFIG_TTL=2s\n"} {
				if !strings.Contains(env, want) {
					t.Errorf("%s environment lacks %q", fn, strings.TrimSpace(want))
				}
			}
		}
		src := ssmparam.New(ssm.NewFromConfig(st.AWSConfig), name)
		data, v1, err := src.Fetch(ctx)
		if err != nil || string(data) != e2eConfig {
			t.Fatalf("parameter %s = %q, %v; want %q", name, data, err, e2eConfig)
		}
		v2, err := st.PutConfig(ctx, []byte(e2eConfig))
		if err != nil || v2 == v1 {
			t.Fatalf("PutConfig: version %q, %v; want a version after %q", v2, err, v1)
		}
	})

	// Telegram redelivers the same update: no second turn, no second reply.
	// The next update's reply proves the replay was handled first (same
	// FIFO group).
	if got := postUpdate(t, st, e2eSecret, update(t, 1000, "Hello, ZERO!")); got != http.StatusOK {
		t.Fatalf("replay: status %d; want 200", got)
	}
	if got := postUpdate(t, st, e2eSecret, update(t, 1001, "second")); got != http.StatusOK {
		t.Fatalf("second update: status %d; want 200", got)
	}
	// Both are in the session's FIFO group, so a repeated reply to the
	// replay would be sent before the reply to "second".
	tg.WaitSent(t, 2)
	if sent = tg.Messages(); len(sent) != 2 || sent[1].Text != "echo: second" {
		t.Fatalf("sendMessage calls = %+v; want exactly the first reply and \"echo: second\"", sent)
	}
}

// configReads is the number of zero.json reads (SSM GetParameter) in an
// invocation's aws_ops ("SQS.SendMessage=1 SSM.GetParameter=1").
func configReads(inv invocation) int { return opCount(inv, "SSM.GetParameter") }

// secretReads is the number of secret re-reads (SSM GetParameters, one per
// ZERO_SECRETS_TTL per function instance; the cold start's read is in its
// init, not in an invocation).
func secretReads(inv invocation) int { return opCount(inv, "SSM.GetParameters") }

// workspaceReads are the runner's listings of an agent's workspace, made
// once per workspace.DefaultTTL (60 s) per function instance.
func workspaceReads(inv invocation) int { return opCount(inv, "S3.ListObjectsV2") }

// modeReads are a channel function's reads of a session's own queue mode
// (DynamoDB GetItem), made once per ZERO_CONFIG_TTL per session and
// function instance (ingest.CachedModes).
func modeReads(inv invocation) int { return opCount(inv, "DynamoDB.GetItem") }

func opCount(inv invocation, op string) int {
	for _, field := range strings.Fields(inv.AWSOps) {
		if name, n, ok := strings.Cut(field, "="); ok && name == op {
			var i int
			fmt.Sscan(n, &i)
			return i
		}
	}
	return 0
}

// turnCalls are an invocation's AWS calls without the cached reads: a
// function re-reads zero.json once per ZERO_CONFIG_TTL (30 s deployed, 2 s
// here) and the workspace once per minute, not once per turn.
func turnCalls(inv invocation) int {
	return inv.AWSCalls - configReads(inv) - secretReads(inv) - workspaceReads(inv)
}

// TestTurnAWSCalls counts the AWS API calls of plain text turns on the
// end-to-end path (the functions log the count of each invocation, taken by
// an SDK middleware). It checks the design's budget: the webhook makes one
// call (SendMessage), the runner four (BatchGetItem, PutObject, the
// commit's TransactWriteItems, which also carries the run's record and
// events and checks the stop mark, and the record's UpdateItem): 5 in all,
// the same at the first turn and the last (but for the base object a
// context past its inline tail reads);
// config reads (at most one per invocation) are counted apart, as they
// happen once per config TTL, not per turn.
// With ZERO_BENCH=1 (make bench) it runs 200 turns and prints the numbers.
func TestTurnAWSCalls(t *testing.T) {
	turns := 3
	if os.Getenv("ZERO_BENCH") != "" {
		turns = 200
	}
	// The deployed re-read interval, so config_reads is what production pays.
	st, tg, logs := e2eStack(t, true, ssmparam.DefaultTTL)
	for i := 1; i <= turns; i++ {
		if got := postUpdate(t, st, e2eSecret, update(t, 5000+i, fmt.Sprintf("turn %d", i))); got != http.StatusOK {
			t.Fatalf("turn %d: status %d", i, got)
		}
		// One turn at a time, so every runner batch holds one record.
		tg.WaitSent(t, i)
	}
	batches, requests := logs.snapshot()
	waitUntil(t, func() bool { batches, requests = logs.snapshot(); return len(batches) >= turns })
	if len(requests) != turns {
		t.Fatalf("%d webhook invocations logged; want %d", len(requests), turns)
	}
	reads, wsReads, sessionModeReads := 0, 0, 0
	for i, r := range requests {
		if r.Status != http.StatusOK || turnCalls(r)-modeReads(r) != 1 || configReads(r) > 1 || modeReads(r) > 1 {
			t.Fatalf("webhook request %d: status %d, AWS calls %s; want 200, 1 call, at most 1 config read and 1 session mode read", i+1, r.Status, r.AWSOps)
		}
		reads += configReads(r)
		sessionModeReads += modeReads(r)
	}
	for i, b := range batches {
		if configReads(b) > 1 || workspaceReads(b) > 1 {
			t.Fatalf("runner batch %d reads the config or the workspace more than once (%s)", i+1, b.AWSOps)
		}
		reads += configReads(b)
		wsReads += workspaceReads(b)
	}
	first, last := batches[0], batches[turns-1]
	for _, b := range []invocation{first, last} {
		if b.Records != 1 {
			t.Fatalf("runner batch of %d records; want 1", b.Records)
		}
	}
	perTurn := func(b invocation) int { return turnCalls(b) + turnCalls(requests[0]) - modeReads(requests[0]) }
	webhook := func(r invocation) int { return turnCalls(r) - modeReads(r) }
	t.Logf("BENCH aws_calls_per_turn turn=1 total=%d webhook=%d runner=%d (%s)", perTurn(first), webhook(requests[0]), turnCalls(first), first.AWSOps)
	t.Logf("BENCH aws_calls_per_turn turn=%d total=%d webhook=%d runner=%d (%s)", turns, perTurn(last), webhook(requests[turns-1]), turnCalls(last), last.AWSOps)
	t.Logf("BENCH config_reads turns=%d reads=%d (ZERO_CONFIG_TTL %s, one per function instance per TTL)", turns, reads, ssmparam.DefaultTTL)
	t.Logf("BENCH session_mode_reads turns=%d reads=%d (the webhook's, one per chat and function instance per ZERO_CONFIG_TTL)", turns, sessionModeReads)
	t.Logf("BENCH workspace_reads turns=%d lists=%d (one per runner instance and agent per %s; no workspace files here)", turns, wsReads, workspace.DefaultTTL)
	const want = "DynamoDB.BatchGetItem=1 DynamoDB.TransactWriteItems=1 DynamoDB.UpdateItem=1 S3.PutObject=1"
	if got := turnOps(first); got != want {
		t.Errorf("runner calls of turn 1 %q; want %q", got, want)
	}
	// Past its 16 KiB inline tail (about 150 of these turns) a context
	// keeps its older messages in a base object, which a turn reads: one
	// S3.GetObject more (docs/agent-loop.md; TestLongSessionCost bounds
	// a long session's calls). Nothing else may grow.
	lastWant, extra := want, 0
	if strings.Contains(last.AWSOps, "S3.GetObject") {
		lastWant, extra = "DynamoDB.BatchGetItem=1 DynamoDB.TransactWriteItems=1 DynamoDB.UpdateItem=1 S3.GetObject=1 S3.PutObject=1", 1
	}
	if got := turnOps(last); got != lastWant {
		t.Errorf("runner calls of turn %d %q; want %q", turns, got, lastWant)
	}
	if perTurn(first) != 5 || perTurn(last) != 5+extra {
		t.Errorf("a turn makes %d AWS calls at turn 1 and %d at turn %d besides cached reads; want 5 and %d", perTurn(first), perTurn(last), turns, 5+extra)
	}
	reportTurnCost(t, batches[:turns], requests)
	checkTurnMetrics(t, logs, turns)
}

// checkTurnMetrics: the runner wrote one valid EMF line per turn, with the
// turn's own AWS calls (the commit's and the record's at least), a cost,
// tokens, no failure, and the function's name as the dimension.
func checkTurnMetrics(t *testing.T, logs *invocationLog, turns int) {
	t.Helper()
	logs.mu.Lock()
	emf, errs := slices.Clone(logs.emf), slices.Clone(logs.emfErrs)
	logs.mu.Unlock()
	if len(errs) > 0 {
		t.Fatalf("runner EMF lines CloudWatch would refuse: %v", errs)
	}
	if len(emf) != turns {
		t.Fatalf("%d EMF lines for %d turns; want one per turn", len(emf), turns)
	}
	for i, p := range emf {
		v := p.Values
		if p.Namespace != metrics.Namespace || p.Dimensions[metrics.FunctionDimension] == "" || v[metrics.Failures] != 0 ||
			v[metrics.AWSCalls] < 3 || v[metrics.InfraCost] <= 0 || v[metrics.OutputTokens] <= 0 || v[metrics.TurnLatency] <= 0 {
			t.Errorf("turn %d metrics %+v; want namespace ZERO, a Function, no failure, >= 3 AWS calls, a cost, tokens and a latency", i+1, p)
		}
	}
	t.Logf("BENCH turn_metrics last=%v", emf[len(emf)-1].Values)
}

// reportTurnCost prints what 1,000 plain turns cost at arm64 list prices
// from the last turn's counted calls (cached reads aside) and the mean
// measured handler times, beside the README's estimate
// (cost.EstimatePer1000PlainTurns), and checks that the counted calls are
// the per-turn profile every cost line prices (cost.TurnCalls).
func reportTurnCost(t *testing.T, batches, requests []invocation) {
	t.Helper()
	// The first turn's runner calls are the plain turn the profile prices:
	// a context still inline (a long one adds its base object's read).
	// The last webhook call: the first also read the session's queue mode,
	// which is cached per chat and TTL, not paid per turn.
	counted := opCounts(turnOps(batches[0]) + " " + turnOps(requests[len(requests)-1]))
	if diff := cmp.Diff(cost.TurnCalls, counted); diff != "" {
		t.Errorf("a plain turn's counted calls differ from cost.TurnCalls (-profile +counted):\n%s", diff)
	}
	mean := func(invs []invocation) time.Duration {
		var sum float64
		for _, inv := range invs {
			sum += inv.DurationMS
		}
		return time.Duration(sum / float64(len(invs)) * float64(time.Millisecond))
	}
	runner, webhook := mean(batches), mean(requests)
	if runner <= 0 || webhook <= 0 {
		t.Fatalf("no handler durations logged (runner %s, webhook %s)", runner, webhook)
	}
	calls, _ := cost.ListPrices.Calls(counted)
	measured := cost.ListPrices.Per1000(counted, runner, webhook)
	t.Logf("BENCH cost_per_1000_turns measured=%s readme_estimate=%s (calls %s; runner mean %s at %d MB, webhook mean %s at %d MB; %s us-east-1 list prices; the model and the trigger's own SQS polls not included)",
		cost.FormatUSD(measured), cost.FormatUSD(cost.EstimatePer1000PlainTurns()), cost.FormatUSD(1000*calls),
		runner.Round(time.Microsecond), cost.RunnerMemoryMB, webhook.Round(time.Microsecond), cost.WebhookMemoryMB, cost.DeployedArch)
}

// opCounts reads "Service.Op=n" fields into counts.
func opCounts(ops string) map[string]int {
	out := map[string]int{}
	for _, field := range strings.Fields(ops) {
		name, n, _ := strings.Cut(field, "=")
		c, _ := strconv.Atoi(n)
		out[name] += c
	}
	return out
}

// turnOps is an invocation's AWS calls ("Service.Op=n", sorted) without
// the cached reads (see turnCalls).
func turnOps(inv invocation) string {
	var ops []string
	for _, field := range strings.Fields(inv.AWSOps) {
		if name, _, _ := strings.Cut(field, "="); name != "SSM.GetParameter" && name != "SSM.GetParameters" && name != "S3.ListObjectsV2" {
			ops = append(ops, field)
		}
	}
	slices.Sort(ops)
	return strings.Join(ops, " ")
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
