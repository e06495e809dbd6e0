package devstack

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/cmd/zero/devstack/rie"
	"github.com/zero-gateway/zero/cmd/zero/devstack/template"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/ssmparam"
)

// The load benchmarks of `make load` (issue 9): synthetic Telegram chats
// post updates to the local stack's real webhook (the HTTP front, with the
// secret header), the real runner answers them through the FIFO queue and
// the event-source emulator with a scripted OpenAI-compatible model, and a
// recording Telegram checks that every message is answered once, in each
// chat's order. They are benchmarks so that `make test` (no -bench) never
// runs them; run them with
//
//	make load
//	go test -run '^$' -bench 'Load|FanIn' -benchtime 1x -timeout 30m ./cmd/zero/devstack/
//
// Parameters come from the environment (defaults in brackets):
// LOAD_CHATS [100], LOAD_MESSAGES [5], LOAD_DELAY [0s] (the model's delay),
// LOAD_QUEUE_MODE [collect], LOAD_SENDERS [16] (updates posted at once),
// LOAD_TIMEOUT [10m] (a run that takes longer fails), FANIN_CHATS [20],
// FANIN_DELAY [3s].

const (
	loadBotToken      = "424242:load-token"
	loadWebhookSecret = "load_secret-0123456789abcdefghijklm"
	loadModelKey      = "sk-load"
	// loadChatBase + n is the Telegram chat (and user) id of chat n.
	loadChatBase = 700_000_000
	// loadSettle is how long a run keeps listening after the last expected
	// reply, so that a late duplicate is still counted.
	loadSettle = 2 * time.Second
)

// loadParams are the parameters of one benchmark run.
type loadParams struct {
	chats, messages int
	delay           time.Duration
	delayOf         func(chat int) time.Duration // nil: delay for every chat
	queueMode       string
	senders         int
	timeout         time.Duration
}

