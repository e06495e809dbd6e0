package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/zero-gateway/zero/shared/awsconfig"
)

// withStdin makes `zero secrets set` read in from a pipe (terminal false)
// or, with terminal true, from a hidden prompt that answers in.
func withStdin(t *testing.T, in string, terminal bool) {
	t.Helper()
	old := secretInput
	t.Cleanup(func() { secretInput = old })
	secretInput.r = strings.NewReader(in)
	secretInput.terminal = func() bool { return terminal }
	secretInput.readHidden = func() ([]byte, error) {
		if !terminal {
			return nil, errors.New("not a terminal")
		}
		return []byte(in), nil
	}
}

func freshStackName() string {
	var b [5]byte
	rand.Read(b[:])
	return "cli-" + hex.EncodeToString(b[:])
}

// stored reads a parameter back (decrypted) with its type.
func stored(t *testing.T, name string) (string, types.ParameterType, bool) {
	t.Helper()
	cfg, err := awsconfig.Load(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ssm.NewFromConfig(cfg).GetParameter(context.Background(), &ssm.GetParameterInput{Name: aws.String(name), WithDecryption: aws.Bool(true)})
	if err != nil {
		return "", "", false
	}
	return aws.ToString(out.Parameter.Value), out.Parameter.Type, true
}

func TestSecretsSet(t *testing.T) {
	const strong = "whsec_0123456789abcdefghijklmnopqrstuv"
	tests := []struct {
		name      string
		args      []string // after "secrets"; "$STACK" is replaced
		stdin     string
		terminal  bool
		wantErr   string
		wantValue string // stored under /zero/$STACK/secrets/<name>; "" means nothing stored
		wantOut   string
	}{
		{name: "from a pipe, trailing newline dropped", args: []string{"set", "telegram-webhook-secret", "--stack", "$STACK"}, stdin: strong + "\n",
			wantValue: strong, wantOut: "secret telegram-webhook-secret written to /zero/$STACK/secrets/telegram-webhook-secret (SecureString, version 1)"},
		{name: "from a hidden prompt", args: []string{"set", "gateway-token", "--stack", "$STACK"}, stdin: strong, terminal: true, wantValue: strong},
		{name: "--value - is stdin", args: []string{"set", "openai-api-key", "--stack", "$STACK", "--value", "-"}, stdin: "sk-123\r\n", wantValue: "sk-123"},
		{name: "flags before the name", args: []string{"set", "--stack", "$STACK", "anthropic-api-key"}, stdin: "sk-ant", wantValue: "sk-ant"},
		{name: "bot token: its id is printed", args: []string{"set", "telegram-bot-token", "--stack", "$STACK"}, stdin: "4242:AAH-secret", wantValue: "4242:AAH-secret", wantOut: "bot id 4242"},
		{name: "a webhook secret under 32 characters", args: []string{"set", "telegram-webhook-secret", "--stack", "$STACK"}, stdin: "short_secret", wantErr: "at least 32 characters"},
		{name: "a gateway token under 32 characters", args: []string{"set", "gateway-token", "--stack", "$STACK"}, stdin: "gw-token-0123456789", wantErr: "at least 32 characters"},
		{name: "a malformed bot token", args: []string{"set", "telegram-bot-token", "--stack", "$STACK"}, stdin: "AAH-secret", wantErr: "malformed"},
		{name: "nothing on stdin", args: []string{"set", "openai-api-key", "--stack", "$STACK"}, stdin: "", wantErr: "nothing on stdin"},
		{name: "the value in argv is refused", args: []string{"set", "openai-api-key", "--stack", "$STACK", "--value", "sk-in-argv"}, wantErr: "never on the command line"},
		{name: "unknown secret", args: []string{"set", "nope", "--stack", "$STACK"}, stdin: "x", wantErr: "unknown secret"},
		{name: "no stack", args: []string{"set", "openai-api-key"}, stdin: "x", wantErr: "which stack"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(stackEnv, "")
			stack := freshStackName()
			args := []string{"secrets"}
			for _, a := range tt.args {
				args = append(args, strings.ReplaceAll(a, "$STACK", stack))
			}
			withStdin(t, tt.stdin, tt.terminal)
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), args, &stdout, &stderr)
			// Never echoed, whatever happens.
			if v := strings.TrimSpace(tt.stdin); len(v) > 3 && (strings.Contains(stdout.String(), v) || strings.Contains(stderr.String(), v) || (err != nil && strings.Contains(err.Error(), v))) {
				t.Errorf("the value was echoed: stdout %q stderr %q err %v", stdout.String(), stderr.String(), err)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v; want one saying %q", err, tt.wantErr)
				}
				for _, a := range tt.args {
					if a != "$STACK" && !strings.HasPrefix(a, "-") && a != "set" {
						if _, _, ok := stored(t, "/zero/"+stack+"/secrets/"+a); ok {
							t.Errorf("refused, yet %s was written", a)
						}
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v (stderr %q)", err, stderr.String())
			}
			name := tt.args[1]
			if strings.HasPrefix(name, "-") {
				name = tt.args[3]
			}
			v, typ, ok := stored(t, "/zero/"+stack+"/secrets/"+name)
			if !ok || v != tt.wantValue || typ != types.ParameterTypeSecureString {
				t.Errorf("stored %t, type %s, the value given: %t; want a SecureString holding it", ok, typ, v == tt.wantValue)
			}
			if want := strings.ReplaceAll(tt.wantOut, "$STACK", stack); !strings.Contains(stdout.String(), want) {
				t.Errorf("stdout %q; want %q", stdout.String(), want)
			}
			if tt.terminal && !strings.Contains(stderr.String(), "input hidden") {
				t.Errorf("no prompt on stderr: %q", stderr.String())
			}
		})
	}
}

func TestSecretsSetParameterAndList(t *testing.T) {
	stack := freshStackName()
	withStdin(t, "sk-1", false)
	param := "/zero/" + stack + "/secrets/openai-api-key"
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"secrets", "set", "openai-api-key", "--parameter", param}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"secrets", "set", "openai-api-key", "--parameter", param, "--stack", stack}, &stdout, &stderr); err == nil {
		t.Error("--parameter with --stack: no error")
	}
	stdout.Reset()
	t.Setenv(stackEnv, stack)
	if err := run(context.Background(), []string{"secrets", "list"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	for _, want := range []string{"openai-api-key  set", "telegram-bot-token  NOT SET (required)", "gateway-token  not set", param} {
		if !strings.Contains(strings.Join(strings.Fields(out), "  "), strings.Join(strings.Fields(want), "  ")) {
			t.Errorf("list:\n%s\nwant %q", out, want)
		}
	}
	if strings.Contains(out, "sk-1") {
		t.Error("list shows a value")
	}
}

func TestDevRefusesShortSecrets(t *testing.T) {
	for _, env := range []string{"TELEGRAM_WEBHOOK_SECRET", "ZERO_GATEWAY_TOKEN"} {
		_, err := devParamsFromEnv(func(k string) string {
			if k == env {
				return "short-0123456789"
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), env) || !strings.Contains(err.Error(), "32") || strings.Contains(err.Error(), "short-0123456789") {
			t.Errorf("%s under 32 characters: %v; want an error naming it and the minimum, not the value", env, err)
		}
	}
}
