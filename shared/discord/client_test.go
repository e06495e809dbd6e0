package discord_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/discord"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
)

// call is one request the fake Discord API received.
type call struct {
	Method, Path, Auth string
	Body               map[string]any
}

// fakeDiscord answers each request with the next canned answer (then 200s)
// and records what it received.
type fakeDiscord struct {
	mu      sync.Mutex
	calls   []call
	answers []answer
}

type answer struct {
	status int
	body   string
}

func (f *fakeDiscord) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	f.calls = append(f.calls, call{Method: r.Method, Path: r.URL.EscapedPath(), Auth: r.Header.Get("Authorization"), Body: body})
	a := answer{200, `{"id":"1"}`}
	if len(f.answers) > 0 {
		a, f.answers = f.answers[0], f.answers[1:]
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}

func msg(content string) map[string]any {
	return map[string]any{"content": content, "allowed_mentions": map[string]any{"parse": []any{}}}
}

func TestClientPostPart(t *testing.T) {
	issued := testNow.UnixMilli()
	to := session.DeliveryContext{Channel: "discord", To: "123", AccountID: "999", ReplyToken: "tok-abc", ReplyTokenAt: issued}
	tests := []struct {
		name     string
		now      time.Time
		to       session.DeliveryContext
		parts    []string
		botToken string
		answers  []answer
		want     []call
		wantErr  fault.Code
	}{
		{
			name: "first edits @original, the rest are follow-ups", now: testNow.Add(time.Minute), to: to,
			parts: []string{"one", "two", "three"}, botToken: "bot-secret",
			want: []call{
				{Method: "PATCH", Path: "/api/v10/webhooks/999/tok-abc/messages/@original", Body: msg("one")},
				{Method: "POST", Path: "/api/v10/webhooks/999/tok-abc", Body: msg("two")},
				{Method: "POST", Path: "/api/v10/webhooks/999/tok-abc", Body: msg("three")},
			},
		},
		{
			name: "after 15 minutes through the bot token", now: testNow.Add(16 * time.Minute), to: to,
			parts: []string{"late", "later"}, botToken: "bot-secret",
			want: []call{
				{Method: "POST", Path: "/api/v10/channels/123/messages", Auth: "Bot bot-secret", Body: msg("late")},
				{Method: "POST", Path: "/api/v10/channels/123/messages", Auth: "Bot bot-secret", Body: msg("later")},
			},
		},
		{
			name: "no interaction token: bot token", now: testNow, to: session.DeliveryContext{Channel: "discord", To: "123"},
			parts: []string{"announce"}, botToken: "bot-secret",
			want: []call{{Method: "POST", Path: "/api/v10/channels/123/messages", Auth: "Bot bot-secret", Body: msg("announce")}},
		},
		{
			name: "expired and no bot token: undeliverable", now: testNow.Add(16 * time.Minute), to: to,
			parts: []string{"late"}, wantErr: fault.Invalid,
		},
		{
			name: "mentions are never parsed", now: testNow, to: to, parts: []string{"@everyone hi <@&1>"},
			want: []call{{Method: "PATCH", Path: "/api/v10/webhooks/999/tok-abc/messages/@original", Body: msg("@everyone hi <@&1>")}},
		},
		{
			name: "429 retry_after honoured", now: testNow, to: to, parts: []string{"hi"},
			answers: []answer{{429, `{"message":"You are being rate limited.","retry_after":0.05,"global":false}`}},
			want: []call{
				{Method: "PATCH", Path: "/api/v10/webhooks/999/tok-abc/messages/@original", Body: msg("hi")},
				{Method: "PATCH", Path: "/api/v10/webhooks/999/tok-abc/messages/@original", Body: msg("hi")},
			},
		},
		{
			name: "429 longer than the deadline", now: testNow, to: to, parts: []string{"hi"},
			answers: []answer{{429, `{"message":"You are being rate limited.","retry_after":120.5}`}},
			want:    []call{{Method: "PATCH", Path: "/api/v10/webhooks/999/tok-abc/messages/@original", Body: msg("hi")}},
			wantErr: fault.Unavailable,
		},
		{
			name: "bad bot token", now: testNow.Add(time.Hour), to: to, parts: []string{"hi"}, botToken: "bot-secret",
			answers: []answer{{401, `{"message":"401: Unauthorized","code":0}`}},
			want:    []call{{Method: "POST", Path: "/api/v10/channels/123/messages", Auth: "Bot bot-secret", Body: msg("hi")}},
			wantErr: fault.Unauthorized,
		},
		{
			name: "missing access", now: testNow.Add(time.Hour), to: to, parts: []string{"hi"}, botToken: "bot-secret",
			answers: []answer{{403, `{"message":"Missing Access","code":50001}`}},
			want:    []call{{Method: "POST", Path: "/api/v10/channels/123/messages", Auth: "Bot bot-secret", Body: msg("hi")}},
			wantErr: fault.NotFound,
		},
		{
			name: "server error", now: testNow, to: to, parts: []string{"hi"},
			answers: []answer{{502, `bad gateway`}},
			want:    []call{{Method: "PATCH", Path: "/api/v10/webhooks/999/tok-abc/messages/@original", Body: msg("hi")}},
			wantErr: fault.Unavailable,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeDiscord{answers: tc.answers}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			c := discord.NewClient(discord.ClientConfig{
				BaseURL: srv.URL + "/api/v10", ApplicationID: "999", BotToken: tc.botToken,
				Now: func() time.Time { return tc.now },
			})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var err error
			for i, p := range tc.parts {
				if err = c.PostPart(ctx, tc.to, i, p); err != nil {
					break
				}
			}
			if tc.wantErr == "" && err != nil {
				t.Fatalf("PostPart: %v", err)
			}
			if tc.wantErr != "" && !fault.Is(err, tc.wantErr) {
				t.Fatalf("PostPart = %v; want a %s error", err, tc.wantErr)
			}
			if err != nil && (strings.Contains(err.Error(), "tok-abc") || strings.Contains(err.Error(), "bot-secret")) {
				t.Errorf("error leaks a token: %v", err)
			}
			if diff := cmp.Diff(tc.want, fake.calls); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRender(t *testing.T) {
	long := strings.Repeat("word ", 1000) // 5,000 characters
	para := strings.Repeat("a", 1500) + "\n\n" + strings.Repeat("b", 1500)
	runes := strings.Repeat("é", 4500)
	tests := []struct {
		name      string
		text      string
		wantParts int
		wantFirst string
	}{
		{"short", "hello", 1, "hello"},
		{"blank", " \n ", 0, ""},
		{"exactly 2000", strings.Repeat("x", 2000), 1, strings.Repeat("x", 2000)},
		{"2001 splits", strings.Repeat("x", 2001), 2, strings.Repeat("x", 2000)},
		{"words", long, 3, ""},
		{"paragraphs", para, 2, strings.Repeat("a", 1500)},
		{"multibyte counted as characters", runes, 3, strings.Repeat("é", 2000)},
	}
	c := discord.NewClient(discord.ClientConfig{})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := c.Render(tc.text)
			if len(got) != tc.wantParts {
				t.Fatalf("Render: %d parts; want %d", len(got), tc.wantParts)
			}
			for i, p := range got {
				if n := utf8.RuneCountInString(p); n > discord.MaxMessageLength || n == 0 {
					t.Errorf("part %d has %d characters", i, n)
				}
			}
			if tc.wantFirst != "" && got[0] != tc.wantFirst {
				t.Errorf("first part = %.40q…; want %.40q…", got[0], tc.wantFirst)
			}
			if strings.Join(strings.Fields(strings.Join(got, "")), "") != strings.Join(strings.Fields(tc.text), "") {
				t.Errorf("parts lose text")
			}
		})
	}
}
