package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// testRows are two session rows as the gateway sends them, with fields the
// table does not show, which --json must keep.
func testRows(now time.Time) []map[string]any {
	return []map[string]any{
		{
			"key": "agent:main:main", "kind": "direct", "channel": "telegram", "displayName": "Ada",
			"updatedAt": now.Add(-5 * time.Minute).UnixMilli(), "sessionId": "s-1", "model": "openai/gpt-4o",
			"contextTokens": 200000, "totalTokens": 12345, "inputTokens": 10000, "outputTokens": 2345,
			"thinkingLevel": "low", "sendPolicy": "allow", "lastChannel": "telegram", "lastTo": "42",
			"transcriptPath": "s3://b/t", "label": "home",
		},
		{
			"key": "agent:main:telegram:group:-100", "kind": "group", "channel": "telegram",
			"updatedAt": now.Add(-3 * time.Hour).UnixMilli(), "sessionId": "s-2",
		},
	}
}

func TestSessions(t *testing.T) {
	now := time.Now()
	rows := testRows(now)
	list := func(json.RawMessage) (int, any) { return 200, rpcSuccess(map[string]any{"sessions": rows}) }
	tests := []struct {
		name       string
		args       []string
		handler    rpcHandler
		wantParams string
		wantLines  []string // each must appear, in order, in stdout
		wantJSON   bool
		wantErr    string
	}{
		{
			name:       "table",
			handler:    list,
			wantParams: `{}`,
			wantLines: []string{
				"KEY  ", "KIND", "CHANNEL", "UPDATED", "MODEL", "TOKENS", "LABEL",
				"agent:main:main", "direct", "telegram", "5m ago", "openai/gpt-4o", "12.3k/200k", "home",
				"agent:main:telegram:group:-100", "group", "telegram", "3h ago", "-/-", "-",
			},
		},
		{
			name:       "filters are sent",
			args:       []string{"--active", "60", "--limit", "5", "--agent", "work"},
			handler:    list,
			wantParams: `{"agentId":"work","limit":5,"activeMinutes":60}`,
			wantLines:  []string{"agent:main:main"},
		},
		{name: "json keeps the rows", args: []string{"--json"}, handler: list, wantParams: `{}`, wantJSON: true},
		{name: "none", handler: fixed(200, rpcSuccess(map[string]any{"sessions": []any{}})), wantLines: []string{"no sessions"}},
		{name: "negative limit", args: []string{"--limit", "-1"}, wantErr: "must not be negative"},
		{name: "argument", args: []string{"extra"}, wantErr: "takes no arguments"},
		{name: "server error", handler: fixed(500, rpcFailure("internal", "store down")), wantErr: "gateway sessions.list: internal (HTTP 500): store down"},
		{name: "wrong token", args: []string{"--token", "nope"}, wantErr: "check --token or ZERO_GATEWAY_TOKEN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newFakeGateway(t, map[string]rpcHandler{"sessions.list": tt.handler})
			stdout, _, err := runCLI(t, append([]string{"sessions"}, tt.args...)...)
			checkErr(t, err, tt.wantErr)
			if err != nil {
				return
			}
			if tt.wantParams != "" {
				checkCalls(t, g.received(), []rpcCall{{Method: "sessions.list", Params: json.RawMessage(tt.wantParams)}})
			}
			containsInOrder(t, stdout, tt.wantLines)
			if tt.wantJSON {
				var got map[string][]map[string]any
				if err := json.Unmarshal([]byte(stdout), &got); err != nil {
					t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
				}
				want, _ := json.Marshal(map[string]any{"sessions": rows})
				if !sameJSON(t, []byte(stdout), want) {
					t.Errorf("--json = %s, want the rows as sent: %s", stdout, want)
				}
			}
		})
	}
}

// containsInOrder fails t unless every part appears in s, in order.
func containsInOrder(t *testing.T, s string, parts []string) {
	t.Helper()
	rest := s
	for _, p := range parts {
		i := strings.Index(rest, p)
		if i < 0 {
			t.Fatalf("output lacks %q (in order) in:\n%s", p, s)
		}
		rest = rest[i+len(p):]
	}
}

