package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
)

// sentRequest is what a fake endpoint received.
type sentRequest struct {
	HTTPMethod, Path, Query, Auth, ContentType string
	Body                                       Request
}

// fakeEndpoint answers every request with status and body (after delay)
// and records what it received.
type fakeEndpoint struct {
	status int
	body   string
	delay  time.Duration

	mu   sync.Mutex
	sent []sentRequest
}

func (f *fakeEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	var req Request
	json.Unmarshal(data, &req)
	f.mu.Lock()
	f.sent = append(f.sent, sentRequest{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), req})
	f.mu.Unlock()
	time.Sleep(f.delay)
	w.WriteHeader(f.status)
	io.WriteString(w, f.body)
}

func (f *fakeEndpoint) requests() []sentRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sent)
}

// serve starts h and returns a client of it with o.
func serve(t *testing.T, h http.Handler, base string, o ClientOptions) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL+base, testToken, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewClient(t *testing.T) {
	tests := []struct {
		name    string
		url     string
		token   string
		wantURL string
		wantErr string
	}{
		{name: "host and port", url: "http://127.0.0.1:3000", token: "t", wantURL: "http://127.0.0.1:3000"},
		{name: "trailing slash", url: "https://gw.example/", token: "t", wantURL: "https://gw.example"},
		{name: "endpoint given", url: "https://gw.example/prod/rpc/", token: "t", wantURL: "https://gw.example/prod"},
		{name: "no scheme", url: "localhost:3000", token: "t", wantErr: `gateway URL "localhost:3000": want http(s)://host[:port]`},
		{name: "other scheme", url: "ftp://gw.example", token: "t", wantErr: `gateway URL "ftp://gw.example"`},
		{name: "no host", url: "http:///rpc", token: "t", wantErr: `gateway URL "http:///rpc"`},
		{name: "a query is refused", url: "https://gw.example/?token=t", token: "t", wantErr: "want no query or fragment"},
		{name: "blank token", url: "http://127.0.0.1:3000", token: " \n", wantErr: "no token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewClient(tt.url, tt.token, ClientOptions{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.URL(); got != tt.wantURL {
				t.Errorf("URL() = %q, want %q", got, tt.wantURL)
			}
		})
	}
}

