package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
)

// Bounds of a Client's calls.
const (
	// DefaultCallTimeout bounds one call but agent.wait (ClientOptions).
	DefaultCallTimeout = 30 * time.Second
	// WaitSlack is how much longer than the wait it asks for an
	// agent.wait may take before the client gives up on it.
	WaitSlack = 15 * time.Second
	// MaxResponseBytes bounds the body of one answer the client reads.
	MaxResponseBytes = 32 << 20
)

// Client calls a gateway's API: POST <base>/rpc with a Request and the
// token as `Authorization: Bearer <token>` (never in the URL); the answer
// is a Response. Its typed methods take and return the wire types (wire.go)
// and name their method by its constant; Call is the one generic call
// under them. Build it with NewClient; it is safe for concurrent use.
//
// Every call's error is one of: *RPCError (the gateway answered with an
// error, or an HTTP error status), *TransportError (no answer came: the
// gateway is unreachable, the connection broke, the call's bound
// passed), or a plain error for params that do not encode, a 2xx body
// that is not the protocol or a result that does not decode.
type Client struct {
	base     string // without a trailing slash and without /rpc
	token    string
	http     *http.Client
	timeout  time.Duration
	authHint string
}

// ClientOptions tune a Client; the zero value is the defaults.
type ClientOptions struct {
	// HTTP sends the requests; nil: a new http.Client (each call has its
	// own bound, so it needs no timeout of its own).
	HTTP *http.Client
	// Timeout bounds one call but agent.wait, whose bound is the wait it
	// asks for plus WaitSlack; 0: DefaultCallTimeout.
	Timeout time.Duration
	// AuthHint is the Hint of a 401 RPCError: what the caller can do about
	// its token (cmd/zero: "check --token or ZERO_GATEWAY_TOKEN").
	AuthHint string
}

// NewClient returns a client of the gateway at baseURL,
// http(s)://host[:port][/path] with or without the trailing /rpc, that
// sends token (surrounding blanks dropped). A malformed URL or an empty
// token is an error, before any request is made.
func NewClient(baseURL, token string, o ClientOptions) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("gateway URL %q: want http(s)://host[:port]", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("gateway URL %q: want no query or fragment", baseURL)
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return nil, errors.New("gateway client: no token")
	}
	c := &Client{
		base:     strings.TrimSuffix(strings.TrimRight(baseURL, "/"), "/rpc"),
		token:    token,
		http:     o.HTTP,
		timeout:  o.Timeout,
		authHint: o.AuthHint,
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.timeout <= 0 {
		c.timeout = DefaultCallTimeout
	}
	return c, nil
}

// URL is the gateway's base URL: the endpoint is URL()+"/rpc".
func (c *Client) URL() string { return c.base }

// RPCError is an error answer of the gateway: its HTTP status and the
// answer's code and message. An HTTP error status whose body is not the
// protocol (a proxy's 502 page) is one too, with no Code and the start of
// the body as Message.
type RPCError struct {
	Method  string
	Status  int        // HTTP status
	Code    fault.Code // the answer's error code; "" when it had none
	Message string
	// Hint is what the caller can do about it, added to the message:
	// ClientOptions.AuthHint on 401, a retry advice on 429 and 503.
	Hint string
}

func (e *RPCError) Error() string {
	var b strings.Builder
	code := string(e.Code)
	if code == "" {
		code = strings.ToLower(http.StatusText(e.Status))
	}
	fmt.Fprintf(&b, "gateway %s: %s (HTTP %d)", e.Method, code, e.Status)
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Hint != "" {
		b.WriteString("; " + e.Hint)
	}
	return b.String()
}

// TransportError is a call that got no answer from the gateway at URL.
type TransportError struct {
	URL    string // the gateway's base URL
	Method string
	Err    error
}

func (e *TransportError) Error() string {
	return fmt.Sprintf("gateway %s is unreachable: %v", e.URL, e.Err)
}

func (e *TransportError) Unwrap() error { return e.Err }

// Call sends method with params (one of the wire params types, or raw
// JSON; nil sends {}) and returns the result as the gateway sent it
// ("null" when it sent none), within the client's Timeout. The errors
// are Client's.
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.callWithin(ctx, c.timeout, method, params)
}

// callWithin is Call with its own bound.
func (c *Client) callWithin(ctx context.Context, timeout time.Duration, method string, params any) (json.RawMessage, error) {
	body, err := RequestBody(method, params)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	status, data, err := c.post(ctx, method, body)
	if err != nil {
		return nil, err
	}
	return c.result(method, status, data)
}

// post sends body to the endpoint and reads the answer's status and body
// (at most MaxResponseBytes). No answer is a *TransportError.
func (c *Client) post(ctx context.Context, method string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/rpc", bytes.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("gateway %s: build request: %w", method, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err // the URL is in the message already
		}
		return 0, nil, &TransportError{URL: c.base, Method: method, Err: err}
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, MaxResponseBytes))
	if err != nil {
		return 0, nil, &TransportError{URL: c.base, Method: method, Err: fmt.Errorf("read answer to %s: %w", method, err)}
	}
	return res.StatusCode, data, nil
}

// result is the result of an answer with status and body data, or its
// error.
func (c *Client) result(method string, status int, data []byte) (json.RawMessage, error) {
	var resp Response
	if err := json.Unmarshal(data, &resp); err != nil {
		if status >= 300 {
			return nil, c.rpcError(&RPCError{Method: method, Status: status, Message: snippet(data)})
		}
		return nil, fmt.Errorf("gateway %s: HTTP %d with a body that is not the gateway protocol: %q", method, status, snippet(data))
	}
	if !resp.OK || status >= 300 {
		e := &RPCError{Method: method, Status: status}
		if resp.Error != nil {
			e.Code, e.Message = resp.Error.Code, resp.Error.Message
		}
		return nil, c.rpcError(e)
	}
	if len(resp.Result) == 0 {
		return json.RawMessage("null"), nil
	}
	return resp.Result, nil
}

// rpcError sets e's Hint from its status.
func (c *Client) rpcError(e *RPCError) *RPCError {
	switch e.Status {
	case http.StatusUnauthorized:
		e.Hint = c.authHint
	case http.StatusTooManyRequests:
		e.Hint = "slow down and retry"
	case http.StatusServiceUnavailable:
		e.Hint = "the gateway is unavailable, retry later"
	}
	return e
}

// RequestBody is the body of a call of method with params (one of the
// wire params types, or raw JSON; nil sends {}).
func RequestBody(method string, params any) ([]byte, error) {
	if params == nil {
		params = struct{}{}
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("gateway %s: encode params: %w", method, err)
	}
	return json.Marshal(Request{Method: method, Params: raw})
}

// DecodeResult decodes method's raw result (as Call returns it) into
// the result type R, as the typed methods do.
func DecodeResult[R any](method string, raw json.RawMessage) (R, error) {
	var res R
	if err := json.Unmarshal(raw, &res); err != nil {
		return res, fmt.Errorf("gateway %s: decode result: %w", method, err)
	}
	return res, nil
}

// callAs sends method with params within timeout and decodes its result
// into R.
func callAs[R any](ctx context.Context, c *Client, timeout time.Duration, method string, params any) (R, error) {
	raw, err := c.callWithin(ctx, timeout, method, params)
	if err != nil {
		var zero R
		return zero, err
	}
	return DecodeResult[R](method, raw)
}

// snippet is the start of a body that is not the protocol, for an error.
func snippet(data []byte) string {
	s := strings.TrimSpace(string(data))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
