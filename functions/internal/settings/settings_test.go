package settings

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/cmd/zero/devstack/provision"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/sqsqueue"
	"github.com/zero-gateway/zero/shared/ssmparam"
)

// functions are the settings of each function, by its logical id in
// template.yaml.
var functions = map[string]func() Validator{
	"Runner":              func() Validator { return &Runner{} },
	"TelegramWebhook":     func() Validator { return &TelegramWebhook{} },
	"DiscordInteractions": func() Validator { return &DiscordInteractions{} },
	"Gateway":             func() Validator { return &Gateway{} },
	"Hooks":               func() Validator { return &Hooks{} },
	"Cron":                func() Validator { return &Cron{} },
}

// runnerEnv is the least environment the runner starts with.
var runnerEnv = map[string]string{
	"ZERO_TABLE": "t", "ZERO_BUCKET": "b", "ZERO_CONFIG_PARAMETER": "/zero/s/config",
	"TELEGRAM_BOT_TOKEN_PARAMETER": "/zero/s/secrets/telegram-bot-token",
	"OPENAI_API_KEY_PARAMETER":     "/zero/s/secrets/openai-api-key",
	"ANTHROPIC_API_KEY_PARAMETER":  "/zero/s/secrets/anthropic-api-key",
}

// with is env with over set on top ("" unsets).
func with(env, over map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

func getenv(env map[string]string) func(string) string {
	return func(name string) string { return env[name] }
}

func TestLoadRunner(t *testing.T) {
	defaults := Runner{
		Table: "t", Bucket: "b", Model: "zero/echo",
		Consumer:  Consumer{GroupConcurrency: 10, MinBudgetSeconds: 120, MaxReceiveCount: 5, RetryBaseSeconds: 5, RetryMaxSeconds: 300},
		Telegram:  Telegram{BotTokenParameter: "/zero/s/secrets/telegram-bot-token"},
		OpenAI:    OpenAI{KeyParameter: "/zero/s/secrets/openai-api-key"},
		Anthropic: Anthropic{KeyParameter: "/zero/s/secrets/anthropic-api-key"},
		Config:    Config{Parameter: "/zero/s/config", TTL: 30 * time.Second},
		Secrets:   Secrets{TTL: 5 * time.Minute},
	}
	set := defaults
	set.BedrockModels, set.ConfigWrites, set.Model = []string{"amazon.nova-pro-v1:0", "anthropic.claude-sonnet-4-20250514-v1:0"}, true, "bedrock/amazon.nova-pro-v1:0"
	set.Consumer.GroupConcurrency, set.Config.TTL, set.Secrets.TTL = 3, 0, time.Second
	tests := []struct {
		name    string
		env     map[string]string
		want    Runner
		wantErr string // a part of the error, "" for none
	}{
		{name: "defaults", env: runnerEnv, want: defaults},
		{name: "set", env: with(runnerEnv, map[string]string{"ZERO_BEDROCK_MODELS": " amazon.nova-pro-v1:0, ,anthropic.claude-sonnet-4-20250514-v1:0",
			"ZERO_CONFIG_WRITES": "true", "ZERO_MODEL": "bedrock/amazon.nova-pro-v1:0", "ZERO_GROUP_CONCURRENCY": "3",
			"ZERO_CONFIG_TTL": "0s", "ZERO_SECRETS_TTL": "1s"}), want: set},
		{name: "no table", env: with(runnerEnv, map[string]string{"ZERO_TABLE": ""}), wantErr: "environment variable ZERO_TABLE is required"},
		{name: "no bot token parameter", env: with(runnerEnv, map[string]string{"TELEGRAM_BOT_TOKEN_PARAMETER": ""}),
			wantErr: "TELEGRAM_BOT_TOKEN_PARAMETER is required (the SSM parameter holding the secret telegram-bot-token)"},
		{name: "no config parameter", env: with(runnerEnv, map[string]string{"ZERO_CONFIG_PARAMETER": ""}), wantErr: "ZERO_CONFIG_PARAMETER"},
		{name: "not a number", env: with(runnerEnv, map[string]string{"ZERO_RETRY_BASE_SECONDS": "ten"}), wantErr: "ZERO_RETRY_BASE_SECONDS"},
		{name: "negative number", env: with(runnerEnv, map[string]string{"ZERO_RETRY_MAX_SECONDS": "-1"}), wantErr: "ZERO_RETRY_MAX_SECONDS"},
		{name: "no concurrency", env: with(runnerEnv, map[string]string{"ZERO_GROUP_CONCURRENCY": "0"}), wantErr: "ZERO_GROUP_CONCURRENCY"},
		{name: "config TTL not a duration", env: with(runnerEnv, map[string]string{"ZERO_CONFIG_TTL": "soon"}), wantErr: "ZERO_CONFIG_TTL"},
		{name: "negative config TTL", env: with(runnerEnv, map[string]string{"ZERO_CONFIG_TTL": "-1s"}), wantErr: "ZERO_CONFIG_TTL"},
		{name: "no secrets TTL", env: with(runnerEnv, map[string]string{"ZERO_SECRETS_TTL": "0s"}), wantErr: "ZERO_SECRETS_TTL"},
		{name: "malformed model", env: with(runnerEnv, map[string]string{"ZERO_MODEL": "gpt-4"}), wantErr: "ZERO_MODEL"},
		{name: "config writes not a boolean", env: with(runnerEnv, map[string]string{"ZERO_CONFIG_WRITES": "yes"}), wantErr: "ZERO_CONFIG_WRITES"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Runner
			err := load(&got, getenv(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("load = %v; want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoadNamesTheVariable: every function's settings refuse what is
// missing or malformed with an error naming the variable, never echoing
// a value that may be half a secret.
func TestLoadNamesTheVariable(t *testing.T) {
	webhook := map[string]string{"TELEGRAM_BOT_ID": "7000000001", "TELEGRAM_WEBHOOK_SECRET_PARAMETER": "/p", "ZERO_QUEUE_URL": "q", "ZERO_CONFIG_PARAMETER": "/c"}
	gateway := map[string]string{"ZERO_GATEWAY_TOKEN_PARAMETER": "/p", "ZERO_TABLE": "t", "ZERO_BUCKET": "b", "ZERO_QUEUE_URL": "q", "ZERO_CONFIG_PARAMETER": "/c"}
	hooks := map[string]string{"ZERO_HOOKS_TOKEN_PARAMETER": "/p", "ZERO_QUEUE_URL": "q", "ZERO_CONFIG_PARAMETER": "/c"}
	interactions := map[string]string{"ZERO_QUEUE_URL": "q", "ZERO_CONFIG_PARAMETER": "/c"}
	cron := map[string]string{"ZERO_TABLE": "t", "ZERO_QUEUE_URL": "q", "ZERO_CONFIG_PARAMETER": "/c"}
	tests := []struct {
		name     string
		function string
		env      map[string]string
		wantErr  string // "": it loads
	}{
		{"webhook loads", "TelegramWebhook", webhook, ""},
		{"webhook without a bot id", "TelegramWebhook", with(webhook, map[string]string{"TELEGRAM_BOT_ID": ""}), "TELEGRAM_BOT_ID"},
		{"webhook given a token for the bot id", "TelegramWebhook", with(webhook, map[string]string{"TELEGRAM_BOT_ID": "7000000001:AAHdqTcv"}), "TELEGRAM_BOT_ID"},
		{"webhook without its secret's parameter", "TelegramWebhook", with(webhook, map[string]string{"TELEGRAM_WEBHOOK_SECRET_PARAMETER": ""}), "TELEGRAM_WEBHOOK_SECRET_PARAMETER"},
		{"webhook secrets TTL not a duration", "TelegramWebhook", with(webhook, map[string]string{"ZERO_SECRETS_TTL": "soon"}), "ZERO_SECRETS_TTL"},
		{"gateway loads", "Gateway", gateway, ""},
		{"gateway without a bucket", "Gateway", with(gateway, map[string]string{"ZERO_BUCKET": ""}), "ZERO_BUCKET"},
		{"gateway without its token's parameter", "Gateway", with(gateway, map[string]string{"ZERO_GATEWAY_TOKEN_PARAMETER": ""}), "ZERO_GATEWAY_TOKEN_PARAMETER"},
		{"hooks load", "Hooks", hooks, ""},
		{"hooks without a queue", "Hooks", with(hooks, map[string]string{"ZERO_QUEUE_URL": ""}), "ZERO_QUEUE_URL"},
		{"interactions load without a key", "DiscordInteractions", interactions, ""},
		{"interactions without a config parameter", "DiscordInteractions", with(interactions, map[string]string{"ZERO_CONFIG_PARAMETER": ""}), "ZERO_CONFIG_PARAMETER"},
		{"cron loads", "Cron", cron, ""},
		{"cron without a table", "Cron", with(cron, map[string]string{"ZERO_TABLE": ""}), "ZERO_TABLE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := load(functions[tt.function](), getenv(tt.env))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("load = %v; want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("load = %v; want an error naming %s", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "AAHdqTcv") {
				t.Errorf("error %q holds a token's secret part", err)
			}
		})
	}
}

// TestDefaultsMatchTheAdapters: the tags' defaults and names are the
// constants the adapters and `zero dev` know them by.
func TestDefaultsMatchTheAdapters(t *testing.T) {
	var s Runner
	if err := load(&s, getenv(runnerEnv)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"config TTL", s.Config.TTL, ssmparam.DefaultTTL},
		{"secrets TTL", s.Secrets.TTL, ssmparam.DefaultSecretsTTL},
		{"group concurrency", s.Consumer.GroupConcurrency, sqsqueue.DefaultConcurrency},
		{"config parameter variable", Vars(Config{})[0].Name, provision.ConfigParameterEnv},
		{"config TTL variable", Vars(Config{})[1].Name, provision.ConfigTTLEnv},
		{"secrets TTL variable", Vars(Secrets{})[0].Name, ssmparam.SecretsTTLEnv},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSecretTags: a field tagged secret names the variable shared/secret
// gives that secret's parameter, and no function reads a secret's value
// from its environment (the variable `zero dev` takes it from).
func TestSecretTags(t *testing.T) {
	values := map[string]string{}
	for _, spec := range secret.All() {
		values[spec.DevEnv] = spec.Name
	}
	for id, newSettings := range functions {
		t.Run(id, func(t *testing.T) {
			for _, v := range Vars(newSettings()) {
				if name, ok := values[v.Name]; ok {
					t.Errorf("%s reads %s, the value of the secret %s: read its *_PARAMETER instead", id, v.Name, name)
				}
				if v.Secret == "" {
					continue
				}
				spec, err := secret.Lookup(v.Secret)
				if err != nil {
					t.Errorf("%s: %v", v.Name, err)
				} else if spec.Env != v.Name {
					t.Errorf("%s is tagged secret %s, whose parameter's variable is %s", v.Name, v.Secret, spec.Env)
				}
			}
		})
	}
}

func TestSecretParameters(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want map[string]string
	}{
		{"required ones", runnerEnv, map[string]string{
			"telegram-bot-token": "/zero/s/secrets/telegram-bot-token", "openai-api-key": "/zero/s/secrets/openai-api-key",
			"anthropic-api-key": "/zero/s/secrets/anthropic-api-key"}},
		{"optional ones where named", with(runnerEnv, map[string]string{"DISCORD_BOT_TOKEN_PARAMETER": "/d", "BRAVE_API_KEY_PARAMETER": "/b"}), map[string]string{
			"telegram-bot-token": "/zero/s/secrets/telegram-bot-token", "openai-api-key": "/zero/s/secrets/openai-api-key",
			"anthropic-api-key": "/zero/s/secrets/anthropic-api-key", "discord-bot-token": "/d", "brave-api-key": "/b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Runner
			if err := load(&s, getenv(tt.env)); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, SecretParameters(s)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestTags: every settings struct's tags parse (Vars panics otherwise)
// and name each variable once.
func TestTags(t *testing.T) {
	for id, newSettings := range functions {
		t.Run(id, func(t *testing.T) {
			seen := map[string]bool{}
			for _, v := range Vars(newSettings()) {
				if seen[v.Name] {
					t.Errorf("%s is read twice", v.Name)
				}
				seen[v.Name] = true
			}
		})
	}
}
