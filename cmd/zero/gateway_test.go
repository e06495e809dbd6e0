package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/gateway"
)

// testGatewayToken is the token the fake gateway accepts.
const testGatewayToken = "test-gateway-token"

// rpcCall is one request the fake gateway received.
type rpcCall struct {
	Method string
	Params json.RawMessage
}

// rpcHandler answers one method: an HTTP status and the body to send (a
// string is sent as is, anything else as JSON).
type rpcHandler func(params json.RawMessage) (int, any)

// fakeGateway speaks the gateway protocol: POST /rpc, bearer token,
// {"method", "params"} in, {"ok", "result"|"error"} out.
type fakeGateway struct {
	t        *testing.T
	server   *httptest.Server
	handlers map[string]rpcHandler
	mu       sync.Mutex
	calls    []rpcCall
}

// newFakeGateway starts a fake gateway with handlers and points
// ZERO_GATEWAY_URL and ZERO_GATEWAY_TOKEN at it.
func newFakeGateway(t *testing.T, handlers map[string]rpcHandler) *fakeGateway {
	t.Helper()
	g := &fakeGateway{t: t, handlers: handlers}
	g.server = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.server.Close)
	t.Setenv(gatewayURLEnv, g.server.URL)
	t.Setenv(gatewayTokenEnv, testGatewayToken)
	return g
}

func (g *fakeGateway) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/rpc" {
		g.t.Errorf("fake gateway: %s %s, want POST /rpc", r.Method, r.URL.Path)
		writeRPC(w, http.StatusNotFound, rpcFailure("not_found", "no such route"))
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		g.t.Errorf("fake gateway: Content-Type %q", ct)
	}
	if r.Header.Get("Authorization") != "Bearer "+testGatewayToken {
		writeRPC(w, http.StatusUnauthorized, rpcFailure("unauthorized", "invalid gateway token"))
		return
	}
	var req struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		g.t.Errorf("fake gateway: body: %v", err)
		writeRPC(w, http.StatusBadRequest, rpcFailure("invalid", "bad body"))
		return
	}
	if len(req.Params) == 0 || req.Params[0] != '{' {
		g.t.Errorf("fake gateway: %s params %s, want an object", req.Method, req.Params)
	}
	g.mu.Lock()
	g.calls = append(g.calls, rpcCall{Method: req.Method, Params: req.Params})
	g.mu.Unlock()
	h, ok := g.handlers[req.Method]
	if !ok {
		writeRPC(w, http.StatusNotFound, rpcFailure("not_found", "unknown method "+req.Method))
		return
	}
	status, body := h(req.Params)
	writeRPC(w, status, body)
}

// received is the calls so far.
func (g *fakeGateway) received() []rpcCall {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]rpcCall(nil), g.calls...)
}

func writeRPC(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if s, ok := body.(string); ok {
		w.Write([]byte(s))
		return
	}
	json.NewEncoder(w).Encode(body)
}

// rpcSuccess is an ok answer with result.
func rpcSuccess(result any) map[string]any { return map[string]any{"ok": true, "result": result} }

// rpcFailure is an error answer.
func rpcFailure(code, message string) map[string]any {
	return map[string]any{"ok": false, "error": map[string]string{"code": code, "message": message}}
}

// fixed answers every call with status and body.
func fixed(status int, body any) rpcHandler {
	return func(json.RawMessage) (int, any) { return status, body }
}

// runCLI runs zero with args and returns its output.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

// checkErr fails t unless err matches want ("" means no error).
func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("err = %v, want none", err)
	case want != "" && err == nil:
		t.Fatalf("err = nil, want %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Fatalf("err = %q, want it to contain %q", err, want)
	}
}