// BenchmarkLoad sends LOAD_CHATS chats × LOAD_MESSAGES messages through the
// webhook (each chat's messages one after another, as Telegram delivers
// them; LOAD_SENDERS updates in flight at once across chats) and measures:
//
//   - msgs/s: messages answered per second, from the first update posted to
//     the last reply received (a message counts as answered when the reply
//     that covers it arrives; in queue mode collect one reply may cover
//     several queued messages of a chat);
//   - the emulator's ceiling: consistent DynamoDB GetItem calls per second
//     from 8 goroutines straight to the emulator, measured in the same run
//     just before the load; measured again after it, with a one-item
//     TransactWriteItems probe before and after and the session table's
//     item count, to show how the emulator's cost grows with its data;
//   - AWS calls per message: what the webhook and the runner report per
//     invocation (their SDK call counters, as TestTurnAWSCalls reads them;
//     cached config and workspace reads excluded), over the messages sent;
//   - the share of the ceiling the load used: msgs/s × calls per message ÷
//     ceiling; and, from a counting proxy in front of the emulator, every
//     call it served during the run (the event-source emulator's polling
//     included) with the operations that took the most of its time;
//   - lost, duplicated and out-of-order messages (also misrouted replies,
//     replies naming no message, refused Bot API requests): any of them
//     fails the benchmark.
func BenchmarkLoad(b *testing.B) {
	p := loadParams{
		chats:     envInt(b, "LOAD_CHATS", 100),
		messages:  envInt(b, "LOAD_MESSAGES", 5),
		delay:     envDuration(b, "LOAD_DELAY", 0),
		queueMode: envString("LOAD_QUEUE_MODE", config.QueueCollect),
		senders:   envInt(b, "LOAD_SENDERS", 16),
		timeout:   envDuration(b, "LOAD_TIMEOUT", 10*time.Minute),
	}
	rig := startLoadRig(b, "load", p)
	probeCtx, cancelProbe := context.WithTimeout(b.Context(), time.Minute)
	ceiling, transactBefore := rig.emulatorRates(b, probeCtx)
	itemsBefore := rig.tableItems(probeCtx)
	cancelProbe()
	proxyBefore, _ := rig.proxy.snapshot()
	want := p.chats * p.messages

	// LOAD_TIMEOUT bounds the load itself: posting and waiting for replies.
	ctx, cancel := context.WithTimeout(b.Context(), p.timeout)
	defer cancel()
	b.ResetTimer()
	start := time.Now()
	sendTime, err := rig.sendChats(ctx, p)
	if err != nil {
		b.Fatalf("sending updates: %v", err)
	}
	if err := rig.waitCovered(ctx, want); err != nil {
		printCorrectness("LOAD", p, rig.tally(p))
		rig.logProblems(b)
		b.Fatalf("load %d chats × %d messages did not finish within LOAD_TIMEOUT %s (%d of %d answered): %v",
			p.chats, p.messages, p.timeout, rig.telegram.coveredCount(), want, err)
	}
	covered := time.Now()
	served, servedCalls := rig.proxy.since(proxyBefore)
	time.Sleep(loadSettle)
	b.StopTimer()

	tl := rig.tally(p)
	probeCtx, cancelProbe = context.WithTimeout(b.Context(), time.Minute)
	defer cancelProbe()
	itemsAfter := rig.tableItems(probeCtx)
	getItemAfter, transactAfter := rig.emulatorRates(b, probeCtx)
	elapsed := tl.lastReply.Sub(start)
	rate := float64(tl.answered) / elapsed.Seconds()

	batches, requests := rig.output.calls.snapshot()
	webhookCalls, runnerCalls := 0, 0
	for _, r := range requests {
		webhookCalls += turnCalls(r)
	}
	for _, bt := range batches {
		runnerCalls += turnCalls(bt)
	}
	perMessage := float64(webhookCalls+runnerCalls) / float64(want)
	share := 100 * rate * perMessage / ceiling
	servedRate := float64(servedCalls) / covered.Sub(start).Seconds()
	stats, _ := rig.stack.Stats("RunnerWork")

	fmt.Printf("LOAD run chats=%d messages=%d delay=%s queue_mode=%s senders=%d: answered=%d/%d replies=%d in %s, posting took %s\n",
		p.chats, p.messages, p.delay, p.queueMode, p.senders, tl.answered, want, tl.replies, elapsed.Round(time.Millisecond), sendTime.Round(time.Millisecond))
	fmt.Printf("LOAD msgs_per_s=%.1f (first update posted -> last reply; target >= 20)\n", rate)
	fmt.Printf("LOAD emulator_ceiling calls_per_s=%.0f (consistent DynamoDB GetItem, 8 goroutines for 2s, same emulator, just before the load)\n", ceiling)
	fmt.Printf("LOAD emulator_table_growth items=%d->%d getitem_per_s=%.0f->%.0f transactwrite_per_s=%.0f->%.0f (before -> after the load, same probes)\n",
		itemsBefore, itemsAfter, ceiling, getItemAfter, transactBefore, transactAfter)
	fmt.Printf("LOAD aws_calls_per_msg=%.2f (webhook %.2f + runner %.2f, the functions' SDK counters; config and workspace reads excluded) per_reply=%.2f\n",
		perMessage, float64(webhookCalls)/float64(want), float64(runnerCalls)/float64(want), float64(webhookCalls+runnerCalls)/float64(max(tl.replies, 1)))
	fmt.Printf("LOAD emulator_share=%.1f%% (msgs/s %.1f x calls/msg %.2f / ceiling %.0f calls/s)\n", share, rate, perMessage, ceiling)
	fmt.Printf("LOAD emulator_served calls=%d calls_per_s=%.0f (%.0f%% of the ceiling; every call the emulator answered, the event-source emulator's polling included) top: %s\n",
		servedCalls, servedRate, 100*servedRate/ceiling, describeOps(served, 5))
	fmt.Printf("LOAD runner batches=%d mean_records=%.1f item_failures=%d failed_batches=%d; model calls=%d max_concurrent=%d; function warnings/errors=%d\n",
		stats.Batches, float64(stats.Messages)/float64(max(stats.Batches, 1)), stats.ItemFailures, stats.FailedBatches,
		rig.model.calls.Load(), rig.model.maxSeen.Load(), rig.output.problemCount())
	b.ReportMetric(rate, "msgs/s")
	b.ReportMetric(share, "%ceiling")
	b.ReportMetric(perMessage, "calls/msg")
	rig.failOnFaults(b, "LOAD", p, tl)
}

