package ssmparam

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/secret"
)

var (
	strongA = strings.Repeat("a", secret.MinStrongLen)
	strongB = strings.Repeat("b", secret.MinStrongLen)
)

// freshStack is a stack name no other test uses; its secret parameters are
// deleted after the test.
func freshStack(t *testing.T) string {
	t.Helper()
	stack := awstest.Name("test-")
	t.Cleanup(func() {
		for _, s := range secret.All() {
			testClient.DeleteParameter(context.Background(), &ssm.DeleteParameterInput{Name: aws.String(secret.Parameter(stack, s.Name))})
		}
	})
	return stack
}

// paramsOf maps the specs to their parameters in stack.
func paramsOf(stack string, specs ...secret.Spec) map[string]string {
	m := map[string]string{}
	for _, s := range specs {
		m[s.Name] = secret.Parameter(stack, s.Name)
	}
	return m
}

func put(t *testing.T, stack string, s secret.Spec, v string) {
	t.Helper()
	if _, err := PutSecret(context.Background(), testClient, secret.Parameter(stack, s.Name), v, ""); err != nil {
		t.Fatal(err)
	}
}

// TestSecretsRoundTrip: PutSecret writes a SecureString (encrypted at rest:
// read without decryption it is not the value) and Secrets reads it back.
func TestSecretsRoundTrip(t *testing.T) {
	ctx := context.Background()
	stack := freshStack(t)
	put(t, stack, secret.GatewayToken, strongA)
	raw, err := testClient.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(secret.Parameter(stack, secret.GatewayToken.Name))})
	if err != nil {
		t.Fatal(err)
	}
	if raw.Parameter.Type != types.ParameterTypeSecureString || aws.ToString(raw.Parameter.Value) == strongA {
		t.Errorf("stored as %s, value readable without decryption: %t; want a SecureString", raw.Parameter.Type, aws.ToString(raw.Parameter.Value) == strongA)
	}
	s := NewSecrets(testClient, paramsOf(stack, secret.GatewayToken), time.Minute, nil)
	if got, err := s.Get(ctx, secret.GatewayToken); err != nil || got != strongA {
		t.Fatalf("Get = %d chars, %v; want the value written", len(got), err)
	}
	// Overwriting makes a new version: a rotation.
	put(t, stack, secret.GatewayToken, strongB)
	if got, err := NewSecrets(testClient, paramsOf(stack, secret.GatewayToken), time.Minute, nil).Get(ctx, secret.GatewayToken); err != nil || got != strongB {
		t.Errorf("after an overwrite Get = %v; want the new value", err)
	}
}

// TestSecretsReadOnceAtColdStart: all of a function's secrets in one
// GetParameters call at Load, then none until the TTL has passed.
func TestSecretsReadOnceAtColdStart(t *testing.T) {
	ctx := context.Background()
	stack := freshStack(t)
	put(t, stack, secret.TelegramBotToken, "123:tok")
	put(t, stack, secret.OpenAIAPIKey, "sk-1")
	s := NewSecrets(testClient, paramsOf(stack, secret.TelegramBotToken, secret.OpenAIAPIKey, secret.AnthropicAPIKey), time.Minute, nil)
	counter.Reset()
	if err := s.Load(ctx); err != nil {
		t.Fatal(err)
	}
	for range 50 {
		if v, err := s.Get(ctx, secret.TelegramBotToken); err != nil || v != "123:tok" {
			t.Fatalf("Get bot token = %v", err)
		}
		if v, err := s.Get(ctx, secret.OpenAIAPIKey); err != nil || v != "sk-1" {
			t.Fatalf("Get openai key = %v", err)
		}
		// An optional secret that is not set: named, not found.
		if _, err := s.Get(ctx, secret.AnthropicAPIKey); !fault.Is(err, fault.NotFound) {
			t.Fatalf("Get of an unset optional secret = %v; want not found", err)
		}
	}
	if got := counter.String(); got != "SSM.GetParameters=1" {
		t.Errorf("cold start and 150 Gets made %s; want SSM.GetParameters=1", got)
	}
}