func TestGatewayFlagsClient(t *testing.T) {
	tests := []struct {
		name      string
		flags     gatewayFlags
		env       map[string]string
		wantURL   string
		wantToken string
		wantErr   string
	}{
		{name: "defaults and env token", env: map[string]string{gatewayTokenEnv: "e"}, wantURL: defaultGatewayURL, wantToken: "e"},
		{name: "env URL", env: map[string]string{gatewayURLEnv: "https://gw.example/", gatewayTokenEnv: "e"}, wantURL: "https://gw.example", wantToken: "e"},
		{name: "flags win", flags: gatewayFlags{url: "http://flag:1", token: "f"}, env: map[string]string{gatewayURLEnv: "http://env:2", gatewayTokenEnv: "e"}, wantURL: "http://flag:1", wantToken: "f"},
		{name: "endpoint given", flags: gatewayFlags{url: "https://gw.example/prod/rpc/", token: "f"}, wantURL: "https://gw.example/prod", wantToken: "f"},
		{name: "missing token", env: map[string]string{gatewayURLEnv: "http://env:2"}, wantErr: "pass --token or set ZERO_GATEWAY_TOKEN"},
		{name: "bad URL", flags: gatewayFlags{url: "localhost:3000", token: "f"}, wantErr: `gateway URL "localhost:3000"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			c, err := tt.flags.client(getenv)
			checkErr(t, err, tt.wantErr)
			if err != nil {
				return
			}
			if _, token := tt.flags.resolve(getenv); c.URL() != tt.wantURL || token != tt.wantToken {
				t.Errorf("client = %q %q, want %q %q", c.URL(), token, tt.wantURL, tt.wantToken)
			}
		})
	}
}

func TestGatewayCall(t *testing.T) {
	statusResult := map[string]any{"ok": true, "configVersion": "v7", "sessions": []any{}}
	tests := []struct {
		name       string
		args       []string
		noToken    bool
		handlers   map[string]rpcHandler
		wantCalls  []rpcCall // nil: not checked; empty: no request at all
		wantStdout string    // exact
		wantErr    string
	}{
		{
			name:       "pretty result",
			args:       []string{"status"},
			handlers:   map[string]rpcHandler{"status": fixed(200, rpcSuccess(statusResult))},
			wantCalls:  []rpcCall{{Method: "status", Params: json.RawMessage(`{}`)}},
			wantStdout: "{\n  \"configVersion\": \"v7\",\n  \"ok\": true,\n  \"sessions\": []\n}\n",
		},
		{
			name:       "json is compact",
			args:       []string{"status", "--json"},
			handlers:   map[string]rpcHandler{"status": fixed(200, rpcSuccess(statusResult))},
			wantStdout: `{"configVersion":"v7","ok":true,"sessions":[]}` + "\n",
		},
		{
			name:       "params are sent, flags before the method",
			args:       []string{"--params", `{"sessionKey": "agent:main:main", "limit": 2}`, "chat.history"},
			handlers:   map[string]rpcHandler{"chat.history": fixed(200, rpcSuccess(map[string]any{"messages": []any{}}))},
			wantCalls:  []rpcCall{{Method: "chat.history", Params: json.RawMessage(`{"sessionKey":"agent:main:main","limit":2}`)}},
			wantStdout: "{\n  \"messages\": []\n}\n",
		},
		{
			name:       "scalar result",
			args:       []string{"ping"},
			handlers:   map[string]rpcHandler{"ping": fixed(200, `{"ok":true,"result":"pong"}`)},
			wantStdout: "\"pong\"\n",
		},
		{name: "invalid params", args: []string{"status", "--params", `{"a":`}, wantCalls: []rpcCall{}, wantErr: "--params must be a JSON object"},
		{name: "params not an object", args: []string{"status", "--params", `[1]`}, wantCalls: []rpcCall{}, wantErr: "--params must be a JSON object"},
		{name: "params null", args: []string{"status", "--params", `null`}, wantCalls: []rpcCall{}, wantErr: "--params must be a JSON object"},
		{name: "no method", args: []string{}, wantCalls: []rpcCall{}, wantErr: "takes one METHOD"},
		{name: "missing token", args: []string{"status"}, noToken: true, wantCalls: []rpcCall{}, wantErr: "ZERO_GATEWAY_TOKEN"},
		{name: "wrong token", args: []string{"status", "--token", "wrong"}, wantErr: "gateway status: unauthorized (HTTP 401): invalid gateway token; check --token or ZERO_GATEWAY_TOKEN"},
		{name: "unknown method", args: []string{"nope"}, wantErr: "gateway nope: not_found (HTTP 404): unknown method nope"},
		{name: "bad params", args: []string{"sessions.list"}, handlers: map[string]rpcHandler{"sessions.list": fixed(400, rpcFailure("invalid_params", "limit must be positive"))}, wantErr: "invalid_params (HTTP 400): limit must be positive"},
		{name: "conflict", args: []string{"x"}, handlers: map[string]rpcHandler{"x": fixed(409, rpcFailure("conflict", "run exists"))}, wantErr: "conflict (HTTP 409): run exists"},
		{name: "rate limited", args: []string{"x"}, handlers: map[string]rpcHandler{"x": fixed(429, rpcFailure("rate_limited", "slow down"))}, wantErr: "rate_limited (HTTP 429): slow down; slow down and retry"},
		{name: "internal", args: []string{"x"}, handlers: map[string]rpcHandler{"x": fixed(500, rpcFailure("internal", "boom"))}, wantErr: "gateway x: internal (HTTP 500): boom"},
		{name: "unavailable", args: []string{"x"}, handlers: map[string]rpcHandler{"x": fixed(503, rpcFailure("unavailable", "table throttled"))}, wantErr: "unavailable (HTTP 503): table throttled; the gateway is unavailable"},
		{name: "not the protocol", args: []string{"x"}, handlers: map[string]rpcHandler{"x": fixed(502, "<html>Bad Gateway</html>")}, wantErr: "gateway x: bad gateway (HTTP 502): <html>Bad Gateway</html>"},
		{name: "ok false on 200", args: []string{"x"}, handlers: map[string]rpcHandler{"x": fixed(200, rpcFailure("internal", "odd"))}, wantErr: "internal (HTTP 200): odd"},
		{name: "unreachable", args: []string{"status", "--url", "http://127.0.0.1:1"}, wantErr: "gateway http://127.0.0.1:1 is unreachable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newFakeGateway(t, tt.handlers)
			if tt.noToken {
				t.Setenv(gatewayTokenEnv, "")
			}
			stdout, _, err := runCLI(t, append([]string{"gateway", "call"}, tt.args...)...)
			checkErr(t, err, tt.wantErr)
			if err == nil && stdout != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", stdout, tt.wantStdout)
			}
			if err != nil && stdout != "" {
				t.Errorf("stdout = %q on error, want nothing", stdout)
			}
			if tt.wantCalls != nil {
				checkCalls(t, g.received(), tt.wantCalls)
			}
		})
	}
}

// checkCalls compares calls, params as JSON values.
func checkCalls(t *testing.T, got, want []rpcCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("calls = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Method != want[i].Method || !sameJSON(t, got[i].Params, want[i].Params) {
			t.Errorf("call %d = %s %s, want %s %s", i, got[i].Method, got[i].Params, want[i].Method, want[i].Params)
		}
	}
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func TestGatewayUsage(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantErr    string
		wantStdout string
		wantStderr string
	}{
		{name: "no subcommand", args: []string{"gateway"}, wantErr: "flag: help requested", wantStderr: "usage: zero gateway call"},
		{name: "help", args: []string{"gateway", "help"}, wantStdout: "usage: zero gateway call"},
		{name: "unknown", args: []string{"gateway", "nope"}, wantErr: `unknown gateway command "nope"`},
		{name: "call -h", args: []string{"gateway", "call", "-h"}, wantErr: "flag: help requested", wantStderr: "-params"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := runCLI(t, tt.args...)
			checkErr(t, err, tt.wantErr)
			if !strings.Contains(stdout, tt.wantStdout) || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stdout %q stderr %q, want %q and %q", stdout, stderr, tt.wantStdout, tt.wantStderr)
			}
		})
	}
}

// TestRequestBody: a call's body is a gateway.Request whose params are
// the gateway's params types with only what the CLI sets.
func TestRequestBody(t *testing.T) {
	ms := int64(1500)
	limit := 20
	tests := []struct {
		name   string
		method string
		params any
		want   string
	}{
		{name: "no params send {}", method: "status", want: `{"method":"status","params":{}}`},
		{name: "raw params as given", method: "x", params: json.RawMessage(`{"a": [1, 2]}`), want: `{"method":"x","params":{"a":[1,2]}}`},
		{name: "agent", method: "agent", params: gateway.AgentParams{Message: "hi", IdempotencyKey: "k"},
			want: `{"method":"agent","params":{"message":"hi","idempotencyKey":"k"}}`},
		{name: "agent.wait", method: "agent.wait", params: gateway.WaitParams{RunID: "run-1", TimeoutMs: &ms},
			want: `{"method":"agent.wait","params":{"runId":"run-1","timeoutMs":1500}}`},
		{name: "agent.events from the start", method: "agent.events", params: gateway.EventsParams{RunID: "run-1"},
			want: `{"method":"agent.events","params":{"runId":"run-1"}}`},
		{name: "chat.history", method: "chat.history", params: gateway.HistoryParams{SessionKey: "main", Limit: &limit},
			want: `{"method":"chat.history","params":{"sessionKey":"main","limit":20}}`},
		{name: "sessions.list without filters", method: "sessions.list", params: listParams(" ", 0, 0),
			want: `{"method":"sessions.list","params":{}}`},
		{name: "sessions.list with filters", method: "sessions.list", params: listParams("work", 5, 60),
			want: `{"method":"sessions.list","params":{"agentId":"work","limit":5,"activeMinutes":60}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gateway.RequestBody(tt.method, tt.params)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}
