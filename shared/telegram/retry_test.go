package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
)

// sent is one request as the fake Bot API saw it.
type sent struct {
	Method    string
	ParseMode string // "" when absent
	Text      string
}

func sentOf(t *testing.T, calls []botCall) []sent {
	t.Helper()
	var out []sent
	for _, c := range calls {
		s := sent{Method: c.Method, Text: c.text(t)}
		if raw, ok := c.Params["parse_mode"]; ok {
			if err := json.Unmarshal(raw, &s.ParseMode); err != nil {
				t.Fatalf("parse_mode: %v", err)
			}
			if s.ParseMode == "" {
				t.Errorf("parse_mode sent empty; omit it instead")
			}
		}
		out = append(out, s)
	}
	return out
}

// flakyDial makes the first fails dials fail as a refused connection would:
// requests that certainly never reached Telegram. It counts every dial.
func flakyDial(fails int32, dials *atomic.Int32) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) <= fails {
			return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
}

func tooMany(seconds string) string {
	return `429 {"ok":false,"error_code":429,"description":"Too Many Requests: retry after ` + seconds +
		`","parameters":{"retry_after":` + seconds + `}}`
}

const cantParse = `400 {"ok":false,"error_code":400,"description":"Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 6"}`

// TestClientPostOutcomes covers Post's retry rules: what is sent again, in
// what form, and how the final error is classified.
func TestClientPostOutcomes(t *testing.T) {
	const message = "Hello <b>Ada</b> &amp; co"
	htmlMsg := sent{"sendMessage", "HTML", message}
	plainMsg := sent{"sendMessage", "", "Hello Ada & co"}
	tests := []struct {
		name          string
		replies       []string
		dialFailures  int32         // dials refused before the fake is reached
		clientTimeout time.Duration // http.Client.Timeout; 0: none
		timeout       time.Duration // ctx deadline; 0: none
		wantCode      fault.Code    // "" means success
		wantUnknown   bool          // the error wraps ErrOutcomeUnknown
		wantSent      []sent
		minElapsed    time.Duration
		wantInErr     string
	}{
		{
			name:     "delivered",
			wantSent: []sent{htmlMsg},
		},
		{
			name:       "429 with retry_after, then success",
			replies:    []string{tooMany("1")},
			timeout:    10 * time.Second,
			wantSent:   []sent{htmlMsg, htmlMsg},
			minElapsed: time.Second,
		},
		{
			name:      "429 whose wait outlasts the deadline fails at once, retryable",
			replies:   []string{tooMany("30")},
			timeout:   5 * time.Second,
			wantCode:  fault.Unavailable,
			wantSent:  []sent{htmlMsg},
			wantInErr: "retry after 30s",
		},
		{
			name:      "429 whose wait leaves no time for the request fails at once",
			replies:   []string{tooMany("2")},
			timeout:   2500 * time.Millisecond,
			wantCode:  fault.Unavailable,
			wantSent:  []sent{htmlMsg},
			wantInErr: "retry after 2s",
		},
		{
			name:      "429 longer than the wait allowed without a deadline fails at once",
			replies:   []string{tooMany("3600")},
			wantCode:  fault.Unavailable,
			wantSent:  []sent{htmlMsg},
			wantInErr: "retry after 1h0m0s",
		},
		{
			name:         "refused dials are retried: the request never left",
			dialFailures: 2,
			wantSent:     []sent{htmlMsg},
		},
		{
			name:         "refused dials give up after the attempts, nothing sent",
			dialFailures: maxTransientAttempts,
			wantCode:     fault.Unavailable,
			wantInErr:    "connection refused",
		},
		{
			name:          "timeout after the request was written is not resent",
			replies:       []string{"hang"},
			clientTimeout: 300 * time.Millisecond,
			timeout:       time.Minute,
			wantCode:      fault.Unavailable,
			wantUnknown:   true,
			wantSent:      []sent{htmlMsg},
		},
		{
			name:        "connection reset after the request was written is not resent",
			replies:     []string{"reset"},
			timeout:     time.Minute,
			wantCode:    fault.Unavailable,
			wantUnknown: true,
			wantSent:    []sent{htmlMsg},
		},
		{
			name:        "5xx is not resent: Telegram may have sent it",
			replies:     []string{`502 <html>bad gateway</html>`},
			timeout:     time.Minute,
			wantCode:    fault.Unavailable,
			wantUnknown: true,
			wantSent:    []sent{htmlMsg},
			wantInErr:   "502 Bad Gateway",
		},
		{
			name:     "can't parse entities: sent once more as plain text",
			replies:  []string{cantParse},
			wantSent: []sent{htmlMsg, plainMsg},
		},
		{
			name:      "can't parse entities, plain text refused too: final",
			replies:   []string{cantParse, `400 {"ok":false,"error_code":400,"description":"Bad Request: chat not found"}`},
			wantCode:  fault.Invalid,
			wantSent:  []sent{htmlMsg, plainMsg},
			wantInErr: "chat not found",
		},
		{
			name:       "can't parse entities, plain text rate limited: waits, then sent",
			replies:    []string{cantParse, tooMany("1")},
			timeout:    10 * time.Second,
			wantSent:   []sent{htmlMsg, plainMsg, plainMsg},
			minElapsed: time.Second,
		},
		{
			name:      "chat not found is invalid",
			replies:   []string{`400 {"ok":false,"error_code":400,"description":"Bad Request: chat not found"}`},
			wantCode:  fault.Invalid,
			wantSent:  []sent{htmlMsg},
			wantInErr: "Bad Request: chat not found",
		},
		{
			name:      "bad token is unauthorized",
			replies:   []string{`401 {"ok":false,"error_code":401,"description":"Unauthorized"}`},
			wantCode:  fault.Unauthorized,
			wantSent:  []sent{htmlMsg},
			wantInErr: "401 Unauthorized",
		},
		{
			name:      "blocked by the user is not found (the recipient is gone)",
			replies:   []string{`403 {"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}`},
			wantCode:  fault.NotFound,
			wantSent:  []sent{htmlMsg},
			wantInErr: "bot was blocked by the user",
		},
		{
			name:      "unknown token path is unauthorized",
			replies:   []string{`404 {"ok":false,"error_code":404,"description":"Not Found"}`},
			wantCode:  fault.Unauthorized,
			wantSent:  []sent{htmlMsg},
			wantInErr: "Not Found",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bot, c := newFakeBot(t, tt.replies...)
			var dials atomic.Int32
			tr := &http.Transport{DialContext: flakyDial(tt.dialFailures, &dials)}
			t.Cleanup(tr.CloseIdleConnections)
			c.client = &http.Client{Transport: tr, Timeout: tt.clientTimeout}
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			start := time.Now()
			err := c.Post(ctx, session.DeliveryContext{Channel: Channel, To: "123"}, message)
			elapsed := time.Since(start)

			if got := fault.CodeOf(err); got != tt.wantCode {
				t.Fatalf("Post = %v (class %q), want class %q", err, got, tt.wantCode)
			}
			if got := errors.Is(err, ErrOutcomeUnknown); got != tt.wantUnknown {
				t.Errorf("errors.Is(%v, ErrOutcomeUnknown) = %v, want %v", err, got, tt.wantUnknown)
			}
			if diff := cmp.Diff(tt.wantSent, sentOf(t, bot.received())); diff != "" {
				t.Errorf("requests Telegram received (-want +got):\n%s", diff)
			}
			if elapsed < tt.minElapsed {
				t.Errorf("took %s, want at least %s (retry_after)", elapsed, tt.minElapsed)
			}
			if tt.minElapsed == 0 && elapsed > time.Second {
				t.Errorf("took %s; nothing here should wait", elapsed)
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantInErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantInErr)
			}
			if err != nil && strings.Contains(err.Error(), testToken) {
				t.Errorf("error leaks the token: %q", err)
			}
		})
	}
}

