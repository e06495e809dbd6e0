package telegram

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/turn"
)

const testSecret = "dev-secret"

// recordingQueue is an in-memory Enqueuer that keeps what it was given.
type recordingQueue struct {
	mu   sync.Mutex
	msgs []inbound.Message
	err  error // returned by Enqueue when set; nothing is recorded then
}

func (q *recordingQueue) Enqueue(_ context.Context, m inbound.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return q.err
	}
	q.msgs = append(q.msgs, m)
	return nil
}

func (q *recordingQueue) queued() []inbound.Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]inbound.Message(nil), q.msgs...)
}

var privateMessage = inbound.Message{
	ID: "telegram:7000000001:815000001", AgentID: "main", SessionKey: "agent:main:main",
	Channel: "telegram", ChatType: "direct", From: "telegram:123456789", To: "123456789",
	SenderName: "Ada Lovelace", Text: "Hello, ZERO <3 & friends", ReceivedAt: 1767225600000,
}

func TestWebhook(t *testing.T) {
	tests := []struct {
		name       string
		unset      bool // configure the webhook with no secret
		method     string
		header     string
		omitHeader bool
		body       string // fixture name, or raw body when it starts with '{' or is empty
		queueErr   error
		wantStatus int
		wantBody   string
		wantQueued []inbound.Message
	}{
		{name: "good private update is queued", header: testSecret, body: "private_text.json",
			wantStatus: 200, wantBody: `{"ok":true}`, wantQueued: []inbound.Message{privateMessage}},
		{name: "wrong secret", header: "dev-secreT", body: "private_text.json",
			wantStatus: 401, wantBody: `{"ok":false,"error":"unauthorized"}`},
		{name: "secret with a different length", header: testSecret + "x", body: "private_text.json", wantStatus: 401},
		{name: "missing secret", omitHeader: true, body: "private_text.json", wantStatus: 401},
		{name: "no configured secret refuses a matching empty header", unset: true, header: "", body: "private_text.json", wantStatus: 401},
		{name: "no configured secret refuses any header", unset: true, header: testSecret, body: "private_text.json", wantStatus: 401},
		{name: "GET is not allowed", method: http.MethodGet, header: testSecret, wantStatus: 405},
		{name: "malformed JSON", header: testSecret, body: "malformed.json",
			wantStatus: 400, wantBody: `{"ok":false,"error":"telegram update: malformed JSON"}`},
		{name: "missing update_id", header: testSecret, body: "missing_update_id.json",
			wantStatus: 400, wantBody: `{"ok":false,"error":"telegram update: update_id is required"}`},
		{name: "empty body", header: testSecret, body: "", wantStatus: 400},
		{name: "body over the limit", header: testSecret,
			body:       `{"update_id":1,"message":{"text":"` + strings.Repeat("a", MaxUpdateBytes) + `"}}`,
			wantStatus: 413},
		{name: "edited message is acknowledged not queued", header: testSecret, body: "edited_message.json",
			wantStatus: 200, wantBody: `{"ok":true}`},
		{name: "service message is acknowledged not queued", header: testSecret, body: "new_chat_members.json", wantStatus: 200},
		{name: "enqueue failure is a 500", header: testSecret, body: "private_text.json",
			queueErr:   fault.Wrap(fault.Unavailable, errors.New("sqs: throttled"), "enqueue"),
			wantStatus: 500, wantBody: `{"ok":false,"error":"not queued"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			queue := &recordingQueue{err: tt.queueErr}
			var logs bytes.Buffer
			configured := testSecret
			if tt.unset {
				configured = ""
			}
			h := NewWebhook(WebhookConfig{
				Secret: configured, BotID: testBotID, Queue: queue, Settings: staticSettings{mustConfig(t, openDoor)},
				Log: slog.New(slog.NewTextHandler(&logs, nil)),
			})

			body := []byte(tt.body)
			if strings.HasSuffix(tt.body, ".json") {
				body = readFixture(t, tt.body)
			}
			method := tt.method
			if method == "" {
				method = http.MethodPost
			}
			r := httptest.NewRequest(method, "/webhooks/telegram", bytes.NewReader(body))
			if !tt.omitHeader {
				r.Header.Set(SecretHeader, tt.header)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)

			if w.Code != tt.wantStatus {
				t.Errorf("status %d, want %d (body %s)", w.Code, tt.wantStatus, w.Body)
			}
			if tt.wantBody != "" && w.Body.String() != tt.wantBody {
				t.Errorf("body %s, want %s", w.Body, tt.wantBody)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			got := queue.queued()
			if len(got) != len(tt.wantQueued) {
				t.Fatalf("queued %d messages, want %d: %+v", len(got), len(tt.wantQueued), got)
			}
			for i := range got {
				if got[i] != tt.wantQueued[i] {
					t.Errorf("queued\n %+v\nwant\n %+v", got[i], tt.wantQueued[i])
				}
			}
			if strings.Contains(logs.String(), testSecret) {
				t.Errorf("logs contain the secret:\n%s", logs.String())
			}
		})
	}
}

func TestWebhookLogs(t *testing.T) {
	tests := []struct {
		name    string
		fixture string
		want    []string
	}{
		{"queued update", "forum_topic_text.json", []string{"update queued", "update_id=815000008", "type=message", "session_key=agent:main:telegram:group:-1009876543210:topic:42"}},
		{"ignored update", "callback_query.json", []string{"update ignored", "update_id=815000012", "type=callback_query"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			h := NewWebhook(WebhookConfig{Secret: testSecret, BotID: testBotID, Queue: &recordingQueue{},
				Settings: staticSettings{mustConfig(t, openDoor)}, Log: slog.New(slog.NewTextHandler(&logs, nil))})
			r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(readFixture(t, tt.fixture)))
			r.Header.Set(SecretHeader, testSecret)
			h.ServeHTTP(httptest.NewRecorder(), r)
			for _, want := range tt.want {
				if !strings.Contains(logs.String(), want) {
					t.Errorf("log %q lacks %q", logs.String(), want)
				}
			}
		})
	}
}

// TestWebhookAdmission: only senders (or chats) in
// channels.telegram.allowFrom start turns; the rest are acknowledged with
// 200, logged, and never queued.
func TestWebhookAdmission(t *testing.T) {
	tests := []struct {
		name       string
		config     string
		fixture    string
		wantQueued bool
	}{
		{"no config admits nobody", "", "private_text.json", false},
		{"empty allowFrom admits nobody", `{channels: {telegram: {allowFrom: []}}}`, "private_text.json", false},
		{"star admits everyone", openDoor, "private_text.json", true},
		{"listed sender", `{channels: {telegram: {allowFrom: [123456789]}}}`, "private_text.json", true},
		{"listed sender with channel prefix", `{channels: {telegram: {allowFrom: ["telegram:123456789"]}}}`, "private_text.json", true},
		{"other sender", `{channels: {telegram: {allowFrom: ["42"]}}}`, "private_text.json", false},
		{"other channel's list does not count", `{channels: {discord: {allowFrom: ["*"]}}}`, "private_text.json", false},
		{"group admitted by its chat id", `{channels: {telegram: {allowFrom: ["-1009876543210"]}}}`, "forum_topic_text.json", true},
		{"group member not listed", `{channels: {telegram: {allowFrom: ["42"]}}}`, "forum_topic_text.json", false},
		{"a migration needs no admission", "", "migrate_to_chat_id.json", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			queue := &recordingQueue{}
			var logs bytes.Buffer
			h := NewWebhook(WebhookConfig{Secret: testSecret, BotID: testBotID, Queue: queue,
				Settings: staticSettings{mustConfig(t, tt.config)}, Log: slog.New(slog.NewTextHandler(&logs, nil))})
			r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(readFixture(t, tt.fixture)))
			r.Header.Set(SecretHeader, testSecret)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d; want 200 either way", w.Code)
			}
			if got := len(queue.msgs) == 1; got != tt.wantQueued {
				t.Fatalf("queued = %v; want %v", got, tt.wantQueued)
			}
			if !tt.wantQueued && !strings.Contains(logs.String(), "channels.telegram.allowFrom") {
				t.Errorf("refusal log %q does not say how to admit the sender", logs.String())
			}
		})
	}
}

// TestWebhookConfigUnavailable: without a config there is no safe answer,
// so Telegram is asked to redeliver.
func TestWebhookConfigUnavailable(t *testing.T) {
	queue := &recordingQueue{}
	h := NewWebhook(WebhookConfig{Secret: testSecret, BotID: testBotID, Queue: queue,
		Settings: failingSettings{}, Log: slog.New(slog.DiscardHandler)})
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(readFixture(t, "private_text.json")))
	r.Header.Set(SecretHeader, testSecret)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusInternalServerError || len(queue.msgs) != 0 {
		t.Fatalf("status %d, queued %d; want 500 and nothing queued", w.Code, len(queue.msgs))
	}
}

type failingSettings struct{}

func (failingSettings) Current(context.Context) (*config.Config, error) {
	return nil, fault.New(fault.Unavailable, "ssm: throttled")
}

type discardQueue struct{}

func (discardQueue) Enqueue(context.Context, inbound.Message) error { return nil }

// BenchmarkWebhook runs a typical private-chat update through the handler
// (secret check, parse, key, enqueue to a no-op queue, response).
func BenchmarkWebhook(b *testing.B) {
	body := readFixture(b, "private_text.json")
	h := NewWebhook(WebhookConfig{
		Secret: testSecret, BotID: testBotID, Settings: staticSettings{mustConfig(b, openDoor)},
		Queue: discardQueue{}, Log: slog.New(slog.DiscardHandler),
	})
	r := httptest.NewRequest(http.MethodPost, "/webhooks/telegram", nil)
	r.Header.Set(SecretHeader, testSecret)
	reader := bytes.NewReader(body)
	b.ReportAllocs()
	for b.Loop() {
		reader.Reset(body)
		r.Body = io.NopCloser(reader)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
	}
}

type recordingStops struct {
	marks map[string]turn.Stop
	err   error
}

func (r *recordingStops) MarkStop(_ context.Context, key string, s turn.Stop) error {
	if r.err != nil {
		return r.err
	}
	r.marks[key] = s
	return nil
}

// TestWebhookMarksStop: a /stop is marked on its session before it is
// queued (the run it stops holds the queue group); other text is not.
func TestWebhookMarksStop(t *testing.T) {
	tests := []struct {
		name       string
		text       string
		stopErr    error
		wantMark   bool
		wantStatus int
		config     string
	}{
		{"stop alone", "/stop", nil, true, 200, ""},
		{"queue mode interrupt marks every message", "hello", nil, true, 200, `{messages: {queue: {byChannel: {telegram: "interrupt"}}}, channels: {telegram: {allowFrom: ["*"]}}}`},
		{"stop addressed to the bot", "/stop@ZeroBot", nil, true, 200, ""},
		{"stop with text is a message", "/stop the music", nil, false, 200, ""},
		{"plain text", "hello", nil, false, 200, ""},
		{"mark fails: Telegram retries", "/stop", errors.New("dynamodb down"), false, 500, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := strings.Replace(string(readFixture(t, "private_text.json")), "Hello, ZERO <3 & friends", tt.text, 1)
			stops := &recordingStops{marks: map[string]turn.Stop{}, err: tt.stopErr}
			queue := &recordingQueue{}
			doc := openDoor
			if tt.config != "" {
				doc = tt.config
			}
			h := NewWebhook(WebhookConfig{Secret: testSecret, BotID: testBotID, Queue: queue, Stops: stops,
				Settings: staticSettings{mustConfig(t, doc)}, Log: slog.New(slog.DiscardHandler)})
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			r.Header.Set(SecretHeader, testSecret)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.wantStatus {
				t.Fatalf("status %d; want %d", w.Code, tt.wantStatus)
			}
			mark, marked := stops.marks["agent:main:main"]
			if marked != tt.wantMark || (marked && (!mark.Pending || mark.MessageID != "telegram:"+testBotID+":815000001")) {
				t.Fatalf("mark %+v (marked %v); want marked %v", mark, marked, tt.wantMark)
			}
			if tt.wantStatus == 200 && len(queue.msgs) != 1 {
				t.Fatalf("queued %d; the /stop itself is queued too", len(queue.msgs))
			}
		})
	}
}
