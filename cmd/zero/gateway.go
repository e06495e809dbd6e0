package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/gateway"
)

// Environment variables and defaults of the gateway connection.
const (
	gatewayURLEnv     = "ZERO_GATEWAY_URL"
	gatewayTokenEnv   = "ZERO_GATEWAY_TOKEN"
	defaultGatewayURL = "http://127.0.0.1:3000"

	// gatewayCallTimeout bounds one RPC that is not agent.wait.
	gatewayCallTimeout = 30 * time.Second
	// maxGatewayResponse bounds the body of one RPC answer.
	maxGatewayResponse = 32 << 20
)

// gatewayFlags are the connection flags every gateway command takes.
type gatewayFlags struct {
	url   string
	token string
}

// register adds --url and --token to fs.
func (g *gatewayFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.url, "url", "", fmt.Sprintf("gateway URL (default $%s, else %s)", gatewayURLEnv, defaultGatewayURL))
	fs.StringVar(&g.token, "token", "", fmt.Sprintf("gateway token (default $%s)", gatewayTokenEnv))
}

// client resolves the flags against the environment (flags win) and
// returns a client. A missing token or a malformed URL is an error before
// any request is made.
func (g *gatewayFlags) client(getenv func(string) string) (*gatewayClient, error) {
	raw := g.url
	if raw == "" {
		raw = getenv(gatewayURLEnv)
	}
	if raw == "" {
		raw = defaultGatewayURL
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("gateway URL %q: want http(s)://host[:port]", raw)
	}
	token := g.token
	if token == "" {
		token = getenv(gatewayTokenEnv)
	}
	if token == "" {
		return nil, fmt.Errorf("no gateway token: pass --token or set %s", gatewayTokenEnv)
	}
	return &gatewayClient{
		// The endpoint is <url>/rpc; a URL given with /rpc means the same.
		url:   strings.TrimSuffix(strings.TrimRight(raw, "/"), "/rpc"),
		token: token,
		http:  &http.Client{},
	}, nil
}

// gatewayClient calls the gateway API: POST <url>/rpc with a bearer token
// and a gateway.Request; the answer is a gateway.Response. Params and
// results are the gateway package's wire types.
type gatewayClient struct {
	url   string // without a trailing slash
	token string
	http  *http.Client
}

// gatewayError is an error answer of the gateway.
type gatewayError struct {
	Method  string
	Status  int    // HTTP status
	Code    string // the error code of the answer, e.g. "unauthorized"
	Message string
}

func (e *gatewayError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gateway %s: ", e.Method)
	code := e.Code
	if code == "" {
		code = strings.ToLower(http.StatusText(e.Status))
	}
	fmt.Fprintf(&b, "%s (HTTP %d)", code, e.Status)
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	switch e.Status {
	case http.StatusUnauthorized:
		fmt.Fprintf(&b, "; check --token or %s", gatewayTokenEnv)
	case http.StatusTooManyRequests:
		b.WriteString("; slow down and retry")
	case http.StatusServiceUnavailable:
		b.WriteString("; the gateway is unavailable, retry later")
	}
	return b.String()
}

// unreachableError is a request that got no answer from the gateway.
type unreachableError struct {
	URL string
	Err error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("gateway %s is unreachable: %v", e.URL, e.Err)
}

func (e *unreachableError) Unwrap() error { return e.Err }

// call sends method with params (nil means {}) and decodes the result into
// out (when out is not nil), within gatewayCallTimeout.
func (c *gatewayClient) call(ctx context.Context, method string, params, out any) error {
	return c.callWithin(ctx, gatewayCallTimeout, method, params, out)
}

// callWithin is call with its own bound on the request.
func (c *gatewayClient) callWithin(ctx context.Context, timeout time.Duration, method string, params, out any) error {
	raw, err := c.rawCall(ctx, timeout, method, params)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return decodeResult(method, raw, out)
}

// decodeResult decodes method's result raw into out (one of the
// gateway's result types).
func decodeResult(method string, raw json.RawMessage, out any) error {
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("gateway %s: decode result: %w", method, err)
	}
	return nil
}

// rawCall sends one RPC and returns its result as the gateway sent it.
func (c *gatewayClient) rawCall(ctx context.Context, timeout time.Duration, method string, params any) (json.RawMessage, error) {
	body, err := requestBody(method, params)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+"/rpc", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("gateway %s: build request: %w", method, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the message already
		}
		return nil, &unreachableError{URL: c.url, Err: err}
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxGatewayResponse))
	if err != nil {
		return nil, &unreachableError{URL: c.url, Err: fmt.Errorf("read answer to %s: %w", method, err)}
	}
	var resp gateway.Response
	if err := json.Unmarshal(data, &resp); err != nil {
		if res.StatusCode >= 300 {
			return nil, &gatewayError{Method: method, Status: res.StatusCode, Message: snippet(data)}
		}
		return nil, fmt.Errorf("gateway %s: HTTP %d with a body that is not the gateway protocol: %q", method, res.StatusCode, snippet(data))
	}
	if !resp.OK || res.StatusCode >= 300 {
		e := &gatewayError{Method: method, Status: res.StatusCode}
		if resp.Error != nil {
			e.Code, e.Message = string(resp.Error.Code), resp.Error.Message
		}
		return nil, e
	}
	if len(resp.Result) == 0 {
		return json.RawMessage("null"), nil
	}
	return resp.Result, nil
}

// requestBody is the body of a call of method with params (one of the
// gateway's params types, or raw JSON; nil sends {}).
func requestBody(method string, params any) ([]byte, error) {
	if params == nil {
		params = struct{}{}
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("gateway %s: encode params: %w", method, err)
	}
	return json.Marshal(gateway.Request{Method: method, Params: raw})
}

// snippet is the start of a body that is not the protocol, for an error.
func snippet(data []byte) string {
	s := strings.TrimSpace(string(data))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// writeJSON writes v as indented JSON, with <, > and & left as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