func TestAgo(t *testing.T) {
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		at   time.Time
		want string
	}{
		{name: "seconds", at: now.Add(-30 * time.Second), want: "just now"},
		{name: "future", at: now.Add(time.Minute), want: "just now"},
		{name: "minutes", at: now.Add(-5 * time.Minute), want: "5m ago"},
		{name: "hours", at: now.Add(-26 * time.Hour), want: "26h ago"},
		{name: "days", at: now.Add(-72 * time.Hour), want: "3d ago"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ago(tt.at.UnixMilli(), now); got != tt.want {
				t.Errorf("ago = %q, want %q", got, tt.want)
			}
		})
	}
	if got := ago(0, now); got != "-" {
		t.Errorf("ago(0) = %q, want -", got)
	}
}

func TestTokens(t *testing.T) {
	tests := []struct {
		name           string
		total, context int64
		want           string
	}{
		{name: "unknown", want: "-/-"},
		{name: "small", total: 950, context: 8000, want: "950/8k"},
		{name: "thousands", total: 12345, context: 200000, want: "12.3k/200k"},
		{name: "millions", total: 1_260_000, context: 1_000_000, want: "1.3M/1M"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tokens(tt.total, tt.context); got != tt.want {
				t.Errorf("tokens = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	now := time.Now()
	rows := testRows(now)
	ok := fixed(200, rpcSuccess(map[string]any{"ok": true, "configVersion": "3", "sessions": rows}))
	tests := []struct {
		name      string
		args      []string
		handler   rpcHandler
		wantLines []string
		wantJSON  map[string]any // top-level fields checked
		wantErr   string
	}{
		{
			name:    "table",
			handler: ok,
			wantLines: []string{
				"gateway:", "http://127.0.0.1:", "reachable:       yes (ok)", "config version:  3",
				"sessions:        2 recent", "KEY", "agent:main:main", "5m ago", "agent:main:telegram:group:-100",
			},
		},
		{
			name: "dead-letter queues",
			handler: fixed(200, rpcSuccess(map[string]any{"ok": true, "configVersion": "3", "sessions": rows, "deadLetters": []map[string]any{
				{"name": "work", "visible": 2, "inFlight": 1}, {"name": "subagent", "visible": 0, "inFlight": 0, "error": "access denied"},
			}})),
			wantLines: []string{
				"config version:  3", "dead letters:    work: 2 waiting, 1 in flight", "dead letters:    subagent: unknown (access denied)",
				"sessions:        2 recent",
			},
		},
		{
			name:     "json",
			args:     []string{"--json"},
			handler:  ok,
			wantJSON: map[string]any{"reachable": true, "ok": true, "configVersion": "3"},
		},
		{
			name:      "unauthorized",
			args:      []string{"--token", "wrong"},
			handler:   ok,
			wantLines: []string{"reachable:       yes, but the call failed: gateway status: unauthorized (HTTP 401)"},
			wantErr:   "check --token or ZERO_GATEWAY_TOKEN",
		},
		{
			name:      "unreachable",
			args:      []string{"--url", "http://127.0.0.1:1"},
			wantLines: []string{"gateway:         http://127.0.0.1:1", "reachable:       no (", "refused"},
			wantErr:   "unreachable",
		},
		{
			name:     "unreachable json",
			args:     []string{"--url", "http://127.0.0.1:1", "--json"},
			wantJSON: map[string]any{"reachable": false, "ok": false, "url": "http://127.0.0.1:1"},
			wantErr:  "unreachable",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newFakeGateway(t, map[string]rpcHandler{"status": tt.handler})
			stdout, _, err := runCLI(t, append([]string{"status"}, tt.args...)...)
			checkErr(t, err, tt.wantErr)
			containsInOrder(t, stdout, tt.wantLines)
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
			if _, ok := got["sessions"].([]any); !ok {
				t.Errorf("sessions = %v, want a list", got["sessions"])
			}
			if tt.wantErr != "" && got["error"] == "" {
				t.Errorf("no error in %v", got)
			}
		})
	}
}
