package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestBinaryGatewayCall builds the real zero binary and runs
// `zero gateway call status` against the fake gateway.
func TestBinaryGatewayCall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "zero")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	g := newFakeGateway(t, map[string]rpcHandler{
		"status": fixed(200, rpcSuccess(map[string]any{"ok": true, "configVersion": "v7", "sessions": []any{}})),
	})
	tests := []struct {
		name       string
		args       []string
		env        []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{
			name:       "status",
			args:       []string{"gateway", "call", "status"},
			env:        []string{gatewayURLEnv + "=" + g.server.URL, gatewayTokenEnv + "=" + testGatewayToken},
			wantStdout: "{\n  \"configVersion\": \"v7\",\n  \"ok\": true,\n  \"sessions\": []\n}\n",
		},
		{
			name:       "flags win over the environment",
			args:       []string{"gateway", "call", "status", "--json", "--url", g.server.URL, "--token", testGatewayToken},
			env:        []string{gatewayURLEnv + "=http://127.0.0.1:1", gatewayTokenEnv + "=wrong"},
			wantStdout: `{"configVersion":"v7","ok":true,"sessions":[]}` + "\n",
		},
		{
			name:       "wrong token",
			args:       []string{"gateway", "call", "status"},
			env:        []string{gatewayURLEnv + "=" + g.server.URL, gatewayTokenEnv + "=wrong"},
			wantCode:   1,
			wantStderr: "zero: gateway status: unauthorized (HTTP 401): invalid gateway token; check --token or ZERO_GATEWAY_TOKEN\n",
		},
		{
			name:       "no token",
			args:       []string{"gateway", "call", "status"},
			env:        []string{gatewayURLEnv + "=" + g.server.URL},
			wantCode:   1,
			wantStderr: "zero: no gateway token: pass --token or set ZERO_GATEWAY_TOKEN\n",
		},
		{
			name:     "no method",
			args:     []string{"gateway"},
			wantCode: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			cmd.Env = append(cleanEnv(), tt.env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tt.wantCode, stderr.String())
			}
			if tt.wantCode == 0 && stdout.String() != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", stdout.String(), tt.wantStdout)
			}
			if tt.wantStderr != "" && stderr.String() != tt.wantStderr {
				t.Errorf("stderr = %q, want %q", stderr.String(), tt.wantStderr)
			}
			if tt.wantCode == 0 {
				if !json.Valid(stdout.Bytes()) {
					t.Errorf("stdout is not JSON: %q", stdout.String())
				}
			} else if stdout.Len() != 0 {
				t.Errorf("stdout = %q on failure, want nothing", stdout.String())
			}
		})
	}
}

// cleanEnv is the environment without the gateway variables.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, gatewayURLEnv+"=") && !strings.HasPrefix(kv, gatewayTokenEnv+"=") {
			env = append(env, kv)
		}
	}
	return env
}
