package devstack

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The fakes of the load benchmarks (load_test.go): a scripted
// OpenAI-compatible model, a Telegram Bot API that records every reply per
// chat, and a proxy in front of the AWS emulator that counts the calls it
// serves. All listen on 127.0.0.1 only.

// loadMessageID matches the id a load message carries ("c17-m3": chat 17,
// its third message). The scripted model copies every id of the prompt it
// answers into its reply, so a reply names the messages it covers.
var loadMessageID = regexp.MustCompile(`\bc(\d+)-m(\d+)\b`)

// scriptedModel is an OpenAI-compatible Chat Completions server that answers
// after a fixed delay with "answer <ids>", the load message ids found in the
// request's last user message: one id for a plain turn, several for a
// collected turn whose prompt combines queued messages.
type scriptedModel struct {
	*httptest.Server
	apiKey string
	delay  time.Duration
	// delayOf, when set, is the delay of a prompt instead: the longest
	// delayOf(chat) of the chats whose message ids it holds.
	delayOf func(chat int) time.Duration

	calls, rejected   atomic.Int64
	inflight, maxSeen atomic.Int64

	// failFirst makes the first failFirst calls for each prompt answer 500
	// (a retryable provider failure), for the retry benchmark.
	failFirst int
	mu        sync.Mutex
	failed    map[string]int // prompt → failures served
	firstFail time.Time
}

// fail reports whether this call for prompt must fail, recording when the
// first failure was served.
func (m *scriptedModel) fail(prompt string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failed[prompt] >= m.failFirst {
		return false
	}
	if m.failed == nil {
		m.failed = map[string]int{}
	}
	if m.firstFail.IsZero() {
		m.firstFail = time.Now()
	}
	m.failed[prompt]++
	return true
}

func newScriptedModel(apiKey string, delay time.Duration, delayOf func(chat int) time.Duration) *scriptedModel {
	m := &scriptedModel{apiKey: apiKey, delay: delay, delayOf: delayOf}
	m.Server = httptest.NewServer(http.HandlerFunc(m.serve))
	return m
}

