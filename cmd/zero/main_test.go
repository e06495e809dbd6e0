package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/emulator"
	"github.com/zero-gateway/zero/shared/secret"
)

// TestMain starts (or borrows) the AWS emulator for `zero config push` and
// points the default AWS configuration at it.
func TestMain(m *testing.M) {
	os.Exit(emulator.RunTests(m, nil, nil))
}

func TestRun(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantErr    string
		wantHelp   bool
		wantStdout string
		wantStderr string
	}{
		{name: "no command", args: nil, wantHelp: true, wantStderr: "usage: zero <command>"},
		{name: "help", args: []string{"help"}, wantStdout: "dev "},
		{name: "unknown command", args: []string{"nope"}, wantErr: `unknown command "nope"`, wantStderr: "usage: zero"},
		{name: "dev -h", args: []string{"dev", "-h"}, wantHelp: true, wantStderr: "usage: zero dev"},
		{name: "dev bad flag", args: []string{"dev", "-nope"}, wantErr: "flag provided but not defined"},
		{name: "dev extra args", args: []string{"dev", "extra"}, wantErr: "takes no arguments"},
		{name: "dev bad pool", args: []string{"dev", "-pool", "Runner=0"}, wantErr: "want Function=N"},
		{name: "help lists config", args: []string{"help"}, wantStdout: "config "},
		{name: "config -h", args: []string{"config", "-h"}, wantStdout: "usage: zero config check [FILE]"},
		{name: "config check -h", args: []string{"config", "check", "-h"}, wantHelp: true, wantStderr: "usage: zero config check"},
		{name: "config push -h", args: []string{"config", "push", "-h"}, wantHelp: true, wantStderr: "-parameter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tt.args, &stdout, &stderr)
			switch {
			case tt.wantHelp:
				if !errors.Is(err, flag.ErrHelp) {
					t.Errorf("err = %v, want flag.ErrHelp", err)
				}
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
			default:
				if err != nil {
					t.Errorf("err = %v", err)
				}
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout = %q, want it to contain %q", stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

func TestDevParamsFromEnv(t *testing.T) {
	secretPattern := regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`)
	tests := []struct {
		name          string
		env           map[string]string
		wantParams    map[string]string // checked for these keys only
		wantSecrets   map[string]string // checked for these names only
		wantGenerated bool
		wantStandIn   bool
		wantNotes     int
	}{
		{
			name:          "nothing set: fake token, Telegram stand-in, generated secret, echo model",
			env:           map[string]string{},
			wantParams:    map[string]string{"TelegramBotId": "123456", "ZeroModel": "zero/echo"},
			wantSecrets:   map[string]string{"telegram-bot-token": fakeBotToken},
			wantGenerated: true,
			wantStandIn:   true,
			wantNotes:     1,
		},
		{
			name:          "a Telegram base URL without a token: no stand-in",
			env:           map[string]string{"TELEGRAM_API_BASE_URL": "http://fake"},
			wantParams:    map[string]string{"TelegramBotId": "123456", "TelegramAPIBaseURL": "http://fake"},
			wantSecrets:   map[string]string{"telegram-bot-token": fakeBotToken},
			wantGenerated: true,
			wantNotes:     1,
		},
		{
			name: "everything set",
			env: map[string]string{
				"TELEGRAM_BOT_TOKEN": "1:real", "TELEGRAM_WEBHOOK_SECRET": "mine_0123456789abcdefghijklmnopqrstu", "TELEGRAM_API_BASE_URL": "http://fake",
				"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://llm", "ZERO_MODEL": "openai/x",
				"ZERO_GATEWAY_TOKEN": "gw-token-0123456789abcdefghijklmnop", "ANTHROPIC_API_KEY": "ak",
			},
			wantParams: map[string]string{
				"TelegramBotId": "1", "TelegramAPIBaseURL": "http://fake", "OpenAIBaseURL": "http://llm", "ZeroModel": "openai/x",
			},
			wantSecrets: map[string]string{
				"telegram-bot-token": "1:real", "telegram-webhook-secret": "mine_0123456789abcdefghijklmnopqrstu",
				"openai-api-key": "k", "gateway-token": "gw-token-0123456789abcdefghijklmnop", "anthropic-api-key": "ak",
			},
		},
		{
			name: "Discord settings",
			env: map[string]string{
				"TELEGRAM_BOT_TOKEN": "1:real", "DISCORD_PUBLIC_KEY": "ab12", "DISCORD_APPLICATION_ID": "999",
				"DISCORD_API_BASE_URL": "http://fake-discord", "DISCORD_BOT_TOKEN": "bot-token",
			},
			wantParams:    map[string]string{"DiscordPublicKey": "ab12", "DiscordApplicationId": "999", "DiscordAPIBaseURL": "http://fake-discord"},
			wantSecrets:   map[string]string{"discord-bot-token": "bot-token"},
			wantGenerated: true,
		},
		{
			name:          "an OpenAI key picks an OpenAI model",
			env:           map[string]string{"TELEGRAM_BOT_TOKEN": "1:real", "OPENAI_API_KEY": "k"},
			wantParams:    map[string]string{"ZeroModel": "openai/gpt-4o-mini"},
			wantSecrets:   map[string]string{"openai-api-key": "k"},
			wantGenerated: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := devParamsFromEnv(func(k string) string { return tt.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range tt.wantParams {
				if got := s.params[k]; got != want {
					t.Errorf("param %s = %q, want %q", k, got, want)
				}
			}
			for k, want := range tt.wantSecrets {
				if got := s.secrets[k]; got != want {
					t.Errorf("secret %s is not the one from the environment", k)
				}
			}
			for k := range s.params {
				if k == "DiscordPublicKey" {
					continue // an Ed25519 public key: public by design, not a secret
				}
				if strings.Contains(k, "Token") || strings.Contains(k, "Key") || strings.Contains(k, "Secret") {
					t.Errorf("secret-looking template parameter %s: secrets go to SSM, not parameters", k)
				}
			}
			if s.standIn != tt.wantStandIn {
				t.Errorf("standIn = %v, want %v", s.standIn, tt.wantStandIn)
			}
			if s.generated != tt.wantGenerated {
				t.Errorf("generated = %v, want %v", s.generated, tt.wantGenerated)
			}
			if !secretPattern.MatchString(s.secret) || len(s.secret) < 32 || s.secrets["telegram-webhook-secret"] != s.secret {
				t.Errorf("secret %q is not a valid Telegram secret_token or not passed on", s.secret)
			}
			if len(s.notes) != tt.wantNotes {
				t.Errorf("notes = %q, want %d", s.notes, tt.wantNotes)
			}
			if len(s.gatewayToken) < 32 || s.secrets["gateway-token"] != s.gatewayToken {
				t.Errorf("gateway token %q is too short or not passed on", s.gatewayToken)
			}
		})
	}
}

func TestParsePoolSizes(t *testing.T) {
	tests := []struct {
		in      string
		want    map[string]int
		wantErr bool
	}{
		{in: "", want: map[string]int{}},
		{in: "Runner=4", want: map[string]int{"Runner": 4}},
		{in: "Runner=4, TelegramWebhook=1", want: map[string]int{"Runner": 4, "TelegramWebhook": 1}},
		{in: "Runner", wantErr: true},
		{in: "Runner=x", wantErr: true},
		{in: "=2", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parsePoolSizes(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTelegramStandIn(t *testing.T) {
	var out strings.Builder
	tg, err := startTelegramStandIn(&out)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	tests := []struct {
		name, path, body string
		wantStatus       int
		wantOut          string
	}{
		{"reply is printed", "/bot1:x/sendMessage", `{"chat_id":42,"text":"hello\nworld","parse_mode":"HTML"}`, 200, "reply to chat 42:\n    hello\n    world\n"},
		{"topic is shown", "/bot1:x/sendMessage", `{"chat_id":-100,"message_thread_id":7,"text":"hi"}`, 200, "reply to chat -100 topic 7:"},
		{"missing text is 400", "/bot1:x/sendMessage", `{"chat_id":42}`, 400, ""},
		{"other methods are 404", "/bot1:x/getMe", `{}`, 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out.Reset()
			resp, err := http.Post(tg.URL+tc.path, "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				OK bool `json:"ok"`
			}
			json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus || body.OK != (tc.wantStatus == 200) {
				t.Fatalf("status %d ok %v; want %d", resp.StatusCode, body.OK, tc.wantStatus)
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Fatalf("printed %q; want it to contain %q", out.String(), tc.wantOut)
			}
		})
	}
}

// TestDevGeneratesLocalTokens: zero dev makes up the local tokens that are
// not in the environment, each valid for its secret's rules, and keeps the
// ones that are.
func TestDevGeneratesLocalTokens(t *testing.T) {
	env := map[string]string{"ZERO_HOOKS_TOKEN": "hooks-token-from-env-0123456789abcdef"}
	s, err := devParamsFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if s.hooksToken != env["ZERO_HOOKS_TOKEN"] || s.secrets[secret.HooksToken.Name] != s.hooksToken {
		t.Errorf("hooks token %q (secret %q); want the environment's", s.hooksToken, s.secrets[secret.HooksToken.Name])
	}
	for _, spec := range []secret.Spec{secret.TelegramWebhookSecret, secret.GatewayToken} {
		v := s.secrets[spec.Name]
		if err := spec.Check(v); err != nil {
			t.Errorf("generated %s %q: %v", spec.Name, v, err)
		}
	}
	again, err := devParamsFromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if err := secret.HooksToken.Check(again.hooksToken); err != nil || again.hooksToken == s.hooksToken {
		t.Errorf("generated hooks token %q: %v; want a fresh valid one", again.hooksToken, err)
	}
}
