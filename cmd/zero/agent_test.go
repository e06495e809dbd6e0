package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/gateway"
)

// agentAnswer is the fake gateway's answer to agent.
func agentAnswer(params json.RawMessage) (int, any) {
	var p gateway.AgentParams
	json.Unmarshal(params, &p)
	key := p.SessionKey
	if key == "" {
		key = "agent:main:main"
	}
	return 200, rpcSuccess(map[string]any{"runId": "run-1", "status": "accepted", "acceptedAt": 1700000000000, "sessionKey": key})
}

// waitAnswers answers agent.wait with statuses in turn (the last one
// repeats), checking each call's params.
func waitAnswers(t *testing.T, calls *atomic.Int32, statuses ...string) rpcHandler {
	return func(params json.RawMessage) (int, any) {
		var p gateway.WaitParams
		if err := json.Unmarshal(params, &p); err != nil {
			t.Errorf("agent.wait params %s: %v", params, err)
		}
		var timeoutMs int64
		if p.TimeoutMs != nil {
			timeoutMs = *p.TimeoutMs
		}
		if p.RunID != "run-1" || timeoutMs <= 0 || timeoutMs > maxWaitSlice.Milliseconds() {
			t.Errorf("agent.wait params = %s, want runId run-1 and 0 < timeoutMs <= 25000", params)
		}
		n := int(calls.Add(1)) - 1
		status := statuses[min(n, len(statuses)-1)]
		if status == "timeout" {
			time.Sleep(min(time.Duration(timeoutMs)*time.Millisecond, 20*time.Millisecond))
		}
		res := map[string]any{"runId": p.RunID, "status": status}
		switch status {
		case "ok":
			res["startedAt"], res["endedAt"] = 1700000000100, 1700000001100
		case "error":
			res["error"] = "model refused: quota exceeded"
		case "run-timeout":
			res["status"], res["startedAt"], res["endedAt"] = "timeout", 1700000000100, 1700000601100
		}
		return 200, rpcSuccess(res)
	}
}

// historyAnswer is a chat.history result whose last assistant message has
// two text blocks and a tool call.
func historyAnswer(t *testing.T) rpcHandler {
	return func(params json.RawMessage) (int, any) {
		var p gateway.HistoryParams
		json.Unmarshal(params, &p)
		if p.SessionKey == "" {
			t.Errorf("chat.history without sessionKey: %s", params)
		}
		return 200, rpcSuccess(map[string]any{
			"sessionKey": p.SessionKey, "sessionId": "s-1",
			"messages": []any{
				map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "earlier"}}},
				map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "old reply"}}},
				map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "hello"}}},
				map[string]any{"role": "assistant", "content": []any{
					map[string]any{"type": "thinking", "thinking": "hmm"},
					map[string]any{"type": "text", "text": "Hi there."},
					map[string]any{"type": "text", "text": "How can I help?"},
				}},
			},
		})
	}
}