func (m *scriptedModel) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+m.apiKey {
		m.rejected.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"message":"unexpected request","type":"invalid_request_error"}}`)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		m.rejected.Add(1)
		http.Error(w, `{"error":{"message":"bad JSON","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	m.calls.Add(1)
	n := m.inflight.Add(1)
	defer m.inflight.Add(-1)
	for {
		seen := m.maxSeen.Load()
		if n <= seen || m.maxSeen.CompareAndSwap(seen, n) {
			break
		}
	}
	prompt := ""
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			prompt = contentText(req.Messages[i].Content)
			break
		}
	}
	if m.fail(prompt) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error":{"message":"the model is overloaded","type":"server_error"}}`)
		return
	}
	ids := loadMessageID.FindAllString(prompt, -1)
	answer := "answer " + strings.Join(ids, " ")
	if len(ids) == 0 {
		answer = "answer without a load message id"
	}
	if delay := m.delayFor(prompt); delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	content, _ := json.Marshal(answer)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"chatcmpl-load","object":"chat.completion","created":1767225600,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`, req.Model, content)
}

// delayFor is how long the model takes to answer prompt (see delayOf).
func (m *scriptedModel) delayFor(prompt string) time.Duration {
	if m.delayOf == nil {
		return m.delay
	}
	var d time.Duration
	for _, id := range loadMessageID.FindAllStringSubmatch(prompt, -1) {
		chat, _ := strconv.Atoi(id[1])
		d = max(d, m.delayOf(chat))
	}
	return d
}

// contentText is the text of a Chat Completions message content: a string,
// or a list of parts whose text parts are joined.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// chatReply is one sendMessage call as the recording Telegram received it.
type chatReply struct {
	text string
	at   time.Time
}

// recordingTelegram is a Bot API server that accepts sendMessage (and
// counts sendChatAction) on the bot's token path only and records each reply per chat, in arrival order.
// It counts the message ids of the replies as they come, so a waiter can
// tell when every message was covered.
type recordingTelegram struct {
	*httptest.Server
	token string

	mu       sync.Mutex
	replies  map[int64][]chatReply
	covered  map[string]bool
	rejected int
	typing   int // sendChatAction calls
}

func newRecordingTelegram(token string) *recordingTelegram {
	tg := &recordingTelegram{token: token, replies: map[int64][]chatReply{}, covered: map[string]bool{}}
	tg.Server = httptest.NewServer(http.HandlerFunc(tg.serve))
	return tg
}

func (tg *recordingTelegram) serve(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodPost && r.URL.Path == "/bot"+tg.token+"/sendChatAction" {
		tg.mu.Lock()
		tg.typing++
		tg.mu.Unlock()
		fmt.Fprint(w, `{"ok":true,"result":true}`) // "typing" while a turn works
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/bot"+tg.token+"/sendMessage" {
		tg.reject()
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"ok":false,"error_code":404,"description":"Not Found"}`)
		return
	}
	var m struct {
		ChatID int64  `json:"chat_id"`
		Text   string `json:"text"`
	}
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m.ChatID == 0 || m.Text == "" || len([]rune(m.Text)) > 4096 {
		tg.reject()
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"ok":false,"error_code":400,"description":"Bad Request: message text is empty"}`)
		return
	}
	tg.mu.Lock()
	tg.replies[m.ChatID] = append(tg.replies[m.ChatID], chatReply{text: m.Text, at: at})
	for _, id := range loadMessageID.FindAllString(m.Text, -1) {
		tg.covered[id] = true
	}
	n := 0
	for _, rs := range tg.replies {
		n += len(rs)
	}
	tg.mu.Unlock()
	text, _ := json.Marshal(m.Text)
	fmt.Fprintf(w, `{"ok":true,"result":{"message_id":%d,"date":1767225600,"chat":{"id":%d,"type":"private"},"text":%s}}`, n, m.ChatID, text)
}

func (tg *recordingTelegram) reject() {
	tg.mu.Lock()
	tg.rejected++
	tg.mu.Unlock()
}

// coveredCount is the number of distinct load message ids replied to so far.
func (tg *recordingTelegram) coveredCount() int {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return len(tg.covered)
}

// snapshot copies the replies per chat and the count of refused requests.
func (tg *recordingTelegram) snapshot() (map[int64][]chatReply, int) {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	out := make(map[int64][]chatReply, len(tg.replies))
	for chat, rs := range tg.replies {
		out[chat] = append([]chatReply(nil), rs...)
	}
	return out, tg.rejected
}

// emulatorOp is what the counting proxy saw of one AWS operation.
type emulatorOp struct {
	name  string
	calls int64
	total time.Duration
}

// countingProxy forwards every request to the AWS emulator and counts the
// calls per operation (DynamoDB.GetItem, SQS.ReceiveMessage, S3.PUT, ...)
// with the time the emulator took to answer. The stack points the
// functions and its event-source emulator at it, so it sees every call the
// emulator serves.
//
// holdReceives closes a gate before SQS.ReceiveMessage: while it is
// closed, new receives wait in the proxy, so messages sent meanwhile
// collect in the queue and the first receive after the gate opens takes
// them together, as the event source mapping takes a backlog.
type countingProxy struct {
	*httptest.Server
	mu  sync.Mutex
	ops map[string]*emulatorOp

	gateMu    sync.Mutex
	gate      chan struct{} // nil: receives pass
	receiving int           // receives passed and not answered yet
}

func newCountingProxy(emulatorURL string) (*countingProxy, error) {
	target, err := url.Parse(emulatorURL)
	if err != nil {
		return nil, fmt.Errorf("emulator URL %q: %w", emulatorURL, err)
	}
	p := &countingProxy{ops: map[string]*emulatorOp{}}
	forward := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host // signed by the SDK; moto ignores it
		},
		Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute},
	}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := operationName(r)
		if name == "SQS.ReceiveMessage" {
			if !p.passGate(r.Context()) {
				http.Error(w, "the test ended", http.StatusServiceUnavailable)
				return
			}
			defer p.receiveDone()
		}
		start := time.Now()
		forward.ServeHTTP(w, r)
		p.record(name, time.Since(start))
	}))
	return p, nil
}

// operationName names an AWS call: the JSON protocols' X-Amz-Target
// ("DynamoDB_20120810.GetItem" → "DynamoDB.GetItem", "AmazonSQS.SendMessage"
// → "SQS.SendMessage"), the query protocol's Action, else S3's method.
func operationName(r *http.Request) string {
	if target := r.Header.Get("X-Amz-Target"); target != "" {
		service, op, _ := strings.Cut(target, ".")
		switch {
		case strings.HasPrefix(service, "DynamoDB"):
			service = "DynamoDB"
		case service == "AmazonSQS":
			service = "SQS"
		case service == "AmazonSSM":
			service = "SSM"
		}
		return service + "." + op
	}
	if action := r.URL.Query().Get("Action"); action != "" {
		return "Query." + action
	}
	return "S3." + r.Method
}

// holdReceives closes the receive gate and waits until the receives that
// passed it before are answered (at most a long poll's wait). The
// returned open lets the held receives through.
func (p *countingProxy) holdReceives(ctx context.Context) (open func(), err error) {
	gate := make(chan struct{})
	p.gateMu.Lock()
	p.gate = gate
	p.gateMu.Unlock()
	open = func() {
		p.gateMu.Lock()
		defer p.gateMu.Unlock()
		if p.gate == gate {
			close(gate)
			p.gate = nil
		}
	}
	for {
		p.gateMu.Lock()
		n := p.receiving
		p.gateMu.Unlock()
		if n == 0 {
			return open, nil
		}
		select {
		case <-ctx.Done():
			open()
			return nil, fmt.Errorf("%d receives still open: %w", n, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// passGate waits while the receive gate is closed, then counts the
// receive as open; false when ctx ended first.
func (p *countingProxy) passGate(ctx context.Context) bool {
	for {
		p.gateMu.Lock()
		gate := p.gate
		if gate == nil {
			p.receiving++
			p.gateMu.Unlock()
			return true
		}
		p.gateMu.Unlock()
		select {
		case <-gate:
		case <-ctx.Done():
			return false
		}
	}
}

func (p *countingProxy) receiveDone() {
	p.gateMu.Lock()
	p.receiving--
	p.gateMu.Unlock()
}

func (p *countingProxy) record(name string, took time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	op := p.ops[name]
	if op == nil {
		op = &emulatorOp{name: name}
		p.ops[name] = op
	}
	op.calls++
	op.total += took
}

// snapshot returns the operations seen so far, the most time-consuming
// first, and the number of calls in all.
func (p *countingProxy) snapshot() ([]emulatorOp, int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]emulatorOp, 0, len(p.ops))
	var calls int64
	for _, op := range p.ops {
		out = append(out, *op)
		calls += op.calls
	}
	sort.Slice(out, func(i, j int) bool { return out[i].total > out[j].total })
	return out, calls
}

// since is what was served after before was taken, most time-consuming
// first.
func (p *countingProxy) since(before []emulatorOp) ([]emulatorOp, int64) {
	now, _ := p.snapshot()
	prev := map[string]emulatorOp{}
	for _, op := range before {
		prev[op.name] = op
	}
	var calls int64
	out := make([]emulatorOp, 0, len(now))
	for _, op := range now {
		op.calls -= prev[op.name].calls
		op.total -= prev[op.name].total
		if op.calls > 0 {
			out = append(out, op)
			calls += op.calls
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].total > out[j].total })
	return out, calls
}
