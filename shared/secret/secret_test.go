package secret

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
)

func TestCheck(t *testing.T) {
	long := strings.Repeat("a", MinStrongLen)
	tests := []struct {
		spec    Spec
		value   string
		wantErr string // "" means accepted
	}{
		{TelegramWebhookSecret, long, ""},
		{TelegramWebhookSecret, long[:MinStrongLen-1], "at least 32 characters"},
		{TelegramWebhookSecret, long[:MinStrongLen-1] + "!", "A-Z a-z 0-9 _ -"},
		{TelegramWebhookSecret, strings.Repeat("a", 257), "256"},
		{TelegramWebhookSecret, "", "empty"},
		{GatewayToken, long, ""},
		{GatewayToken, "gw-token-0123456789", "at least 32 characters"},
		{GatewayToken, long + "\n", "blank or control"},
		{TelegramBotToken, "123456:AAH-secret", ""},
		{TelegramBotToken, "AAH-secret", "malformed"},
		{TelegramBotToken, "12a:AAH", "malformed"},
		{OpenAIAPIKey, "sk-1", ""},
		{OpenAIAPIKey, "sk 1", "blank"},
		{AnthropicAPIKey, "sk-ant-1", ""},
	}
	for _, tt := range tests {
		err := tt.spec.Check(tt.value)
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("%s: Check = %v; want nil", tt.spec.Name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), tt.spec.Name) {
			t.Errorf("%s: Check(%d chars) = %v; want an error naming the secret and saying %q", tt.spec.Name, len(tt.value), err, tt.wantErr)
			continue
		}
		if !fault.Is(err, fault.Invalid) {
			t.Errorf("%s: class %s; want invalid", tt.spec.Name, fault.CodeOf(err))
		}
		if len(tt.value) > 4 && strings.Contains(err.Error(), tt.value) {
			t.Errorf("%s: the error %q holds the value", tt.spec.Name, err)
		}
	}
}

func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range All() {
		if seen[s.Name] || seen[s.Env] {
			t.Errorf("%s: name or env %s used twice", s.Name, s.Env)
		}
		seen[s.Name], seen[s.Env] = true, true
		if got, err := Lookup(s.Name); err != nil || got.Env != s.Env {
			t.Errorf("Lookup(%s) = %v, %v", s.Name, got.Name, err)
		}
		if !strings.HasSuffix(s.Env, "_PARAMETER") || s.DevEnv == "" || s.Use == "" {
			t.Errorf("%s: Env %s, DevEnv %q, Use %q", s.Name, s.Env, s.DevEnv, s.Use)
		}
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "telegram-bot-token") {
		t.Errorf("Lookup(nope) = %v; want an error listing the names", err)
	}
	if got := Parameter("prod", "gateway-token"); got != "/zero/prod/secrets/gateway-token" {
		t.Errorf("Parameter = %s", got)
	}
	if BotID("123:abc") != "123" || BotID("abc") != "" {
		t.Error("BotID")
	}
}

// fakeGetter serves values from a map; absent ones are not set.
type fakeGetter struct {
	vals  map[string]string
	err   error
	calls int
}

func (f *fakeGetter) Get(_ context.Context, s Spec) (string, error) {
	f.calls++
	if f.err != nil {
		return "", f.err
	}
	v, ok := f.vals[s.Name]
	if !ok {
		return "", fault.New(fault.NotFound, "secret %s is not set", s.Name)
	}
	return v, nil
}

func TestDerived(t *testing.T) {
	ctx := context.Background()
	src := &fakeGetter{vals: map[string]string{GatewayToken.Name: "one"}}
	builds := 0
	d := Derive(src, GatewayToken, func(v string) (string, error) {
		builds++
		if v == "bad" {
			return "", errors.New("refused")
		}
		return "client(" + v + ")", nil
	})
	for range 3 {
		if got, err := d.Get(ctx); err != nil || got != "client(one)" {
			t.Fatalf("Get = %q, %v", got, err)
		}
	}
	if builds != 1 {
		t.Errorf("%d builds for one value; want 1", builds)
	}
	src.vals[GatewayToken.Name] = "two" // rotated
	if got, _ := d.Get(ctx); got != "client(two)" || builds != 2 {
		t.Errorf("after a rotation Get = %q with %d builds; want client(two), 2", got, builds)
	}
	src.vals[GatewayToken.Name] = "bad"
	if _, err := d.Get(ctx); err == nil || !strings.Contains(err.Error(), GatewayToken.Name) {
		t.Errorf("a build failure: %v; want an error naming the secret", err)
	}
	delete(src.vals, GatewayToken.Name)
	if _, err := d.Get(ctx); !fault.Is(err, fault.NotFound) {
		t.Errorf("a deleted secret: %v; want not found", err)
	}
	if v, err := OrEmpty(src).Get(ctx, GatewayToken); v != "" || err != nil {
		t.Errorf("OrEmpty of a missing secret = %q, %v; want \"\", nil", v, err)
	}
	src.err = fault.New(fault.Unavailable, "throttled")
	if _, err := OrEmpty(src).Get(ctx, GatewayToken); !fault.Is(err, fault.Unavailable) {
		t.Errorf("OrEmpty passes other errors on: %v", err)
	}
}