func TestAgent(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	tests := []struct {
		name        string
		args        []string
		waits       []string // agent.wait answers in turn; nil: no agent.wait handler
		wantStdout  string   // exact unless wantJSON
		wantJSON    map[string]any
		wantStderr  string
		wantMethods []string
		wantAgent   map[string]any // fields of the agent params
		wantErr     string
	}{
		{
			name:        "no wait prints the run id",
			args:        []string{"--message", "hello", "--no-wait"},
			wantStdout:  "run-1\n",
			wantMethods: []string{"agent"},
			wantAgent:   map[string]any{"message": "hello"},
		},
		{
			name:        "no wait json",
			args:        []string{"--message", "hello", "--no-wait", "--json", "--session", "agent:main:work", "--idempotency-key", "k-1"},
			wantJSON:    map[string]any{"runId": "run-1", "status": "accepted", "sessionKey": "agent:main:work"},
			wantMethods: []string{"agent"},
			wantAgent:   map[string]any{"message": "hello", "sessionKey": "agent:main:work", "idempotencyKey": "k-1"},
		},
		{
			name:        "wait across timeouts, then the reply",
			args:        []string{"--message", "hello", "--wait"},
			waits:       []string{"timeout", "timeout", "ok"},
			wantStdout:  "Hi there.\nHow can I help?\n",
			wantMethods: []string{"agent", "agent.wait", "agent.wait", "agent.wait", "agent.events", "chat.history"},
		},
		{
			name:        "waits and prints the reply by default",
			args:        []string{"--message", "hello"},
			waits:       []string{"ok"},
			wantStdout:  "Hi there.\nHow can I help?\n",
			wantMethods: []string{"agent", "agent.wait", "agent.events", "chat.history"},
		},
		{
			name:        "wait json",
			args:        []string{"--message", "hello", "--wait", "--json", "--deliver", "--channel", "telegram", "--to", "42"},
			waits:       []string{"timeout", "ok"},
			wantJSON:    map[string]any{"runId": "run-1", "status": "ok", "sessionKey": "agent:main:main", "reply": "Hi there.\nHow can I help?"},
			wantMethods: []string{"agent", "agent.wait", "agent.wait", "agent.events", "chat.history"},
			wantAgent:   map[string]any{"deliver": true, "channel": "telegram", "to": "42"},
		},
		{
			name:        "run failed",
			args:        []string{"--message", "hello", "--wait"},
			waits:       []string{"timeout", "error"},
			wantErr:     "run run-1 failed: model refused: quota exceeded",
			wantMethods: []string{"agent", "agent.wait", "agent.wait"},
		},
		{
			name:        "run hit its own time limit",
			args:        []string{"--message", "hello", "--wait"},
			waits:       []string{"timeout", "run-timeout"},
			wantErr:     "run run-1 timed out (the agent's own time limit)",
			wantMethods: []string{"agent", "agent.wait", "agent.wait"},
		},
		{
			name:    "overall timeout",
			args:    []string{"--message", "hello", "--wait", "--timeout", "150ms"},
			waits:   []string{"timeout"},
			wantErr: "run run-1 did not end within 150ms",
		},
		{name: "no message", args: []string{"--wait"}, wantErr: "--message is required", wantMethods: []string{}},
		{name: "stray argument", args: []string{"--message", "hi", "there"}, wantErr: "takes no arguments", wantMethods: []string{}},
		{name: "bad timeout", args: []string{"--message", "hi", "--wait", "--timeout", "0s"}, wantErr: "--timeout must be positive", wantMethods: []string{}},
		{name: "wrong token", args: []string{"--message", "hi", "--no-wait", "--token", "nope"}, wantErr: "gateway agent: unauthorized (HTTP 401)", wantMethods: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var waits atomic.Int32
			handlers := map[string]rpcHandler{"agent": agentAnswer, "chat.history": historyAnswer(t)}
			if tt.waits != nil {
				handlers["agent.wait"] = waitAnswers(t, &waits, tt.waits...)
			}
			g := newFakeGateway(t, handlers)
			stdout, stderr, err := runCLI(t, append([]string{"agent"}, tt.args...)...)
			checkErr(t, err, tt.wantErr)
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr = %q, want %q", stderr, tt.wantStderr)
			}
			switch {
			case tt.wantJSON != nil:
				var got map[string]any
				if err := json.Unmarshal([]byte(stdout), &got); err != nil {
					t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
				}
				for k, v := range tt.wantJSON {
					if got[k] != v {
						t.Errorf("%s = %v, want %v", k, got[k], v)
					}
				}
			case err == nil && stdout != tt.wantStdout:
				t.Errorf("stdout = %q, want %q", stdout, tt.wantStdout)
			}
			calls := g.received()
			if tt.wantMethods != nil {
				var methods []string
				for _, c := range calls {
					methods = append(methods, c.Method)
				}
				if strings.Join(methods, " ") != strings.Join(tt.wantMethods, " ") {
					t.Errorf("methods = %v, want %v", methods, tt.wantMethods)
				}
			}
			if len(calls) == 0 || calls[0].Method != "agent" {
				return
			}
			var sent map[string]any
			json.Unmarshal(calls[0].Params, &sent)
			for k, v := range tt.wantAgent {
				if sent[k] != v {
					t.Errorf("agent params %s = %v, want %v", k, sent[k], v)
				}
			}
			if key, _ := sent["idempotencyKey"].(string); tt.wantAgent["idempotencyKey"] == nil && !uuid.MatchString(key) {
				t.Errorf("idempotencyKey = %q, want a generated UUID", key)
			}
		})
	}
}