// BenchmarkFanIn sends one message from each of FANIN_CHATS chats at the
// same moment, with a model that takes FANIN_DELAY per answer, and reports
// when the last reply arrived, as a multiple of the model's delay (ideal:
// 1, target: at most 2): sessions have nothing to do with each other, so
// none should wait for another's model call. Lost, duplicated or
// out-of-order replies fail it, as in BenchmarkLoad.
func BenchmarkFanIn(b *testing.B) {
	p := loadParams{
		chats:     envInt(b, "FANIN_CHATS", 20),
		messages:  1,
		delay:     envDuration(b, "FANIN_DELAY", 3*time.Second),
		queueMode: envString("LOAD_QUEUE_MODE", config.QueueCollect),
		senders:   envInt(b, "FANIN_CHATS", 20),
		timeout:   envDuration(b, "LOAD_TIMEOUT", 10*time.Minute),
	}
	if p.delay <= 0 {
		b.Fatalf("FANIN_DELAY %s: want a positive delay (the result is a multiple of it)", p.delay)
	}
	rig := startLoadRig(b, "fanin", p)
	ctx, cancel := context.WithTimeout(b.Context(), p.timeout)
	defer cancel()

	b.ResetTimer()
	start := time.Now()
	sendTime, err := rig.sendChats(ctx, p)
	if err != nil {
		b.Fatalf("sending updates: %v", err)
	}
	if err := rig.waitCovered(ctx, p.chats); err != nil {
		printCorrectness("FANIN", p, rig.tally(p))
		rig.logProblems(b)
		b.Fatalf("fan-in of %d chats did not finish within LOAD_TIMEOUT %s (%d answered): %v", p.chats, p.timeout, rig.telegram.coveredCount(), err)
	}
	time.Sleep(loadSettle)
	b.StopTimer()

	tl := rig.tally(p)
	last := tl.lastReply.Sub(start)
	ratio := last.Seconds() / p.delay.Seconds()
	stats, _ := rig.stack.Stats("RunnerWork")
	fmt.Printf("FANIN chats=%d delay=%s last_reply=%s ratio=%.1fx (last reply / model delay; target <= 2) first_reply=%s posting_took=%s model_max_concurrent=%d runner_batches=%d\n",
		p.chats, p.delay, last.Round(time.Millisecond), ratio, tl.firstReply.Sub(start).Round(time.Millisecond), sendTime.Round(time.Millisecond), rig.model.maxSeen.Load(), stats.Batches)
	b.ReportMetric(ratio, "last/delay")
	rig.failOnFaults(b, "FANIN", p, tl)
}

// BenchmarkRetry: one chat's message whose model fails twice (a retryable
// 500), then answers. It prints the time from the first failure to the
// reply: the runner's backoff (ZERO_RETRY_BASE_SECONDS, 5 s, doubling),
// not the queue's visibility timeout, decides it. Target: within 30 s.
func BenchmarkRetry(b *testing.B) {
	p := loadParams{chats: 1, messages: 1, queueMode: config.QueueCollect, senders: 1, timeout: envDuration(b, "LOAD_TIMEOUT", 10*time.Minute)}
	rig := startLoadRig(b, "retry", p)
	rig.model.failFirst = 2
	ctx, cancel := context.WithTimeout(b.Context(), p.timeout)
	defer cancel()

	b.ResetTimer()
	if _, err := rig.sendChats(ctx, p); err != nil {
		b.Fatalf("sending updates: %v", err)
	}
	if err := rig.waitCovered(ctx, p.chats); err != nil {
		rig.logProblems(b)
		b.Fatalf("the retried message was not answered within LOAD_TIMEOUT %s: %v", p.timeout, err)
	}
	time.Sleep(loadSettle)
	b.StopTimer()

	tl := rig.tally(p)
	rig.model.mu.Lock()
	first := rig.model.firstFail
	rig.model.mu.Unlock()
	took := tl.lastReply.Sub(first)
	stats, _ := rig.stack.Stats("RunnerWork")
	fmt.Printf("RETRY model_failures=2 first_failure_to_reply=%s (target <= 30s) model_calls=%d runner_batches=%d item_failures=%d\n",
		took.Round(time.Millisecond), rig.model.calls.Load(), stats.Batches, stats.ItemFailures)
	b.ReportMetric(took.Seconds(), "s_to_reply")
	rig.failOnFaults(b, "RETRY", p, tl)
}

