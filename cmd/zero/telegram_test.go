package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Credentials of the fake Telegram; the tests check neither is printed.
const (
	testBotToken = "123456:SECRET-bot-token"
	testSecret   = "hook_secret-XYZ"
)

// setWebhookRequest is a setWebhook body as the fake Telegram decodes it.
type setWebhookRequest struct {
	URL                string   `json:"url"`
	SecretToken        string   `json:"secret_token"`
	AllowedUpdates     []string `json:"allowed_updates"`
	MaxConnections     int      `json:"max_connections"`
	DropPendingUpdates *bool    `json:"drop_pending_updates"` // nil when absent
}

var (
	handledUpdates = []string{"message", "channel_post"}
	dropTrue       = true
)

// fakeSetWebhook is a Bot API that takes only setWebhook for testBotToken and
// answers with answer (status, body).
type fakeSetWebhook struct {
	server   *httptest.Server
	mu       sync.Mutex
	requests []setWebhookRequest
}

func newFakeSetWebhook(t *testing.T, status int, body string) *fakeSetWebhook {
	t.Helper()
	f := &fakeSetWebhook{}
	f.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			t.Errorf("fake telegram: method %s", r.Method)
		}
		if r.URL.Path != "/bot"+testBotToken+"/setWebhook" {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"ok":false,"error_code":404,"description":"Not Found"}`))
			return
		}
		var req setWebhookRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Errorf("fake telegram: body: %v", err)
		}
		f.mu.Lock()
		f.requests = append(f.requests, req)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(f.server.Close)
	return f
}

func TestSetWebhook(t *testing.T) {
	const ok = `{"ok":true,"result":true,"description":"Webhook was set"}`
	tests := []struct {
		name        string
		args        []string
		env         map[string]string
		status      int
		body        string
		wantRequest *setWebhookRequest
		wantStdout  string
		wantErr     string
	}{
		{
			name:        "flags",
			args:        []string{"--url", "https://abc.example.com", "--token", testBotToken, "--secret", testSecret},
			wantRequest: &setWebhookRequest{URL: "https://abc.example.com/webhooks/telegram", SecretToken: testSecret, AllowedUpdates: handledUpdates, MaxConnections: 40},
			wantStdout:  "webhook set: https://abc.example.com/webhooks/telegram\n",
		},
		{
			name:        "environment, path already there",
			args:        []string{"--url", "https://abc.example.com/prod/webhooks/telegram/"},
			env:         map[string]string{telegramTokenEnv: testBotToken, telegramSecretEnv: testSecret},
			wantRequest: &setWebhookRequest{URL: "https://abc.example.com/prod/webhooks/telegram", SecretToken: testSecret, AllowedUpdates: handledUpdates, MaxConnections: 40},
			wantStdout:  "webhook set: https://abc.example.com/prod/webhooks/telegram\n",
		},
		{
			name:        "stage path, trailing slash",
			args:        []string{"--url", "https://abc.example.com/prod/", "--token", testBotToken, "--secret", testSecret},
			wantRequest: &setWebhookRequest{URL: "https://abc.example.com/prod/webhooks/telegram", SecretToken: testSecret, AllowedUpdates: handledUpdates, MaxConnections: 40},
		},
		{
			name:        "drop pending",
			args:        []string{"--url", "https://abc.example.com", "--token", testBotToken, "--secret", testSecret, "--drop-pending"},
			wantRequest: &setWebhookRequest{URL: "https://abc.example.com/webhooks/telegram", SecretToken: testSecret, AllowedUpdates: handledUpdates, MaxConnections: 40, DropPendingUpdates: &dropTrue},
			wantStdout:  "pending updates dropped",
		},
		{
			name:        "max connections",
			args:        []string{"--url", "https://abc.example.com", "--token", testBotToken, "--secret", testSecret, "--max-connections", "100"},
			wantRequest: &setWebhookRequest{URL: "https://abc.example.com/webhooks/telegram", SecretToken: testSecret, AllowedUpdates: handledUpdates, MaxConnections: 100},
			wantStdout:  "updates: message, channel_post; at most 100 at once",
		},
		{name: "max connections out of range", args: []string{"--url", "https://abc.example.com", "--token", testBotToken, "--secret", testSecret, "--max-connections", "101"}, wantErr: "--max-connections 101: want 1-100"},
		{name: "max connections zero", args: []string{"--url", "https://abc.example.com", "--token", testBotToken, "--secret", testSecret, "--max-connections", "0"}, wantErr: "--max-connections 0: want 1-100"},
		{
			name:    "telegram refuses",
			args:    []string{"--url", "https://abc.example.com", "--token", testBotToken, "--secret", testSecret},
			status:  400,
			body:    `{"ok":false,"error_code":400,"description":"Bad Request: bad webhook: HTTPS url must be provided for webhook"}`,
			wantErr: "Bad Request: bad webhook: HTTPS url must be provided for webhook",
		},
		{
			name:    "telegram refuses, drop pending",
			args:    []string{"--url", "https://abc.example.com", "--token", testBotToken, "--secret", testSecret, "--drop-pending"},
			status:  400,
			body:    `{"ok":false,"error_code":400,"description":"Bad Request: bad webhook: Failed to resolve host"}`,
			wantErr: "400 Bad Request: bad webhook: Failed to resolve host",
		},
		{
			name:    "wrong token",
			args:    []string{"--url", "https://abc.example.com", "--token", "999:" + testBotToken, "--secret", testSecret},
			wantErr: "404 Not Found",
		},
		{name: "no url", args: []string{"--token", testBotToken, "--secret", testSecret}, wantErr: "--url is required"},
		{name: "bad url", args: []string{"--url", "abc.example.com", "--token", testBotToken, "--secret", testSecret}, wantErr: `--url "abc.example.com"`},
		{name: "no token", args: []string{"--url", "https://abc.example.com", "--secret", testSecret}, wantErr: "pass --token or set TELEGRAM_BOT_TOKEN"},
		{name: "no secret", args: []string{"--url", "https://abc.example.com", "--token", testBotToken}, wantErr: "pass --secret or set TELEGRAM_WEBHOOK_SECRET"},
		{name: "bad secret", args: []string{"--url", "https://abc.example.com", "--token", testBotToken, "--secret", "has space"}, wantErr: "webhook secret must be 1-256 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(telegramTokenEnv, tt.env[telegramTokenEnv])
			t.Setenv(telegramSecretEnv, tt.env[telegramSecretEnv])
			status, body := tt.status, tt.body
			if status == 0 {
				status, body = 200, ok
			}
			tg := newFakeSetWebhook(t, status, body)
			args := append([]string{"telegram", "set-webhook", "--api", tg.server.URL}, tt.args...)
			stdout, stderr, err := runCLI(t, args...)
			checkErr(t, err, tt.wantErr)
			if !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("stdout = %q, want %q", stdout, tt.wantStdout)
			}
			printed := stdout + stderr
			if err != nil {
				printed += err.Error()
			}
			for _, s := range []string{testBotToken, testSecret, "SECRET-bot"} {
				if strings.Contains(printed, s) {
					t.Errorf("output shows %q: %q", s, printed)
				}
			}
			if tt.wantRequest != nil {
				tg.mu.Lock()
				defer tg.mu.Unlock()
				if diff := cmp.Diff([]setWebhookRequest{*tt.wantRequest}, tg.requests); diff != "" {
					t.Errorf("setWebhook requests (-want +got):\n%s", diff)
				}
			} else if tt.status == 0 {
				tg.mu.Lock()
				defer tg.mu.Unlock()
				if len(tg.requests) != 0 {
					t.Errorf("setWebhook called for a rejected command: %+v", tg.requests)
				}
			}
		})
	}
}

func TestSetWebhookUnreachableHidesToken(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{name: "shared client"},
		{name: "drop pending", args: []string{"--drop-pending"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"telegram", "set-webhook", "--api", "http://127.0.0.1:1",
				"--url", "https://abc.example.com", "--token", testBotToken, "--secret", testSecret}, tt.args...)
			_, _, err := runCLI(t, args...)
			if err == nil {
				t.Fatal("err = nil, want a connection error")
			}
			if strings.Contains(err.Error(), testBotToken) || strings.Contains(err.Error(), testSecret) {
				t.Errorf("err shows a credential: %v", err)
			}
			if !strings.Contains(err.Error(), "<token>") {
				t.Errorf("err = %v, want the token replaced by <token>", err)
			}
		})
	}
}

func TestTelegramUsage(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantErr    string
		wantStdout string
	}{
		{name: "no subcommand", args: []string{"telegram"}, wantErr: "flag: help requested"},
		{name: "help", args: []string{"telegram", "help"}, wantStdout: "set-webhook"},
		{name: "unknown", args: []string{"telegram", "nope"}, wantErr: `unknown telegram command "nope"`},
		{name: "stray argument", args: []string{"telegram", "set-webhook", "x"}, wantErr: "takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, _, err := runCLI(t, tt.args...)
			checkErr(t, err, tt.wantErr)
			if !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("stdout = %q, want %q", stdout, tt.wantStdout)
			}
		})
	}
}
