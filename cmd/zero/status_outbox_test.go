package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestStatusOutbox: zero status shows the outbox counts and lists the
// dead items; a gateway without an outbox (or an older one) still
// answers the status, saying why the outbox is unknown.
func TestStatusOutbox(t *testing.T) {
	now := time.Now()
	status := fixed(200, rpcSuccess(map[string]any{"ok": true, "configVersion": "3", "sessions": []any{}}))
	dead := map[string]any{
		"counts": map[string]any{"pending": 1, "sent": 12, "dead": 2},
		"items": []any{
			map[string]any{"id": "subagent:f1", "kind": "subagent", "sessionKey": "agent:main:subagent:x", "channel": "telegram", "to": "42",
				"text": "result", "state": "dead", "sent": 0, "attempts": 5, "lastError": "unavailable: telegram is down\nagain",
				"createdAt": now.Add(-3 * time.Hour).UnixMilli(), "updatedAt": now.UnixMilli()},
			map[string]any{"id": "a2a:f2", "kind": "a2a", "sessionKey": "agent:main:main", "channel": "discord", "to": "123",
				"text": "hi", "state": "dead", "sent": 1, "attempts": 1, "lastError": "not_found: unknown channel",
				"createdAt": now.Add(-10 * time.Minute).UnixMilli(), "updatedAt": now.UnixMilli()},
		},
	}
	tests := []struct {
		name      string
		args      []string
		outbox    rpcHandler // nil: the gateway does not know outbox.list
		wantLines []string
		wantNot   string
		wantJSON  map[string]any // top-level fields checked
	}{
		{
			name:   "counts and dead items",
			outbox: fixed(200, rpcSuccess(dead)),
			wantLines: []string{
				"outbox:          1 pending, 12 sent, 2 dead", "sessions:        none",
				"dead outbox items (never delivered; 2 of 2):", "ID", "KIND", "SESSION", "CHANNEL", "ATTEMPTS", "AGE", "LAST ERROR",
				"subagent:f1", "subagent", "agent:main:subagent:x", "telegram:42", "5", "3h ago", "unavailable: telegram is down again",
				"a2a:f2", "a2a", "agent:main:main", "discord:123", "1", "10m ago", "not_found: unknown channel",
			},
		},
		{
			name:      "nothing dead",
			outbox:    fixed(200, rpcSuccess(map[string]any{"counts": map[string]any{"pending": 0, "sent": 3, "dead": 0}, "items": []any{}})),
			wantLines: []string{"outbox:          0 pending, 3 sent, 0 dead", "sessions:        none"},
			wantNot:   "dead outbox items",
		},
		{
			name:      "gateway without an outbox",
			outbox:    fixed(501, rpcFailure("internal", "the outbox is not configured on this gateway")),
			wantLines: []string{"outbox:          unknown (not configured on this gateway)", "sessions:        none"},
		},
		{
			name:      "older gateway",
			wantLines: []string{"outbox:          unknown (gateway outbox.list: not_found (HTTP 404)", "sessions:        none"},
		},
		{
			name:     "json",
			args:     []string{"--json"},
			outbox:   fixed(200, rpcSuccess(dead)),
			wantJSON: map[string]any{"reachable": true, "ok": true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			handlers := map[string]rpcHandler{"status": status}
			if tt.outbox != nil {
				handlers["outbox.list"] = tt.outbox
			}
			g := newFakeGateway(t, handlers)
			stdout, _, err := runCLI(t, append([]string{"status"}, tt.args...)...)
			if err != nil {
				t.Fatalf("zero status: %v", err)
			}
			containsInOrder(t, stdout, tt.wantLines)
			if tt.wantNot != "" && strings.Contains(stdout, tt.wantNot) {
				t.Errorf("stdout has %q:\n%s", tt.wantNot, stdout)
			}
			if calls := g.received(); len(calls) != 2 || calls[1].Method != "outbox.list" || string(calls[1].Params) != `{"state":"dead","limit":20}` {
				t.Errorf("calls %+v; want status, then outbox.list of 20 dead items", calls)
			}
			if tt.wantJSON == nil {
				return
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
			}
			for k, v := range tt.wantJSON {
				if got[k] != v {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
			outbox, _ := got["outbox"].(map[string]any)
			if items, _ := outbox["items"].([]any); len(items) != 2 {
				t.Errorf("outbox = %v; want the 2 dead items", got["outbox"])
			}
		})
	}
}
