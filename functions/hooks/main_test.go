package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/emulator"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/ssmparam"
)

var ssmClient *ssm.Client

func TestMain(m *testing.M) {
	os.Exit(emulator.RunTests(m, nil, func(_ context.Context, cfg aws.Config) (func(), error) {
		ssmClient = ssm.NewFromConfig(cfg)
		return nil, nil
	}))
}

// freshTokenParam is a parameter name no other test uses.
func freshTokenParam() string {
	return secret.Parameter(awstest.Name("hk-"), secret.HooksToken.Name)
}

func putToken(t *testing.T, param, token string) {
	t.Helper()
	if _, err := ssmparam.PutSecret(context.Background(), ssmClient, param, token, ""); err != nil {
		t.Fatal(err)
	}
}

const goodToken = "hk-token-0123456789abcdefghijklmnop"

// TestSetupEnv: setup names what is missing or wrong, never a value.
func TestSetupEnv(t *testing.T) {
	stored, short := freshTokenParam(), freshTokenParam()
	putToken(t, stored, goodToken)
	putToken(t, short, "hk-token-0123456789")
	good := map[string]string{
		"ZERO_HOOKS_TOKEN_PARAMETER": stored,
		"ZERO_QUEUE_URL":             "http://127.0.0.1:4566/000000000000/zero-work.fifo",
		"ZERO_CONFIG_PARAMETER":      "/zero/test/config",
	}
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"all set", nil, ""},
		{"a token not set still starts (every hook is refused)", map[string]string{"ZERO_HOOKS_TOKEN_PARAMETER": freshTokenParam()}, ""},
		{"a token under 32 characters", map[string]string{"ZERO_HOOKS_TOKEN_PARAMETER": short}, "hooks-token is too short"},
		{"no token parameter", map[string]string{"ZERO_HOOKS_TOKEN_PARAMETER": ""}, "ZERO_HOOKS_TOKEN_PARAMETER"},
		{"no queue", map[string]string{"ZERO_QUEUE_URL": ""}, "ZERO_QUEUE_URL"},
		{"no config parameter", map[string]string{"ZERO_CONFIG_PARAMETER": ""}, "ZERO_CONFIG_PARAMETER"},
		{"bad config TTL", map[string]string{"ZERO_CONFIG_TTL": "soon"}, "ZERO_CONFIG_TTL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
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
				t.Fatalf("setup error %v; want one naming %s", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "hk-token-0123456789") {
				t.Errorf("error %q leaks the token", err)
			}
		})
	}
}

// TestNoTokenRefuses: started without a token, a hook with any bearer is
// 401 (and reaches no queue: the URL is unreachable).
func TestNoTokenRefuses(t *testing.T) {
	t.Setenv("ZERO_HOOKS_TOKEN_PARAMETER", freshTokenParam())
	t.Setenv("ZERO_QUEUE_URL", "http://127.0.0.1:1/q.fifo")
	t.Setenv("ZERO_CONFIG_PARAMETER", "/zero/test/config")
	h, err := setup(context.Background(), slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "/hooks/agent", strings.NewReader(`{"message":"hi"}`))
	r.Header.Set("Authorization", "Bearer "+goodToken)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusUnauthorized {
		t.Errorf("status %d; want 401", w.Code)
	}
}
