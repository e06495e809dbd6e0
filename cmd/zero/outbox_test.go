package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestOutboxCommands runs zero outbox list and retry against a fake
// gateway: the params sent, the output, and the gateway's errors.
func TestOutboxCommands(t *testing.T) {
	now := time.Now()
	dead := map[string]any{"id": "subagent:f1", "kind": "subagent", "sessionKey": "agent:main:subagent:x", "channel": "telegram",
		"to": "42", "text": "result", "state": "dead", "sent": 1, "attempts": 5, "retries": 2, "lastError": "unavailable: telegram is down",
		"createdAt": now.Add(-3 * time.Hour).UnixMilli(), "updatedAt": now.UnixMilli()}
	list := fixed(200, rpcSuccess(map[string]any{"counts": map[string]any{"pending": 1, "sent": 12, "dead": 1}, "items": []any{dead}}))
	revived := map[string]any{}
	for k, v := range dead {
		revived[k] = v
	}
	revived["state"], revived["retries"] = "pending", 3
	retry := fixed(200, rpcSuccess(map[string]any{"item": revived, "messageId": "deliver:subagent:f1:retry:3"}))
	tests := []struct {
		name       string
		args       []string
		handlers   map[string]rpcHandler
		wantParams string // the params of the one call made; "" no call
		wantLines  []string
		wantErr    string
	}{
		{name: "list", args: []string{"list"}, handlers: map[string]rpcHandler{"outbox.list": list}, wantParams: `{}`,
			wantLines: []string{"1 pending, 12 sent, 1 dead", "ID", "STATE", "RETRIES", "LAST ERROR",
				"subagent:f1", "dead", "subagent", "agent:main:subagent:x", "telegram:42", "5", "2", "3h ago", "unavailable: telegram is down"}},
		{name: "list dead, limited, json", args: []string{"list", "--state", "dead", "--limit", "3", "--json"},
			handlers: map[string]rpcHandler{"outbox.list": list}, wantParams: `{"state":"dead","limit":3}`,
			wantLines: []string{`"counts"`, `"dead": 1`, `"id": "subagent:f1"`, `"retries": 2`}},
		{name: "list: bad state", args: []string{"list", "--state", "lost"}, wantErr: `--state must be pending, sent or dead, got "lost"`},
		{name: "list: no outbox", args: []string{"list"},
			handlers:   map[string]rpcHandler{"outbox.list": fixed(501, rpcFailure("internal", "the outbox is not configured on this gateway"))},
			wantParams: `{}`, wantErr: "the outbox is not configured on this gateway"},
		{name: "retry", args: []string{"retry", "subagent:f1"}, handlers: map[string]rpcHandler{"outbox.retry": retry},
			wantParams: `{"id":"subagent:f1"}`,
			wantLines:  []string{"outbox item subagent:f1 re-queued (deliver:subagent:f1:retry:3, retry 3): delivery resumes at message 2"}},
		{name: "retry json", args: []string{"retry", "--json", "subagent:f1"}, handlers: map[string]rpcHandler{"outbox.retry": retry},
			wantParams: `{"id":"subagent:f1"}`, wantLines: []string{`"state": "pending"`, `"messageId": "deliver:subagent:f1:retry:3"`}},
		{name: "retry a sent item", args: []string{"retry", "a2a:s1"},
			handlers:   map[string]rpcHandler{"outbox.retry": fixed(409, rpcFailure("conflict", `outbox item "a2a:s1" is sent; only a dead item can be retried`))},
			wantParams: `{"id":"a2a:s1"}`, wantErr: "only a dead item can be retried"},
		{name: "retry without an id", args: []string{"retry"}, wantErr: "zero outbox retry takes one item ID"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newFakeGateway(t, tc.handlers)
			stdout, _, err := runCLI(t, append([]string{"outbox"}, tc.args...)...)
			switch {
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v; want one with %q", err, tc.wantErr)
			case tc.wantErr == "" && err != nil:
				t.Fatalf("zero outbox %v: %v", tc.args, err)
			}
			containsInOrder(t, stdout, tc.wantLines)
			calls := g.received()
			if tc.wantParams == "" {
				if len(calls) != 0 {
					t.Fatalf("calls %+v; want none", calls)
				}
				return
			}
			if len(calls) != 1 {
				t.Fatalf("calls %+v; want one", calls)
			}
			var got, want any
			json.Unmarshal(calls[0].Params, &got)
			json.Unmarshal([]byte(tc.wantParams), &want)
			if gb, _ := json.Marshal(got); string(gb) != mustJSON(want) {
				t.Errorf("params %s; want %s", calls[0].Params, tc.wantParams)
			}
		})
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
