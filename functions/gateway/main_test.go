package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
)

func TestSetupEnv(t *testing.T) {
	good := map[string]string{
		"ZERO_GATEWAY_TOKEN":    "gw-token-0123456789",
		"ZERO_TABLE":            "t",
		"ZERO_BUCKET":           "b",
		"ZERO_QUEUE_URL":        "http://127.0.0.1:4566/000000000000/zero-work.fifo",
		"ZERO_CONFIG_PARAMETER": "/zero/test/config",
	}
	tests := []struct {
		name    string
		unset   string
		wantErr string
	}{
		{"all set", "", ""},
		{"an empty token still starts (every call is refused)", "ZERO_GATEWAY_TOKEN", ""},
		{"no table", "ZERO_TABLE", "ZERO_TABLE"},
		{"no bucket", "ZERO_BUCKET", "ZERO_BUCKET"},
		{"no queue", "ZERO_QUEUE_URL", "ZERO_QUEUE_URL"},
		{"no config parameter", "ZERO_CONFIG_PARAMETER", "ZERO_CONFIG_PARAMETER"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("AWS_REGION", "us-east-1")
			for k, v := range good {
				t.Setenv(k, v)
			}
			if tt.unset != "" {
				t.Setenv(tt.unset, "")
			}
			h, err := setup(context.Background(), slog.New(slog.DiscardHandler), nil)
			if tt.wantErr == "" {
				if err != nil || h == nil {
					t.Fatalf("setup = %v, %v; want a handler", h, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("setup error %v; want one naming %s", err, tt.wantErr)
			}
		})
	}
}
