// Package front serves a template's HTTP API routes the way API Gateway
// HTTP APIs do with payload format 2.0: each request becomes an
// events.APIGatewayV2HTTPRequest for the route's function (the most
// specific route wins), and the function's answer becomes the HTTP
// response. Errors are answered as API Gateway answers them: 404 without a
// route, 413 over 10 MB, 503 after the integration timeout, 500 for a
// failed invocation or a malformed answer.
package front

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/zero-gateway/zero/cmd/zero/devstack/provision"
)

// maxRequestBody is API Gateway's HTTP API payload limit (10 MB).
const maxRequestBody = 10 << 20

// Front is the http.Handler of an HTTP API.
type Front struct {
	// Routes are the API's routes.
	Routes []provision.Route
	// Invoke runs a function (by logical id) on an event and returns its
	// answer.
	Invoke func(ctx context.Context, function string, payload []byte) ([]byte, error)
	// AccountID and APIID fill the events' requestContext.
	AccountID string
	APIID     string
	// Timeout is the integration timeout (API Gateway: 30 s).
	Timeout time.Duration
	// Logf receives failed requests.
	Logf func(string, ...any)

	now func() time.Time // tests: the request time
}

// gatewayError writes an API Gateway style error: {"message": msg}.
func gatewayError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "{\"message\":%q}", msg)
}

// ServeHTTP routes r to its function and writes the function's answer.
func (f *Front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	route, params, ok := matchRoute(f.Routes, r.Method, r.URL.EscapedPath())
	if !ok {
		gatewayError(w, http.StatusNotFound, "Not Found")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	if err != nil {
		gatewayError(w, http.StatusBadRequest, "Bad Request")
		return
	}
	if len(body) > maxRequestBody {
		gatewayError(w, http.StatusRequestEntityTooLarge, "Request Entity Too Large")
		return
	}
	now := time.Now()
	if f.now != nil {
		now = f.now()
	}
	reqID := newRequestID()
	w.Header().Set("Apigw-Requestid", reqID)
	event := newV2Request(r, route, params, body, now, reqID, f.AccountID, f.APIID)
	payload, err := json.Marshal(event)
	if err != nil {
		gatewayError(w, http.StatusInternalServerError, "Internal Server Error")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), f.Timeout)
	defer cancel()
	out, err := f.Invoke(ctx, route.Function, payload)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && r.Context().Err() == nil {
			f.Logf("%s %s: integration timed out after %s", r.Method, r.URL.Path, f.Timeout)
			gatewayError(w, http.StatusServiceUnavailable, "Service Unavailable")
			return
		}
		f.Logf("%s %s: %v", r.Method, r.URL.Path, err)
		gatewayError(w, http.StatusInternalServerError, "Internal Server Error")
		return
	}
	if err := writeV2Response(w, out); err != nil {
		f.Logf("%s %s: malformed function response: %v", r.Method, r.URL.Path, err)
		gatewayError(w, http.StatusInternalServerError, "Internal Server Error")
	}
}

// matchRoute finds the route for method and path. As in API Gateway, the
// most specific route wins: exact paths before {param} paths before
// {greedy+} paths, a named method before ANY, and $default last.
func matchRoute(routes []provision.Route, method, path string) (provision.Route, map[string]string, bool) {
	var (
		best       provision.Route
		bestParams map[string]string
		bestScore  = -1
	)
	for _, rt := range routes {
		if rt.Path == "$default" {
			if bestScore < 0 {
				best, bestParams, bestScore = rt, nil, 0
			}
			continue
		}
		if rt.Method != "ANY" && rt.Method != method {
			continue
		}
		params, score, ok := matchPath(rt.Path, path)
		if !ok {
			continue
		}
		score = score*2 + 1
		if rt.Method != "ANY" {
			score++
		}
		if score > bestScore {
			best, bestParams, bestScore = rt, params, score
		}
	}
	return best, bestParams, bestScore >= 0
}

// matchPath matches a request path against a route path. The score grows
// with literal segments so that more specific routes win.
func matchPath(pattern, path string) (map[string]string, int, bool) {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	xs := strings.Split(strings.Trim(path, "/"), "/")
	params := map[string]string{}
	score := 0
	for i, p := range ps {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "+}") {
			if i != len(ps)-1 || i >= len(xs) || xs[i] == "" {
				return nil, 0, false
			}
			params[p[1:len(p)-2]] = unescape(strings.Join(xs[i:], "/"))
			return params, score, true
		}
		if i >= len(xs) {
			return nil, 0, false
		}
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			if xs[i] == "" {
				return nil, 0, false
			}
			params[p[1:len(p)-1]] = unescape(xs[i])
			score += 2
			continue
		}
		if p != xs[i] {
			return nil, 0, false
		}
		score += 3
	}
	if len(xs) != len(ps) {
		return nil, 0, false
	}
	if len(params) == 0 {
		params = nil
	}
	return params, score, true
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// newV2Request builds the payload format 2.0 event API Gateway sends for r.
func newV2Request(r *http.Request, route provision.Route, params map[string]string, body []byte, now time.Time, requestID, accountID, apiID string) events.APIGatewayV2HTTPRequest {
	headers, cookies, sourceIP := v2Headers(r, body, now)
	host := r.Host
	var query map[string]string
	if q := r.URL.Query(); len(q) > 0 {
		query = map[string]string{}
		for k, vs := range q {
			query[k] = strings.Join(vs, ",")
		}
	}

	domain := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		domain = h
	}
	prefix, _, _ := strings.Cut(domain, ".")

	ev := events.APIGatewayV2HTTPRequest{
		Version:               "2.0",
		RouteKey:              route.RouteKey(),
		RawPath:               r.URL.EscapedPath(),
		RawQueryString:        r.URL.RawQuery,
		Cookies:               cookies,
		Headers:               headers,
		QueryStringParameters: query,
		PathParameters:        params,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey:     route.RouteKey(),
			AccountID:    accountID,
			Stage:        "$default",
			RequestID:    requestID,
			APIID:        apiID,
			DomainName:   domain,
			DomainPrefix: prefix,
			Time:         now.UTC().Format("02/Jan/2006:15:04:05 -0700"),
			TimeEpoch:    now.UnixMilli(),
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method:    r.Method,
				Path:      r.URL.Path,
				Protocol:  r.Proto,
				SourceIP:  sourceIP,
				UserAgent: r.UserAgent(),
			},
		},
	}
	if len(body) > 0 {
		if isTextBody(r.Header.Get("Content-Type"), body) {
			ev.Body = string(body)
		} else {
			ev.Body = base64.StdEncoding.EncodeToString(body)
			ev.IsBase64Encoded = true
		}
	}
	return ev
}