// TestConcurrentChatsEndToEnd: 8 chats × 3 messages through the real
// webhook, queue and runner, with a 300 ms model: every message is
// answered once, each chat's in order, and sessions ran concurrently.
func TestConcurrentChatsEndToEnd(t *testing.T) {
	needRIE(t)
	p := loadParams{chats: 8, messages: 3, delay: 300 * time.Millisecond, queueMode: config.QueueCollect, senders: 8, timeout: 3 * time.Minute}
	rig := startLoadRig(t, "chats", p)
	ctx, cancel := context.WithTimeout(t.Context(), p.timeout)
	defer cancel()
	if _, err := rig.sendChats(ctx, p); err != nil {
		t.Fatalf("sending updates: %v", err)
	}
	if err := rig.waitCovered(ctx, p.chats*p.messages); err != nil {
		rig.logProblems(t)
		t.Fatalf("%d of %d messages answered: %v", rig.telegram.coveredCount(), p.chats*p.messages, err)
	}
	time.Sleep(loadSettle)
	rig.failOnFaults(t, "CHATS", p, rig.tally(p))
	if got := rig.model.maxSeen.Load(); got < 2 {
		t.Errorf("at most %d model call at once; want several (sessions run concurrently)", got)
	}
}

// loadRig is a local stack wired to the scripted model, the recording
// Telegram and the counting proxy, with synthetic private chats admitted.
type loadRig struct {
	stack       *Stack
	model       *scriptedModel
	telegram    *recordingTelegram
	proxy       *countingProxy
	output      *functionOutput
	emulatorURL string
	client      *http.Client
	updateID    atomic.Int64
}

// startLoadRig starts a stack as `zero dev` runs it (default pool sizes, a
// 5 s poll wait), with a zero.json that admits every sender, gives each
// private chat its own session (dmScope per-peer, so chats are separate
// FIFO message groups) and sets the queue mode.
func startLoadRig(b testing.TB, name string, p loadParams) *loadRig {
	b.Helper()
	if emuErr != nil {
		b.Fatalf("AWS emulator unavailable (run `make deps`): %v", emuErr)
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := rie.FindRIE(root); err != nil {
		b.Fatalf("aws-lambda-rie unavailable (run `make deps`): %v", err)
	}
	emulatorURL := os.Getenv("AWS_ENDPOINT_URL") // set by TestMain
	if emulatorURL == "" {
		b.Fatal("AWS_ENDPOINT_URL is not set: TestMain did not start the emulator")
	}
	zeroJSON := fmt.Appendf(nil, `{session: {dmScope: "per-peer"}, channels: {telegram: {allowFrom: ["*"]}}, messages: {queue: {mode: %q}}}`, p.queueMode)
	if _, err := config.Parse(zeroJSON); err != nil {
		b.Fatalf("load config %s: %v", zeroJSON, err)
	}

	rig := &loadRig{
		model:       newScriptedModel(loadModelKey, p.delay, p.delayOf),
		telegram:    newRecordingTelegram(loadBotToken),
		output:      &functionOutput{},
		emulatorURL: strings.TrimRight(emulatorURL, "/"),
		client:      &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: time.Minute},
	}
	b.Cleanup(rig.model.Close)
	b.Cleanup(rig.telegram.Close)
	if rig.proxy, err = newCountingProxy(rig.emulatorURL); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(rig.proxy.Close)

	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Minute) // builds are slow on a busy machine
	defer cancel()
	tmplPath := filepath.Join(b.TempDir(), "template.json")
	if err := template.Translate(ctx, root, "template.yaml", tmplPath); err != nil {
		b.Fatalf("aws-sam-translator (run `make deps`): %v", err)
	}
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	st, err := Start(ctx, Options{
		Root:      root,
		Template:  tmplPath,
		Prefix:    "zl-" + hex.EncodeToString(suffix[:]) + "-" + name,
		Endpoint:  rig.proxy.URL,
		FrontAddr: "127.0.0.1:0",
		Params: map[string]string{
			"TelegramBotId": "424242", "TelegramAPIBaseURL": rig.telegram.URL,
			"ZeroModel": "openai/load-model", "OpenAIBaseURL": rig.model.URL + "/v1",
		},
		Secrets: map[string]string{
			"telegram-bot-token": loadBotToken, "telegram-webhook-secret": loadWebhookSecret, "openai-api-key": loadModelKey,
		},
		Config:    zeroJSON,
		ConfigTTL: ssmparam.DefaultTTL,
		PollWait:  5 * time.Second,
		BuildDir:  b.TempDir(),
		Output:    rig.output,
		Logf:      b.Logf,
	})
	if err != nil {
		b.Fatalf("start the local stack: %v", err)
	}
	b.Cleanup(func() { st.Close() })
	rig.stack = st
	return rig
}

