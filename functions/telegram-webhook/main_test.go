package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
)

func TestSetupEnv(t *testing.T) {
	const token = "7000000001:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
	good := map[string]string{
		"TELEGRAM_WEBHOOK_SECRET": "dev-secret",
		"TELEGRAM_BOT_TOKEN":      token,
		"ZERO_QUEUE_URL":          "http://127.0.0.1:4566/000000000000/zero-work.fifo",
		"ZERO_CONFIG_PARAMETER":   "/zero/test/config",
	}
	tests := []struct {
		name    string
		env     map[string]string // overrides of good
		wantErr string            // "" means setup succeeds
	}{
		{name: "all set", wantErr: ""},
		{name: "missing secret", env: map[string]string{"TELEGRAM_WEBHOOK_SECRET": ""}, wantErr: "TELEGRAM_WEBHOOK_SECRET"},
		{name: "secret Telegram cannot send", env: map[string]string{"TELEGRAM_WEBHOOK_SECRET": "has space!"}, wantErr: "TELEGRAM_WEBHOOK_SECRET"},
		{name: "missing token", env: map[string]string{"TELEGRAM_BOT_TOKEN": ""}, wantErr: "TELEGRAM_BOT_TOKEN"},
		{name: "malformed token", env: map[string]string{"TELEGRAM_BOT_TOKEN": "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"}, wantErr: "TELEGRAM_BOT_TOKEN"},
		{name: "missing queue URL", env: map[string]string{"ZERO_QUEUE_URL": ""}, wantErr: "ZERO_QUEUE_URL"},
		{name: "missing config parameter", env: map[string]string{"ZERO_CONFIG_PARAMETER": ""}, wantErr: "ZERO_CONFIG_PARAMETER"},
		{name: "config TTL not a duration", env: map[string]string{"ZERO_CONFIG_TTL": "soon"}, wantErr: "ZERO_CONFIG_TTL"},
		{name: "config TTL set", env: map[string]string{"ZERO_CONFIG_TTL": "5s"}, wantErr: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("AWS_REGION", "us-east-1")
			for k, v := range good {
				t.Setenv(k, v)
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			h, err := setup(context.Background(), slog.New(slog.DiscardHandler), nil)
			if tt.wantErr == "" {
				if err != nil || h == nil {
					t.Fatalf("setup = %v, %v; want a handler", h, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("setup error %v, want one naming %s", err, tt.wantErr)
			}
			for _, secret := range []string{"has space!", "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error %q leaks a secret", err)
				}
			}
		})
	}
}