// TestSecretsRotation: a rotated secret is read again once the TTL has
// passed, not before.
func TestSecretsRotation(t *testing.T) {
	ctx := context.Background()
	stack := freshStack(t)
	put(t, stack, secret.TelegramWebhookSecret, strongA)
	s := NewSecrets(testClient, paramsOf(stack, secret.TelegramWebhookSecret), 5*time.Minute, nil)
	now := time.Unix(1_800_000_000, 0)
	s.now = func() time.Time { return now }
	if err := s.Load(ctx); err != nil {
		t.Fatal(err)
	}
	put(t, stack, secret.TelegramWebhookSecret, strongB)
	counter.Reset()
	now = now.Add(5*time.Minute - time.Second)
	if v, _ := s.Get(ctx, secret.TelegramWebhookSecret); v != strongA || counter.Total() != 0 {
		t.Errorf("within the TTL: the new value %t after %d calls; want the old one, no call", v == strongB, counter.Total())
	}
	now = now.Add(time.Second)
	if v, _ := s.Get(ctx, secret.TelegramWebhookSecret); v != strongB || counter.String() != "SSM.GetParameters=1" {
		t.Errorf("at the TTL: the new value %t after %s; want it after one GetParameters", v == strongB, counter)
	}
	// A value that breaks the rules (written past zero secrets set) is
	// refused; the last good one stays.
	put(t, stack, secret.TelegramWebhookSecret, "short")
	now = now.Add(5 * time.Minute)
	if v, err := s.Get(ctx, secret.TelegramWebhookSecret); err != nil || v != strongB {
		t.Errorf("after a short value: %v, the last good value %t; want it kept", err, v == strongB)
	}
	// A deleted secret is gone at the next read.
	testClient.DeleteParameter(ctx, &ssm.DeleteParameterInput{Name: aws.String(secret.Parameter(stack, secret.TelegramWebhookSecret.Name))})
	now = now.Add(5 * time.Minute)
	if _, err := s.Get(ctx, secret.TelegramWebhookSecret); !fault.Is(err, fault.NotFound) {
		t.Errorf("after a delete: %v; want not found", err)
	}
}

// TestSecretsMissing: a required secret that is not set stops the cold
// start with an error naming the secret and its parameter, and how to set
// it; a value under the minimum too, without the value.
func TestSecretsMissing(t *testing.T) {
	ctx := context.Background()
	stack := freshStack(t)
	param := secret.Parameter(stack, secret.TelegramWebhookSecret.Name)
	s := NewSecrets(testClient, paramsOf(stack, secret.TelegramWebhookSecret, secret.GatewayToken), 0, nil)
	err := s.Load(ctx)
	if !fault.Is(err, fault.NotFound) {
		t.Fatalf("Load without the webhook secret = %v; want not found", err)
	}
	for _, want := range []string{secret.TelegramWebhookSecret.Name, param, "zero secrets set"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	put(t, stack, secret.TelegramWebhookSecret, "tooShort_but_valid_chars")
	err = NewSecrets(testClient, paramsOf(stack, secret.TelegramWebhookSecret), 0, nil).Load(ctx)
	if !fault.Is(err, fault.Invalid) || !strings.Contains(err.Error(), "32") || !strings.Contains(err.Error(), param) || strings.Contains(err.Error(), "tooShort") {
		t.Errorf("Load with a short secret = %v; want invalid, naming 32 and the parameter, not the value", err)
	}
	if _, err := s.Get(ctx, secret.OpenAIAPIKey); !fault.Is(err, fault.Internal) {
		t.Errorf("Get of a secret the reader was not given = %v; want internal", err)
	}
}

// failing answers GetParameters from ok until fail is set.
type failing struct {
	ok   GetParametersAPI
	fail bool
}

func (f *failing) GetParameters(ctx context.Context, in *ssm.GetParametersInput, opts ...func(*ssm.Options)) (*ssm.GetParametersOutput, error) {
	if f.fail {
		return nil, errors.New("connection reset")
	}
	return f.ok.GetParameters(ctx, in, opts...)
}

// TestSecretsReReadFails: a failed re-read keeps the values read before
// and is tried again soon; a failed cold start is an error.
func TestSecretsReReadFails(t *testing.T) {
	ctx := context.Background()
	stack := freshStack(t)
	put(t, stack, secret.GatewayToken, strongA)
	client := &failing{ok: testClient}
	s := NewSecrets(client, paramsOf(stack, secret.GatewayToken), time.Minute, slog.New(slog.DiscardHandler))
	now := time.Unix(1_800_000_000, 0)
	s.now = func() time.Time { return now }
	if err := s.Load(ctx); err != nil {
		t.Fatal(err)
	}
	client.fail = true
	now = now.Add(time.Minute)
	if v, err := s.Get(ctx, secret.GatewayToken); err != nil || v != strongA {
		t.Fatalf("a failed re-read: %v; want the old value", err)
	}
	client.fail = false
	put(t, stack, secret.GatewayToken, strongB)
	now = now.Add(retryAfterFailure)
	if v, _ := s.Get(ctx, secret.GatewayToken); v != strongB {
		t.Errorf("%s after a failed re-read the new value is not read", retryAfterFailure)
	}
	client.fail = true
	if err := NewSecrets(client, paramsOf(stack, secret.GatewayToken), 0, nil).Load(ctx); err == nil {
		t.Error("a cold start whose read fails: no error")
	}
}