// emulatorProbe is a kind of call the emulator's rate is measured with.
type emulatorProbe int

const (
	// probeGetItem is a consistent GetItem of one missing key: the
	// emulator's ceiling for cheap calls.
	probeGetItem emulatorProbe = iota
	// probeTransact is a TransactWriteItems putting one small item: moto
	// copies every table a transaction touches first, so its rate falls as
	// the session table fills.
	probeTransact
)

// emulatorRate measures the emulator's own rate of one kind of call from
// workers goroutines for span, straight to the emulator (not through the
// counting proxy), against the stack's session table, in calls/s.
func (r *loadRig) emulatorRate(ctx context.Context, probe emulatorProbe, workers int, span time.Duration) (float64, error) {
	cfg := r.stack.AWSConfig.Copy()
	cfg.BaseEndpoint = aws.String(r.emulatorURL)
	ddb := dynamodb.NewFromConfig(cfg)
	table := r.stack.Resources.Tables["SessionTable"].Name
	key := map[string]ddbtypes.AttributeValue{
		"pk": &ddbtypes.AttributeValueMemberS{Value: "load#probe"},
		"sk": &ddbtypes.AttributeValueMemberS{Value: "probe"},
	}
	call := func(worker int) error {
		if probe == probeGetItem {
			_, err := ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key, ConsistentRead: aws.Bool(true)})
			return err
		}
		item := map[string]ddbtypes.AttributeValue{
			"pk": &ddbtypes.AttributeValueMemberS{Value: "load#probe"},
			"sk": &ddbtypes.AttributeValueMemberS{Value: "worker" + strconv.Itoa(worker)},
		}
		_, err := ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			TransactItems: []ddbtypes.TransactWriteItem{{Put: &ddbtypes.Put{TableName: &table, Item: item}}},
		})
		return err
	}
	var (
		calls atomic.Int64
		wg    sync.WaitGroup
		errMu sync.Mutex
		first error
	)
	start := time.Now()
	deadline := start.Add(span)
	for worker := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if err := call(worker); err != nil {
					errMu.Lock()
					first = cmp.Or(first, err)
					errMu.Unlock()
					return
				}
				calls.Add(1)
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return 0, first
	}
	return float64(calls.Load()) / time.Since(start).Seconds(), nil
}

// emulatorRates measures the GetItem ceiling and the TransactWriteItems
// rate, 8 goroutines for 2 s each.
func (r *loadRig) emulatorRates(b *testing.B, ctx context.Context) (getItem, transact float64) {
	b.Helper()
	var err error
	if getItem, err = r.emulatorRate(ctx, probeGetItem, 8, 2*time.Second); err != nil {
		b.Fatalf("emulator GetItem rate: %v", err)
	}
	if transact, err = r.emulatorRate(ctx, probeTransact, 8, 2*time.Second); err != nil {
		b.Fatalf("emulator TransactWriteItems rate: %v", err)
	}
	return getItem, transact
}

// tableItems is the item count the emulator reports for the session table.
func (r *loadRig) tableItems(ctx context.Context) int64 {
	out, err := dynamodb.NewFromConfig(r.stack.AWSConfig).DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(r.stack.Resources.Tables["SessionTable"].Name)})
	if err != nil || out.Table == nil || out.Table.ItemCount == nil {
		return -1
	}
	return *out.Table.ItemCount
}

// sendChats posts every chat's messages, each chat's in order (the next
// only after the webhook accepted the previous, as Telegram delivers a
// chat's updates one at a time), at most p.senders posts at once across
// chats. It returns how long posting took.
func (r *loadRig) sendChats(ctx context.Context, p loadParams) (time.Duration, error) {
	start := time.Now()
	slots := make(chan struct{}, max(p.senders, 1))
	errs := make(chan error, p.chats)
	var wg sync.WaitGroup
	for chat := range p.chats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := 1; seq <= p.messages; seq++ {
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					errs <- ctx.Err()
					return
				}
				err := r.post(ctx, chat, seq)
				<-slots
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return time.Since(start), <-errs
}

