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
	return secret.Parameter(awstest.Name("gw-"), secret.GatewayToken.Name)
}

func putToken(t *testing.T, param, token string) {
	t.Helper()
	if _, err := ssmparam.PutSecret(context.Background(), ssmClient, param, token, ""); err != nil {
		t.Fatal(err)
	}
}

const goodToken = "gw-token-0123456789abcdefghijklmnop"

func TestSetupEnv(t *testing.T) {
	stored, short := freshTokenParam(), freshTokenParam()
	putToken(t, stored, goodToken)
	putToken(t, short, "gw-token-0123456789")
	good := map[string]string{
		"ZERO_GATEWAY_TOKEN_PARAMETER": stored,
		"ZERO_TABLE":                   "t",
		"ZERO_BUCKET":                  "b",
		"ZERO_QUEUE_URL":               "http://127.0.0.1:4566/000000000000/zero-work.fifo",
		"ZERO_CONFIG_PARAMETER":        "/zero/test/config",
	}
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"all set", nil, ""},
		{"a token not set still starts (every call is refused)", map[string]string{"ZERO_GATEWAY_TOKEN_PARAMETER": freshTokenParam()}, ""},
		{"a token under 32 characters", map[string]string{"ZERO_GATEWAY_TOKEN_PARAMETER": short}, "gateway-token is too short"},
		{"no token parameter", map[string]string{"ZERO_GATEWAY_TOKEN_PARAMETER": ""}, "ZERO_GATEWAY_TOKEN_PARAMETER"},
		{"no table", map[string]string{"ZERO_TABLE": ""}, "ZERO_TABLE"},
		{"no bucket", map[string]string{"ZERO_BUCKET": ""}, "ZERO_BUCKET"},
		{"no queue", map[string]string{"ZERO_QUEUE_URL": ""}, "ZERO_QUEUE_URL"},
		{"no config parameter", map[string]string{"ZERO_CONFIG_PARAMETER": ""}, "ZERO_CONFIG_PARAMETER"},
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
			if strings.Contains(err.Error(), "gw-token-0123456789") {
				t.Errorf("error %q leaks the token", err)
			}
		})
	}
}

// TestTokenReadOnceAndRotated: one GetParameters at cold start, none per
// call; a rotated token is accepted, and the old one refused, once
// ZERO_SECRETS_TTL has passed. A token set after a cold start without one
// is picked up the same way.
func TestTokenReadOnceAndRotated(t *testing.T) {
	ctx := context.Background()
	param := freshTokenParam()
	putToken(t, param, goodToken)
	for k, v := range map[string]string{
		"ZERO_GATEWAY_TOKEN_PARAMETER": param, "ZERO_TABLE": "t", "ZERO_BUCKET": "b",
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
	status := func(token string) int {
		// An unknown method: 400 once authorised, 401 before.
		r := httptest.NewRequest(http.MethodPost, "/rpc", strings.NewReader(`{"method":"no.such","params":{}}`))
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	counter.Reset()
	for range 20 {
		if got := status(goodToken); got != http.StatusBadRequest {
			t.Fatalf("right token: status %d; want 400", got)
		}
		if got := status("wrong-token-0123456789abcdefghijkl"); got != http.StatusUnauthorized {
			t.Fatalf("wrong token: status %d; want 401", got)
		}
	}
	if got := counter.Total(); got != 0 {
		t.Errorf("40 calls made %d AWS calls (%s); want 0", got, counter)
	}

	t.Setenv("ZERO_SECRETS_TTL", "200ms")
	if h, err = setup(ctx, slog.New(slog.DiscardHandler), nil); err != nil {
		t.Fatal(err)
	}
	const rotated = "gw-rotated-0123456789abcdefghijklmn"
	putToken(t, param, rotated)
	if got := status(goodToken); got != http.StatusBadRequest {
		t.Errorf("within the TTL the old token: status %d; want it still accepted", got)
	}
	awstest.WaitFor(t, "the rotated token is accepted", 5*time.Second, func() bool { return status(rotated) == http.StatusBadRequest })
	if got := status(goodToken); got != http.StatusUnauthorized {
		t.Errorf("after the rotation the old token: status %d; want 401", got)
	}

	// No token at cold start: every call refused, until one is set.
	later := freshTokenParam()
	t.Setenv("ZERO_GATEWAY_TOKEN_PARAMETER", later)
	if h, err = setup(ctx, slog.New(slog.DiscardHandler), nil); err != nil {
		t.Fatal(err)
	}
	if got := status(""); got != http.StatusUnauthorized {
		t.Errorf("no token, empty bearer: status %d; want 401", got)
	}
	putToken(t, later, goodToken)
	awstest.WaitFor(t, "the token set after cold start is accepted", 5*time.Second, func() bool { return status(goodToken) == http.StatusBadRequest })
}
