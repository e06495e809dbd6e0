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

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
)

// The webhook's own job is the HTTP mapping: the secret, the body, the
// update → request mapping and the door's outcome → status. What the door
// decides (routing, keys, allowFrom, stop marks) is tested in
// shared/ingest.

const testSecret = "dev-secret"

// recordingQueue is an in-memory ingest.Queue that keeps what it was given.
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

type failingSettings struct{}

func (failingSettings) Current(context.Context) (*config.Config, error) {
	return nil, fault.New(fault.Unavailable, "ssm: throttled")
}

func TestWebhook(t *testing.T) {
	tests := []struct {
		name       string
		unset      bool // configure the webhook with no secret
		method     string
		header     string
		omitHeader bool
		body       string // fixture name, or raw body when it starts with '{' or is empty
		config     string // zero.json; "" means openDoor
		noConfig   bool   // the config cannot be read
		queueErr   error
		wantStatus int
		wantBody   string
		wantLog    string
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
		{name: "refused sender is acknowledged not queued", header: testSecret, body: "private_text.json",
			config: `{channels: {telegram: {allowFrom: ["42"]}}}`, wantStatus: 200, wantBody: `{"ok":true}`,
			wantLog: "channels.telegram.allowFrom"},
		{name: "unreadable config is a 500", header: testSecret, body: "private_text.json", noConfig: true,
			wantStatus: 500, wantBody: `{"ok":false,"error":"not queued"}`},
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
			doc := tt.config
			if doc == "" {
				doc = openDoor
			}
			var settings ingest.Settings = staticSettings{mustConfig(t, doc)}
			if tt.noConfig {
				settings = failingSettings{}
			}
			h := NewWebhook(WebhookConfig{
				Secret: configured, BotID: testBotID, Door: ingest.NewDoor(ingest.Deps{Settings: settings, Queue: queue}),
				Log: slog.New(slog.NewTextHandler(&logs, nil)),
			})
			w := serve(t, h, tt.method, tt.body, tt.header, !tt.omitHeader)

			if w.Code != tt.wantStatus {
				t.Errorf("status %d, want %d (body %s)", w.Code, tt.wantStatus, w.Body)
			}
			if tt.wantBody != "" && w.Body.String() != tt.wantBody {
				t.Errorf("body %s, want %s", w.Body, tt.wantBody)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if diff := cmp.Diff(tt.wantQueued, queue.queued()); diff != "" {
				t.Errorf("queued (-want +got):\n%s", diff)
			}
			if !strings.Contains(logs.String(), tt.wantLog) {
				t.Errorf("logs lack %q:\n%s", tt.wantLog, logs.String())
			}
			if strings.Contains(logs.String(), testSecret) {
				t.Errorf("logs contain the secret:\n%s", logs.String())
			}
		})
	}
}

// serve sends body (a fixture name, or the raw body) to h with method
// (default POST) and, when setHeader, the secret header.
func serve(t *testing.T, h http.Handler, method, body, secret string, setHeader bool) *httptest.ResponseRecorder {
	t.Helper()
	raw := []byte(body)
	if strings.HasSuffix(body, ".json") {
		raw = readFixture(t, body)
	}
	if method == "" {
		method = http.MethodPost
	}
	r := httptest.NewRequest(method, "/webhooks/telegram", bytes.NewReader(raw))
	if setHeader {
		r.Header.Set(SecretHeader, secret)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// countingDoor counts the requests that reach the door.
type countingDoor struct{ calls int }

func (d *countingDoor) Accept(context.Context, ingest.Request) (ingest.Outcome, error) {
	d.calls++
	return ingest.Ignored{}, nil
}

// TestWebhookDoorNotCalled: a request that is refused before the door
// (method, secret, body, unhandled update) never reaches it.
func TestWebhookDoorNotCalled(t *testing.T) {
	tests := []struct {
		name, method, header, body string
	}{
		{"GET", http.MethodGet, testSecret, "private_text.json"},
		{"wrong secret", "", "nope", "private_text.json"},
		{"malformed body", "", testSecret, "malformed.json"},
		{"unhandled update", "", testSecret, "callback_query.json"},
		{"no text", "", testSecret, "whitespace_text.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			door := &countingDoor{}
			h := NewWebhook(WebhookConfig{Secret: testSecret, BotID: testBotID, Door: door, Log: slog.New(slog.DiscardHandler)})
			serve(t, h, tt.method, tt.body, tt.header, true)
			if door.calls != 0 {
				t.Fatalf("door called %d times; want none", door.calls)
			}
		})
	}
}

func TestWebhookLogs(t *testing.T) {
	tests := []struct {
		name    string
		config  string
		fixture string
		want    []string
	}{
		{"queued update", openDoor, "forum_topic_text.json", []string{"update queued", "update_id=815000008", "type=message", "session_key=agent:main:telegram:group:-1009876543210:topic:42"}},
		{"ignored update", openDoor, "callback_query.json", []string{"update ignored", "update_id=815000012", "type=callback_query"}},
		{"refused sender", "", "private_text.json", []string{"message refused", "update_id=815000001", `reason="sender not admitted"`, "from=telegram:123456789", "channels.telegram.allowFrom"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			door := ingest.NewDoor(ingest.Deps{Settings: staticSettings{mustConfig(t, tt.config)}, Queue: &recordingQueue{}})
			h := NewWebhook(WebhookConfig{Secret: testSecret, BotID: testBotID, Door: door, Log: slog.New(slog.NewTextHandler(&logs, nil))})
			serve(t, h, "", tt.fixture, testSecret, true)
			for _, want := range tt.want {
				if !strings.Contains(logs.String(), want) {
					t.Errorf("log %q lacks %q", logs.String(), want)
				}
			}
		})
	}
}

type discardQueue struct{}

func (discardQueue) Enqueue(context.Context, inbound.Message) error { return nil }

// BenchmarkWebhook runs a typical private-chat update through the handler
// and the door (secret check, parse, config, key, admission, enqueue to a
// no-op queue, response).
func BenchmarkWebhook(b *testing.B) {
	body := readFixture(b, "private_text.json")
	door := ingest.NewDoor(ingest.Deps{Settings: staticSettings{mustConfig(b, openDoor)}, Queue: discardQueue{}})
	h := NewWebhook(WebhookConfig{Secret: testSecret, BotID: testBotID, Door: door, Log: slog.New(slog.DiscardHandler)})
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