// TestClientPostOutcomeUnknownAtDeadline: when the caller's own deadline
// cuts a written request short, the message is not resent either.
func TestClientPostOutcomeUnknownAtDeadline(t *testing.T) {
	bot, c := newFakeBot(t, "hang")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := c.Post(ctx, session.DeliveryContext{To: "123"}, "hi")
	if !fault.Is(err, fault.Unavailable) || !errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("Post = %v, want fault.Unavailable wrapping ErrOutcomeUnknown", err)
	}
	if n := len(bot.received()); n != 1 {
		t.Errorf("Telegram received %d requests, want 1", n)
	}
}

func TestSetWebhook(t *testing.T) {
	const hook = "https://example.com/webhooks/telegram"
	defaults := map[string]any{
		"url":             hook,
		"secret_token":    "dev-secret_123",
		"allowed_updates": []any{"message", "channel_post"},
		"max_connections": float64(DefaultMaxConnections),
	}
	tests := []struct {
		name       string
		webhook    Webhook
		replies    []string
		wantCode   fault.Code
		wantBodies []map[string]any // the request bodies Telegram received
	}{
		{
			name:       "defaults",
			webhook:    Webhook{URL: hook, Secret: "dev-secret_123"},
			wantBodies: []map[string]any{defaults},
		},
		{
			name:    "drop pending, more connections",
			webhook: Webhook{URL: hook, Secret: "dev-secret_123", MaxConnections: 100, DropPendingUpdates: true},
			wantBodies: []map[string]any{{
				"url":                  hook,
				"secret_token":         "dev-secret_123",
				"allowed_updates":      []any{"message", "channel_post"},
				"max_connections":      float64(100),
				"drop_pending_updates": true,
			}},
		},
		{
			name:       "5xx is retried: setWebhook may be repeated",
			webhook:    Webhook{URL: hook, Secret: "dev-secret_123"},
			replies:    []string{`502 <html>bad gateway</html>`},
			wantBodies: []map[string]any{defaults, defaults},
		},
		{
			name:       "refused is final",
			webhook:    Webhook{URL: hook, Secret: "dev-secret_123"},
			replies:    []string{`400 {"ok":false,"error_code":400,"description":"Bad Request: bad webhook: HTTPS url must be provided for webhook"}`},
			wantCode:   fault.Invalid,
			wantBodies: []map[string]any{defaults},
		},
		{name: "empty secret", webhook: Webhook{URL: hook}, wantCode: fault.Invalid},
		{name: "secret with a space", webhook: Webhook{URL: hook, Secret: "dev secret"}, wantCode: fault.Invalid},
		{name: "secret too long", webhook: Webhook{URL: hook, Secret: strings.Repeat("s", 257)}, wantCode: fault.Invalid},
		{name: "too many connections", webhook: Webhook{URL: hook, Secret: "dev-secret_123", MaxConnections: 101}, wantCode: fault.Invalid},
		{name: "negative connections", webhook: Webhook{URL: hook, Secret: "dev-secret_123", MaxConnections: -1}, wantCode: fault.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replies := append(tt.replies, `200 {"ok":true,"result":true,"description":"Webhook was set"}`)
			bot, c := newFakeBot(t, replies...)
			err := c.SetWebhook(context.Background(), tt.webhook)
			if got := fault.CodeOf(err); got != tt.wantCode {
				t.Fatalf("SetWebhook = %v, want class %q", err, tt.wantCode)
			}
			if err != nil && tt.webhook.Secret != "" && strings.Contains(err.Error(), tt.webhook.Secret) {
				t.Errorf("error leaks the secret: %q", err)
			}
			var bodies []map[string]any
			for _, call := range bot.received() {
				if call.Method != "setWebhook" {
					t.Errorf("method %q, want setWebhook", call.Method)
				}
				body := map[string]any{}
				for k, raw := range call.Params {
					var v any
					if err := json.Unmarshal(raw, &v); err != nil {
						t.Fatalf("%s: %v", k, err)
					}
					body[k] = v
				}
				bodies = append(bodies, body)
			}
			if diff := cmp.Diff(tt.wantBodies, bodies); diff != "" {
				t.Errorf("setWebhook bodies (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAllowedUpdatesAreTheHandledOnes ties setWebhook's allowed_updates to
// ParseUpdate: across the sample updates, the kinds it handles are exactly
// AllowedUpdates. Telegram then sends nothing the webhook would only skip,
// and nothing it handles is filtered out.
func TestAllowedUpdatesAreTheHandledOnes(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sample updates: %v", err)
	}
	handled, skipped := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, ok, err := ParseUpdate(body, "7000000001")
		if err != nil {
			continue // not an Update at all
		}
		u, err := decodeUpdate(body)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if ok {
			handled[u.kind] = true
		} else {
			skipped[u.kind] = true
		}
	}
	got := slices.Sorted(func(yield func(string) bool) {
		for k := range handled {
			if !yield(k) {
				return
			}
		}
	})
	want := slices.Sorted(slices.Values(AllowedUpdates()))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AllowedUpdates vs kinds ParseUpdate handles (-allowed +handled):\n%s", diff)
	}
	for _, kind := range []string{"edited_message", "callback_query", "my_chat_member"} {
		if !skipped[kind] || slices.Contains(AllowedUpdates(), kind) {
			t.Errorf("%s: want a sample that is skipped and not allowed (skipped %v)", kind, skipped[kind])
		}
	}
}

func TestPlainText(t *testing.T) {
	tests := []struct {
		name string
		html string
		want string
	}{
		{"escapes decoded", "a &lt;b&gt; &amp; c", "a <b> & c"},
		{"tags removed", "<b>bold</b> and <code>x &lt; y</code>", "bold and x < y"},
		{"code block with a language", `<pre><code class="language-go">if a &amp;&amp; b {}</code></pre>`, "if a && b {}"},
		{"rendered model text", formatHTML("Use **care** with `a<b` & co", maxMessageLength)[0], "Use care with a<b & co"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, plainText(tt.html)); diff != "" {
				t.Errorf("plainText(%q) (-want +got):\n%s", tt.html, diff)
			}
		})
	}
}
