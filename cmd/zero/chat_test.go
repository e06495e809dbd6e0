package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
)

func TestChat(t *testing.T) {
	tests := []struct {
		name        string
		input       string
		args        []string
		agent       rpcHandler // nil: agentAnswer
		wantStdout  string
		wantStderr  string
		wantMethods []string
		wantErr     string
	}{
		{
			name:        "one line, blank lines skipped, /exit ends",
			input:       "hello\n\n   \n/exit\nnever sent\n",
			wantStdout:  "Hi there.\nHow can I help?\n",
			wantMethods: []string{"agent", "agent.wait", "agent.events", "chat.history"},
		},
		{
			name:        "end of input ends",
			input:       "a\nb",
			wantStdout:  "Hi there.\nHow can I help?\nHi there.\nHow can I help?\n",
			wantMethods: []string{"agent", "agent.wait", "agent.events", "chat.history", "agent", "agent.wait", "agent.events", "chat.history"},
		},
		{
			name:        "an error is reported and the loop goes on",
			input:       "a\nb\n",
			agent:       fixed(409, rpcFailure("conflict", "busy")),
			wantStderr:  "error: gateway agent: conflict (HTTP 409): busy",
			wantMethods: []string{"agent", "agent"},
		},
		{
			name:    "unauthorized stops",
			input:   "a\nb\n",
			args:    []string{"--token", "nope"},
			wantErr: "check --token or ZERO_GATEWAY_TOKEN",
		},
		{name: "bad timeout", args: []string{"--timeout", "-1s"}, wantErr: "--timeout must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var waits atomic.Int32
			agent := tt.agent
			if agent == nil {
				agent = agentAnswer
			}
			g := newFakeGateway(t, map[string]rpcHandler{
				"agent": agent, "agent.wait": waitAnswers(t, &waits, "ok"), "chat.history": historyAnswer(t),
			})
			var stdout, stderr bytes.Buffer
			err := chat(context.Background(), tt.args, strings.NewReader(tt.input), &stdout, &stderr)
			checkErr(t, err, tt.wantErr)
			if stdout.String() != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr = %q, want %q", stderr.String(), tt.wantStderr)
			}
			if tt.wantMethods != nil {
				var methods []string
				for _, c := range g.received() {
					methods = append(methods, c.Method)
				}
				if strings.Join(methods, " ") != strings.Join(tt.wantMethods, " ") {
					t.Errorf("methods = %v, want %v", methods, tt.wantMethods)
				}
			}
		})
	}
}

func TestChatAgainstGateway(t *testing.T) {
	runner := startSimulatedRunner(t)
	startGateway(t, runner)
	var stdout, stderr bytes.Buffer
	if err := chat(context.Background(), nil, strings.NewReader("one\ntwo\n"), &stdout, &stderr); err != nil {
		t.Fatalf("err = %v (stderr %q)", err, stderr.String())
	}
	if want := "echo: one\necho: two\n"; stdout.String() != want {
		t.Errorf("stdout = %q, want %q (stderr %q)", stdout.String(), want, stderr.String())
	}
	var history struct {
		Messages []json.RawMessage `json:"messages"`
	}
	out, _, err := runCLI(t, "gateway", "call", "chat.history")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &history); err != nil || len(history.Messages) != 4 {
		t.Errorf("main session history = %s (%v), want both turns in it", out, err)
	}
}