// v2Headers maps r's headers as API Gateway does: lower-case names,
// repeated values joined with commas, cookies apart, and the host,
// content-length, x-forwarded-* and x-amzn-trace-id headers it adds. It
// also returns the client's address.
func v2Headers(r *http.Request, body []byte, now time.Time) (headers map[string]string, cookies []string, sourceIP string) {
	headers = map[string]string{}
	for name, values := range r.Header {
		lname := strings.ToLower(name)
		if lname == "cookie" {
			for _, v := range values {
				for _, c := range strings.Split(v, ";") {
					if c = strings.TrimSpace(c); c != "" {
						cookies = append(cookies, c)
					}
				}
			}
			continue
		}
		headers[lname] = strings.Join(values, ",")
	}
	host := r.Host
	headers["host"] = host
	if len(body) > 0 {
		headers["content-length"] = strconv.Itoa(len(body))
	}
	sourceIP, port := r.RemoteAddr, ""
	if h, p, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		sourceIP, port = h, p
	}
	if _, ok := headers["x-forwarded-for"]; !ok {
		headers["x-forwarded-for"] = sourceIP
	}
	if _, p, err := net.SplitHostPort(host); err == nil {
		port = p
	}
	headers["x-forwarded-port"] = port
	headers["x-forwarded-proto"] = "http"
	if r.TLS != nil {
		headers["x-forwarded-proto"] = "https"
	}
	if _, ok := headers["x-amzn-trace-id"]; !ok {
		headers["x-amzn-trace-id"] = fmt.Sprintf("Root=1-%08x-%s", now.Unix(), randomHex(12))
	}
	return headers, cookies, sourceIP
}

// isTextBody tells whether API Gateway would pass body as text: it must be
// valid UTF-8 and not declared as a binary media type.
func isTextBody(contentType string, body []byte) bool {
	if !utf8.Valid(body) {
		return false
	}
	if contentType == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return true
	}
	switch {
	case strings.HasPrefix(mt, "text/"),
		strings.HasSuffix(mt, "/json"), strings.HasSuffix(mt, "+json"),
		strings.HasSuffix(mt, "/xml"), strings.HasSuffix(mt, "+xml"),
		mt == "application/x-www-form-urlencoded",
		mt == "application/javascript", mt == "application/graphql",
		strings.HasPrefix(mt, "multipart/form-data") && utf8.Valid(body):
		return true
	case strings.HasPrefix(mt, "image/"), strings.HasPrefix(mt, "audio/"),
		strings.HasPrefix(mt, "video/"), mt == "application/octet-stream",
		mt == "application/pdf", mt == "application/zip", mt == "application/gzip":
		return false
	}
	return true
}

// writeV2Response writes a function's payload format 2.0 answer. An object
// with a statusCode is a structured response; any other valid JSON is sent
// as the body with status 200 and content-type application/json.
func writeV2Response(w http.ResponseWriter, out []byte) error {
	var probe map[string]json.RawMessage
	structured := json.Unmarshal(out, &probe) == nil && probe["statusCode"] != nil
	if !structured {
		if !json.Valid(out) {
			return fmt.Errorf("not JSON: %.100q", out)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(out)
		return nil
	}
	var resp events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		return err
	}
	if resp.StatusCode < 100 || resp.StatusCode > 599 {
		return fmt.Errorf("statusCode %d out of range", resp.StatusCode)
	}
	body := []byte(resp.Body)
	if resp.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(resp.Body)
		if err != nil {
			return fmt.Errorf("isBase64Encoded body: %w", err)
		}
		body = b
	}
	h := w.Header()
	// No content sniffing: only what the function sets is sent.
	h["Content-Type"] = nil
	for _, k := range sortedKeys(resp.MultiValueHeaders) {
		for _, v := range resp.MultiValueHeaders[k] {
			h.Add(k, v)
		}
	}
	for _, k := range sortedKeys(resp.Headers) {
		h.Set(k, resp.Headers[k])
	}
	for _, c := range resp.Cookies {
		h.Add("Set-Cookie", c)
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
	return nil
}

func newRequestID() string {
	// API Gateway request ids look like "JvDnAiD9IAMEbxg=".
	var b [10]byte
	_, _ = rand.Read(b[:])
	return base64.StdEncoding.EncodeToString(b[:])
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// RouteList renders routes for humans ("POST /rpc -> Gateway"), sorted.
func RouteList(routes []provision.Route) []string {
	out := make([]string, len(routes))
	for i, r := range routes {
		out[i] = r.RouteKey() + " -> " + r.Function
	}
	sort.Strings(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
