package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/emulator"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/ssmparam"
	"github.com/zero-gateway/zero/shared/telegram"
)

var (
	ssmClient *ssm.Client
)

func TestMain(m *testing.M) {
	os.Exit(emulator.RunTests(m, nil, func(_ context.Context, cfg aws.Config) (func(), error) {
		ssmClient = ssm.NewFromConfig(cfg)
		return nil, nil
	}))
}

// freshSecretParam is a parameter name no other test uses.
func freshSecretParam(t *testing.T) string {
	return secret.Parameter(awstest.Name("wh-"), secret.TelegramWebhookSecret.Name)
}

const goodSecret = "whsec_0123456789abcdefghijklmnopqrstuv"

func TestSetupEnv(t *testing.T) {
	ctx := context.Background()
	stored := freshSecretParam(t)
	if _, err := ssmparam.PutSecret(ctx, ssmClient, stored, goodSecret, ""); err != nil {
		t.Fatal(err)
	}
	short := freshSecretParam(t)
	if _, err := ssmparam.PutSecret(ctx, ssmClient, short, "dev-secret", ""); err != nil {
		t.Fatal(err)
	}
	good := map[string]string{
		"TELEGRAM_WEBHOOK_SECRET_PARAMETER": stored,
		"TELEGRAM_BOT_ID":                   "7000000001",
		"ZERO_QUEUE_URL":                    "http://127.0.0.1:4566/000000000000/zero-work.fifo",
		"ZERO_CONFIG_PARAMETER":             "/zero/test/config",
	}
	tests := []struct {
		name    string
		env     map[string]string // overrides of good
		wantErr string            // "" means setup succeeds
	}{
		{name: "all set", wantErr: ""},
		{name: "no secret parameter", env: map[string]string{"TELEGRAM_WEBHOOK_SECRET_PARAMETER": ""}, wantErr: "TELEGRAM_WEBHOOK_SECRET_PARAMETER"},
		{name: "secret not set in SSM", env: map[string]string{"TELEGRAM_WEBHOOK_SECRET_PARAMETER": freshSecretParam(t)}, wantErr: "secret telegram-webhook-secret is not set"},
		{name: "secret under 32 characters", env: map[string]string{"TELEGRAM_WEBHOOK_SECRET_PARAMETER": short}, wantErr: "telegram-webhook-secret is too short"},
		{name: "missing bot id", env: map[string]string{"TELEGRAM_BOT_ID": ""}, wantErr: "TELEGRAM_BOT_ID"},
		{name: "bot id that is a token", env: map[string]string{"TELEGRAM_BOT_ID": "7000000001:AAHdqTcv"}, wantErr: "TELEGRAM_BOT_ID"},
		{name: "missing queue URL", env: map[string]string{"ZERO_QUEUE_URL": ""}, wantErr: "ZERO_QUEUE_URL"},
		{name: "missing config parameter", env: map[string]string{"ZERO_CONFIG_PARAMETER": ""}, wantErr: "ZERO_CONFIG_PARAMETER"},
		{name: "config TTL not a duration", env: map[string]string{"ZERO_CONFIG_TTL": "soon"}, wantErr: "ZERO_CONFIG_TTL"},
		{name: "config TTL set", env: map[string]string{"ZERO_CONFIG_TTL": "5s"}, wantErr: ""},
		{name: "secrets TTL not a duration", env: map[string]string{"ZERO_SECRETS_TTL": "soon"}, wantErr: "ZERO_SECRETS_TTL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range good {
				t.Setenv(k, v)
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			h, err := setup(ctx, slog.New(slog.DiscardHandler), nil)
			if tt.wantErr == "" {
				if err != nil || h == nil {
					t.Fatalf("setup = %v, %v; want a handler", h, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("setup error %v, want one naming %s", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "dev-secret") {
				t.Errorf("error %q leaks a secret", err)
			}
		})
	}
}

// TestSecretReadOnceAndRotated: the webhook reads its secret with one call
// at cold start, none per request, and accepts a rotated secret (and
// refuses the old one) once ZERO_SECRETS_TTL has passed.
func TestSecretReadOnceAndRotated(t *testing.T) {
	ctx := context.Background()
	param := freshSecretParam(t)
	if _, err := ssmparam.PutSecret(ctx, ssmClient, param, goodSecret, ""); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"TELEGRAM_WEBHOOK_SECRET_PARAMETER": param, "TELEGRAM_BOT_ID": "7000000001",
		"ZERO_QUEUE_URL": "http://127.0.0.1:1/q.fifo", "ZERO_CONFIG_PARAMETER": "/zero/test/config",
		"ZERO_SECRETS_TTL": "1h",
	} {
		t.Setenv(k, v)
	}
	counter := awsconfig.NewCounter()
	h, err := setup(ctx, slog.New(slog.DiscardHandler), counter)
	if err != nil {
		t.Fatal(err)
	}
	if got := counter.String(); got != "SSM.GetParameters=1" {
		t.Errorf("cold start made %s; want SSM.GetParameters=1", got)
	}
	status := func(secret string) int {
		r := httptest.NewRequest(http.MethodPost, "/webhooks/telegram", strings.NewReader(`not json`))
		r.Header.Set(telegram.SecretHeader, secret)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	counter.Reset()
	for range 20 {
		// A right secret gets past the check (400: the body is no update).
		if got := status(goodSecret); got != http.StatusBadRequest {
			t.Fatalf("right secret: status %d; want 400", got)
		}
		if got := status("wrong"); got != http.StatusUnauthorized {
			t.Fatalf("wrong secret: status %d; want 401", got)
		}
	}
	if got := counter.Total(); got != 0 {
		t.Errorf("40 requests made %d AWS calls (%s); want 0", got, counter)
	}

	// Rotation with a short TTL.
	t.Setenv("ZERO_SECRETS_TTL", "200ms")
	h, err = setup(ctx, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	const rotated = "whsec_rotated_0123456789abcdefghijklm"
	if _, err := ssmparam.PutSecret(ctx, ssmClient, param, rotated, ""); err != nil {
		t.Fatal(err)
	}
	if got := status(goodSecret); got != http.StatusBadRequest {
		t.Errorf("within the TTL the old secret: status %d; want it still accepted", got)
	}
	awstest.WaitFor(t, "the rotated secret is accepted", 5*time.Second, func() bool { return status(rotated) == http.StatusBadRequest })
	if got := status(goodSecret); got != http.StatusUnauthorized {
		t.Errorf("after the rotation the old secret: status %d; want 401", got)
	}
}