// post sends message seq of chat as a Telegram update to the webhook and
// wants 200 (queued).
func (r *loadRig) post(ctx context.Context, chat, seq int) error {
	id := loadChatBase + int64(chat)
	update := map[string]any{
		"update_id": r.updateID.Add(1),
		"message": map[string]any{
			"message_id": seq,
			"from":       map[string]any{"id": id, "is_bot": false, "first_name": "Load", "last_name": strconv.Itoa(chat)},
			"chat":       map[string]any{"id": id, "first_name": "Load", "last_name": strconv.Itoa(chat), "type": "private"},
			"date":       time.Now().Unix(),
			"text":       fmt.Sprintf("load message c%d-m%d", chat, seq),
		},
	}
	body, err := json.Marshal(update)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.stack.FrontURL+"/webhooks/telegram", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Telegram-Bot-Api-Secret-Token", loadWebhookSecret)
	resp, err := r.client.Do(req)
	if err != nil {
		return fmt.Errorf("POST /webhooks/telegram (chat %d, message %d): %w", chat, seq, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST /webhooks/telegram (chat %d, message %d): status %d; want 200", chat, seq, resp.StatusCode)
	}
	return nil
}

// waitCovered waits until replies have covered want distinct messages.
func (r *loadRig) waitCovered(ctx context.Context, want int) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for r.telegram.coveredCount() < want {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

// tally checks the replies received so far against what p sent.
func (r *loadRig) tally(p loadParams) loadTally {
	replies, refused := r.telegram.snapshot()
	tl := tallyReplies(p.chats, p.messages, replies)
	tl.refused = refused + int(r.model.rejected.Load())
	return tl
}

// printCorrectness prints the correctness line of a tally.
func printCorrectness(label string, p loadParams, tl loadTally) {
	fmt.Printf("%s correctness (queue mode %s): lost=%d duplicated=%d out_of_order=%d misrouted=%d without_id=%d refused_requests=%d\n",
		label, p.queueMode, tl.lost, tl.duplicated, tl.outOfOrder, tl.misrouted, tl.withoutID, tl.refused)
}

// failOnFaults prints the correctness line and fails the benchmark when a
// message was lost, duplicated, answered out of order or anything else went
// wrong, showing the first function warnings and errors.
func (r *loadRig) failOnFaults(b testing.TB, label string, p loadParams, tl loadTally) {
	b.Helper()
	printCorrectness(label, p, tl)
	if tl.faults() == 0 {
		return
	}
	r.logProblems(b)
	b.Fatalf("lost=%d duplicated=%d out_of_order=%d misrouted=%d without_id=%d refused_requests=%d; want all 0",
		tl.lost, tl.duplicated, tl.outOfOrder, tl.misrouted, tl.withoutID, tl.refused)
}

// logProblems logs the first warnings and errors of the functions.
func (r *loadRig) logProblems(b testing.TB) {
	b.Helper()
	for _, line := range r.output.problems() {
		b.Log(line)
	}
}

// loadTally is what the replies of a run show against what was sent.
type loadTally struct {
	// messages were sent; answered were covered by a reply; replies is the
	// number of sendMessage calls.
	messages, answered, replies int
	// lost messages got no reply; duplicated ones were covered again;
	// outOfOrder ones were covered after a later message of their chat.
	lost, duplicated, outOfOrder int
	// misrouted ids were answered in another chat; withoutID replies name
	// no load message (a notice, an error text); refused counts requests
	// the fakes refused (wrong token path, bad body, unexpected model call).
	misrouted, withoutID, refused int
	firstReply, lastReply         time.Time
}

func (t loadTally) faults() int {
	return t.lost + t.duplicated + t.outOfOrder + t.misrouted + t.withoutID + t.refused
}

// tallyReplies checks the replies received per chat against chats ×
// messages sent: each message must be covered exactly once, by a reply in
// its own chat, and a chat's messages in send order (a collected reply
// covers several, in order).
func tallyReplies(chats, messages int, replies map[int64][]chatReply) loadTally {
	tl := loadTally{messages: chats * messages}
	for chatID, rs := range replies {
		covered := map[int]bool{}
		latest := 0
		for _, reply := range rs {
			tl.replies++
			if tl.firstReply.IsZero() || reply.at.Before(tl.firstReply) {
				tl.firstReply = reply.at
			}
			if reply.at.After(tl.lastReply) {
				tl.lastReply = reply.at
			}
			ids := loadMessageID.FindAllStringSubmatch(reply.text, -1)
			if len(ids) == 0 {
				tl.withoutID++
				continue
			}
			for _, id := range ids {
				chat, _ := strconv.Atoi(id[1])
				seq, _ := strconv.Atoi(id[2])
				switch {
				case loadChatBase+int64(chat) != chatID || chat >= chats || seq < 1 || seq > messages:
					tl.misrouted++
				case covered[seq]:
					tl.duplicated++
				default:
					covered[seq] = true
					tl.answered++
					if seq < latest {
						tl.outOfOrder++
					}
					latest = max(latest, seq)
				}
			}
		}
	}
	tl.lost = tl.messages - tl.answered
	return tl
}

// describeOps lists the n operations that took the emulator the most time:
// name, calls and mean time per call.
func describeOps(ops []emulatorOp, n int) string {
	var parts []string
	for _, op := range ops[:min(n, len(ops))] {
		parts = append(parts, fmt.Sprintf("%s n=%d mean=%s", op.name, op.calls, (op.total/time.Duration(op.calls)).Round(100*time.Microsecond)))
	}
	return strings.Join(parts, ", ")
}

// functionOutput takes the functions' output: the per-invocation "done"
// lines feed calls (their AWS call counts), and WARN and ERROR lines are
// counted, the first few kept to show when a run fails.
type functionOutput struct {
	calls invocationLog
	mu    sync.Mutex
	count int
	first []string
}

func (o *functionOutput) Write(p []byte) (int, error) {
	_, _ = o.calls.Write(p)
	for _, line := range strings.Split(string(p), "\n") {
		if !strings.Contains(line, `"level":"ERROR"`) && !strings.Contains(line, `"level":"WARN"`) {
			continue
		}
		o.mu.Lock()
		o.count++
		if len(o.first) < 10 {
			o.first = append(o.first, line)
		}
		o.mu.Unlock()
	}
	return len(p), nil
}

func (o *functionOutput) problemCount() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.count
}

func (o *functionOutput) problems() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.first...)
}