func TestLastAssistantText(t *testing.T) {
	msg := func(role, content string) json.RawMessage {
		return json.RawMessage(`{"role":"` + role + `","content":` + content + `,"timestamp":1}`)
	}
	tests := []struct {
		name     string
		messages []json.RawMessage
		want     string
	}{
		{name: "none", want: ""},
		{name: "no assistant", messages: []json.RawMessage{msg("user", `"hi"`)}, want: ""},
		{name: "plain string", messages: []json.RawMessage{msg("user", `"hi"`), msg("assistant", `"hello"`)}, want: "hello"},
		{name: "blocks", messages: []json.RawMessage{msg("assistant", `[{"type":"text","text":"a"},{"type":"toolCall","name":"x"},{"type":"text","text":"b"}]`)}, want: "a\nb"},
		{name: "last wins", messages: []json.RawMessage{msg("assistant", `"old"`), msg("user", `"q"`), msg("assistant", `[{"type":"text","text":"new"}]`), msg("toolResult", `"r"`)}, want: "new"},
		{name: "last has no text", messages: []json.RawMessage{msg("assistant", `"old"`), msg("assistant", `[{"type":"toolCall"}]`)}, want: ""},
		{name: "not a message stops", messages: []json.RawMessage{msg("assistant", `"old"`), json.RawMessage(`[1]`)}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lastAssistantText(tt.messages); got != tt.want {
				t.Errorf("lastAssistantText = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestAgentReplyFromRunEvents: the reply comes from the run's own events
// when the gateway serves them, not from the session's newest message;
// streamed deltas and blocks sent to a chat are not the reply, wherever
// they come.
func TestAgentReplyFromRunEvents(t *testing.T) {
	var waits atomic.Int32
	g := newFakeGateway(t, map[string]rpcHandler{
		"agent":        agentAnswer,
		"agent.wait":   waitAnswers(t, &waits, "ok"),
		"chat.history": historyAnswer(t),
		"agent.events": func(params json.RawMessage) (int, any) {
			return 200, rpcSuccess(map[string]any{"runId": "run-1", "nextSeq": 5, "events": []any{
				map[string]any{"seq": 1, "stream": "lifecycle", "data": map[string]any{"phase": "start"}},
				map[string]any{"seq": 2, "stream": "assistant", "data": map[string]any{"text": "this run's reply"}},
				map[string]any{"seq": 3, "stream": "assistant", "data": map[string]any{"delta": " (a draft)", "text": "this run's reply (a draft)"}},
				map[string]any{"seq": 4, "stream": "assistant", "data": map[string]any{"phase": "block", "call": 1, "index": 0}},
				map[string]any{"seq": 5, "stream": "lifecycle", "data": map[string]any{"phase": "end"}},
			}})
		},
	})
	stdout, _, err := runCLI(t, "agent", "--message", "hi", "--wait")
	if err != nil || stdout != "this run's reply\n" {
		t.Fatalf("stdout %q, %v", stdout, err)
	}
	for _, c := range g.received() {
		if c.Method == "chat.history" {
			t.Fatal("the reply was read from the history although the run's events had it")
		}
	}
}