// TestClientCall: the request Call sends (POST <base>/rpc, the token in
// the Authorization header only) and how it reads each kind of answer.
func TestClientCall(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		body      string
		want      string    // the result, when the call succeeds
		wantRPC   *RPCError // the error, when it is an RPCError
		wantErr   string    // the error's message
		wantOther bool      // the error is neither RPCError nor TransportError
	}{
		{name: "result", status: 200, body: `{"ok":true,"result":{"a":1}}`, want: `{"a":1}`},
		{name: "no result reads null", status: 200, body: `{"ok":true}`, want: `null`},
		{name: "error answer", status: 400, body: `{"error":{"code":"invalid","message":"params.limit: must be >= 1, got 0"},"ok":false}`,
			wantRPC: &RPCError{Method: "x.y", Status: 400, Code: fault.Invalid, Message: "params.limit: must be >= 1, got 0"},
			wantErr: "gateway x.y: invalid (HTTP 400): params.limit: must be >= 1, got 0"},
		{name: "unauthorized carries the auth hint", status: 401, body: `{"error":{"code":"unauthorized","message":"missing or wrong bearer token"},"ok":false}`,
			wantRPC: &RPCError{Method: "x.y", Status: 401, Code: fault.Unauthorized, Message: "missing or wrong bearer token", Hint: "check the token"},
			wantErr: "gateway x.y: unauthorized (HTTP 401): missing or wrong bearer token; check the token"},
		{name: "rate limited", status: 429, body: `{"error":{"code":"rate_limited","message":"slow down"},"ok":false}`,
			wantRPC: &RPCError{Method: "x.y", Status: 429, Code: fault.RateLimited, Message: "slow down", Hint: "slow down and retry"}},
		{name: "unavailable", status: 503, body: `{"error":{"code":"unavailable","message":"table throttled"},"ok":false}`,
			wantRPC: &RPCError{Method: "x.y", Status: 503, Code: fault.Unavailable, Message: "table throttled", Hint: "the gateway is unavailable, retry later"}},
		{name: "not implemented", status: 501, body: `{"error":{"code":"internal","message":"cron is not configured on this gateway"},"ok":false}`,
			wantRPC: &RPCError{Method: "x.y", Status: 501, Code: fault.Internal, Message: "cron is not configured on this gateway"}},
		{name: "ok false on 200", status: 200, body: `{"error":{"code":"internal","message":"odd"},"ok":false}`,
			wantRPC: &RPCError{Method: "x.y", Status: 200, Code: fault.Internal, Message: "odd"}},
		{name: "error status without the protocol", status: 502, body: "<html>Bad Gateway</html>\n",
			wantRPC: &RPCError{Method: "x.y", Status: 502, Message: "<html>Bad Gateway</html>"},
			wantErr: "gateway x.y: bad gateway (HTTP 502): <html>Bad Gateway</html>"},
		{name: "200 without the protocol", status: 200, body: "hello", wantOther: true,
			wantErr: `gateway x.y: HTTP 200 with a body that is not the gateway protocol: "hello"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep := &fakeEndpoint{status: tt.status, body: tt.body}
			c := serve(t, ep, "/rpc/", ClientOptions{AuthHint: "check the token"})
			got, err := c.Call(context.Background(), "x.y", nil)
			checkCallError(t, err, tt.wantRPC, tt.wantErr, tt.wantOther)
			if err == nil && string(got) != tt.want {
				t.Errorf("result = %s, want %s", got, tt.want)
			}
			want := []sentRequest{{HTTPMethod: "POST", Path: "/rpc", Auth: "Bearer " + testToken, ContentType: "application/json",
				Body: Request{Method: "x.y", Params: json.RawMessage(`{}`)}}}
			if diff := cmp.Diff(want, ep.requests()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

// checkCallError checks err against the expected RPCError, message and
// class.
func checkCallError(t *testing.T, err error, wantRPC *RPCError, wantErr string, wantOther bool) {
	t.Helper()
	if wantRPC == nil && wantErr == "" {
		if err != nil {
			t.Fatalf("err = %v, want none", err)
		}
		return
	}
	if err == nil {
		t.Fatal("err = nil, want one")
	}
	if wantErr != "" && err.Error() != wantErr {
		t.Errorf("err = %q, want %q", err, wantErr)
	}
	rpcErr, isRPC := errors.AsType[*RPCError](err)
	_, isTransport := errors.AsType[*TransportError](err)
	if wantOther && (isRPC || isTransport) {
		t.Errorf("err is %T, want neither an RPCError nor a TransportError", err)
	}
	if wantRPC != nil {
		if diff := cmp.Diff(wantRPC, rpcErr); diff != "" {
			t.Errorf("RPCError (-want +got):\n%s", diff)
		}
	}
}

// TestClientTransportError: a call without an answer is a TransportError;
// agent.wait's bound is its wait plus WaitSlack, not the client's
// Timeout.
func TestClientTransportError(t *testing.T) {
	slow := &fakeEndpoint{status: 200, body: `{"ok":true,"result":{"runId":"r","status":"timeout"}}`, delay: 300 * time.Millisecond}
	zero := int64(0)
	tests := []struct {
		name    string
		call    func(ctx context.Context, c *Client) error
		h       http.Handler // nil: no server listens
		wantIs  error        // the TransportError wraps it
		wantNil bool
	}{
		{name: "unreachable", call: func(ctx context.Context, c *Client) error { _, err := c.Call(ctx, MethodStatus, nil); return err }},
		{name: "the bound passed", h: slow, wantIs: context.DeadlineExceeded,
			call: func(ctx context.Context, c *Client) error { _, err := c.Status(ctx); return err }},
		{name: "agent.wait has its own bound", h: slow, wantNil: true,
			call: func(ctx context.Context, c *Client) error {
				_, err := c.AgentWait(ctx, WaitParams{RunID: "r", TimeoutMs: &zero})
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := unreachableClient(t)
			if tt.h != nil {
				c = serve(t, tt.h, "", ClientOptions{Timeout: 50 * time.Millisecond})
			}
			err := tt.call(context.Background(), c)
			if tt.wantNil {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			te, ok := errors.AsType[*TransportError](err)
			if !ok {
				t.Fatalf("err = %v (%T), want a *TransportError", err, err)
			}
			if te.URL != c.URL() || !strings.HasPrefix(err.Error(), "gateway "+c.URL()+" is unreachable: ") {
				t.Errorf("err = %q (URL %q), want it to name %s", err, te.URL, c.URL())
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("err = %v, want it to wrap %v", err, tt.wantIs)
			}
		})
	}
}

// unreachableClient is a client of a closed server.
func unreachableClient(t *testing.T) *Client {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	c, err := NewClient(srv.URL, testToken, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// typedCall calls one of Client's typed methods with params decoded
// from a wire case's JSON.
type typedCall func(ctx context.Context, c *Client, params json.RawMessage) (any, error)

func typed[P, R any](method func(*Client, context.Context, P) (R, error)) typedCall {
	return func(ctx context.Context, c *Client, params json.RawMessage) (any, error) {
		var p P
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		return method(c, ctx, p)
	}
}

// TestClientTyped: each typed method sends its method (by the constant)
// with the params it is given, and decodes the gateway's recorded answer
// (testdata/wire) into its result type without losing a field.
func TestClientTyped(t *testing.T) {
	tests := []struct {
		name string // a wire case: its params are sent, its golden answer served
		call typedCall
	}{
		{"status", func(ctx context.Context, c *Client, _ json.RawMessage) (any, error) { return c.Status(ctx) }},
		{"sessions.list", typed((*Client).SessionsList)},
		{"chat.history", typed((*Client).ChatHistory)},
		{"agent", typed((*Client).Agent)},
		{"agent.wait", typed((*Client).AgentWait)},
		{"agent.events", typed((*Client).AgentEvents)},
		{"outbox.list", typed((*Client).OutboxList)},
		{"outbox.retry", typed((*Client).OutboxRetry)},
		{"cron.list", typed((*Client).CronList)},
		{"cron.add", typed((*Client).CronAdd)},
		{"cron.remove", typed((*Client).CronRemove)},
		{"cron.run", typed((*Client).CronRun)},
		{"cron.runs", typed((*Client).CronRuns)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wc := findWireCase(t, tt.name)
			golden, err := os.ReadFile(goldenPath(wc.name))
			if err != nil {
				t.Fatal(err)
			}
			ep := &fakeEndpoint{status: http.StatusOK, body: string(golden)}
			got, err := tt.call(context.Background(), serve(t, ep, "", ClientOptions{}), json.RawMessage(wc.params))
			if err != nil {
				t.Fatal(err)
			}
			sent := ep.requests()
			if len(sent) != 1 || sent[0].Body.Method != wc.method || !sameJSONValue(t, sent[0].Body.Params, []byte(wc.params)) {
				t.Fatalf("sent %+v, want one %s with %s", sent, wc.method, wc.params)
			}
			var answer Response
			if err := json.Unmarshal(golden, &answer); err != nil {
				t.Fatal(err)
			}
			encoded, err := encodeJSON(got)
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSONValue(t, encoded, answer.Result) {
				t.Errorf("%T encodes as\n%s\nwant the answer\n%s", got, encoded, answer.Result)
			}
		})
	}
}

// findWireCase is the recorded call named name.
func findWireCase(t *testing.T, name string) wireCase {
	t.Helper()
	for _, cases := range [][]wireCase{wireCases, cronWireCases, outboxWireCases} {
		if i := slices.IndexFunc(cases, func(wc wireCase) bool { return wc.name == name }); i >= 0 {
			return cases[i]
		}
	}
	t.Fatalf("no wire case %q", name)
	return wireCase{}
}

// sameJSONValue reports whether a and b are the same JSON value ({} and
// an absent value alike when a is empty).
func sameJSONValue(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return cmp.Equal(x, y)
}

// TestClientAgainstGateway: the client and the gateway's handler agree,
// answers and errors.
func TestClientAgainstGateway(t *testing.T) {
	tests := []struct {
		name    string
		token   string
		call    func(ctx context.Context, c *Client) error
		wantRPC *RPCError
	}{
		{name: "status", call: func(ctx context.Context, c *Client) error {
			st, err := c.Status(ctx)
			if err == nil && !st.OK {
				err = errors.New("status is not ok")
			}
			return err
		}},
		{name: "wrong token", token: "nope", call: func(ctx context.Context, c *Client) error { _, err := c.Status(ctx); return err },
			wantRPC: &RPCError{Method: MethodStatus, Status: 401, Code: fault.Unauthorized, Message: "missing or wrong bearer token", Hint: "use the right token"}},
		{name: "no cron is 501", call: func(ctx context.Context, c *Client) error { _, err := c.CronList(ctx, CronListParams{}); return err },
			wantRPC: &RPCError{Method: MethodCronList, Status: 501, Code: fault.Internal, Message: "cron is not configured on this gateway"}},
		{name: "bad params", call: func(ctx context.Context, c *Client) error {
			_, err := c.AgentWait(ctx, WaitParams{})
			return err
		}, wantRPC: &RPCError{Method: MethodAgentWait, Status: 400, Code: fault.Invalid, Message: "params.runId: required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(newFixture(t, "").handler)
			t.Cleanup(srv.Close)
			token := tt.token
			if token == "" {
				token = testToken
			}
			c, err := NewClient(srv.URL, token, ClientOptions{AuthHint: "use the right token"})
			if err != nil {
				t.Fatal(err)
			}
			checkCallError(t, tt.call(context.Background(), c), tt.wantRPC, "", false)
		})
	}
}