func envString(name, def string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return def
}

func envInt(b *testing.B, name string, def int) int {
	b.Helper()
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	b.Helper()
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		b.Fatalf("%s=%q: want a duration such as 3s", name, v)
	}
	return d
}

// TestTallyReplies checks the load benchmarks' bookkeeping on made-up
// replies: collected replies, a duplicate, an out-of-order reply, a reply in
// the wrong chat, a notice without an id, and a lost message.
func TestTallyReplies(t *testing.T) {
	at := time.Unix(1767225600, 0)
	reply := func(sec int, text string) chatReply {
		return chatReply{text: text, at: at.Add(time.Duration(sec) * time.Second)}
	}
	replies := map[int64][]chatReply{
		loadChatBase + 0: {reply(1, "answer c0-m1"), reply(2, "answer c0-m2 c0-m3")},     // in order, the last two collected
		loadChatBase + 1: {reply(3, "answer c1-m2"), reply(4, "answer c1-m1 c1-m2")},     // m1 after m2, m2 again
		loadChatBase + 2: {reply(5, "answer c3-m1"), reply(6, "⏱️ The run was stopped")}, // another chat's id, a notice
	}
	got := tallyReplies(3, 3, replies)
	want := loadTally{
		messages: 9, answered: 5, replies: 6,
		lost: 4, duplicated: 1, outOfOrder: 1, misrouted: 1, withoutID: 1,
		firstReply: at.Add(time.Second), lastReply: at.Add(6 * time.Second),
	}
	if got != want {
		t.Fatalf("tallyReplies = %+v\nwant %+v", got, want)
	}
	if clean := tallyReplies(1, 2, map[int64][]chatReply{loadChatBase: {reply(1, "answer c0-m1 c0-m2")}}); clean.faults() != 0 || clean.answered != 2 {
		t.Fatalf("a collected reply covering both messages: %+v; want 2 answered, no faults", clean)
	}
}
