// Package httpapi runs an http.Handler behind an API Gateway HTTP API or a
// Lambda function URL (payload format 2.0).
//
// The adapter never returns an error to Lambda: an event it cannot turn into
// a request (bad path, bad base64 body, no method) is answered 400, and a
// handler panic 500, so client input never makes Lambda crash or retry.
// Response bodies that are not valid UTF-8 go back base64-encoded.
//
// The adapter logs through the logger it is given (WithLogger, or Start's
// logger), with the invocation's context, so a line carries the Lambda
// request id when that logger adds it (shared/lambdalog).
package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
)

// Option configures Handler.
type Option func(*options)

type options struct {
	logger *slog.Logger
}

// WithLogger sets the logger that reports a handler panic (with the
// request's context). Without it Handler uses slog.Default() at the time
// Handler is called; the Lambda mains always pass their logger (Start
// does).
func WithLogger(logger *slog.Logger) Option {
	return func(o *options) {
		if logger != nil {
			o.logger = logger
		}
	}
}

// Handler adapts h to the Lambda handler signature for payload format 2.0.
// The returned function never returns an error: a malformed event is
// answered 400 and a panic in h 500 (logged with the stack).
func Handler(h http.Handler, opts ...Option) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	o := options{logger: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		r, err := newRequest(ctx, ev)
		if err != nil {
			return plain(http.StatusBadRequest, "bad request: "+err.Error()), nil
		}
		return serve(o.logger, h, r), nil
	}
}

// newRequest converts ev to a server-side *http.Request carrying ctx. The
// error says what in the event is malformed and is safe to show the client.
func newRequest(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (*http.Request, error) {
	method := ev.RequestContext.HTTP.Method
	if method == "" {
		return nil, fmt.Errorf("no HTTP method in event")
	}
	path := ev.RawPath
	if path == "" {
		path = ev.RequestContext.HTTP.Path
	}
	if path == "" {
		path = "/"
	}
	uri := path
	if ev.RawQueryString != "" {
		uri += "?" + ev.RawQueryString
	}
	u, err := url.ParseRequestURI(uri)
	if err != nil {
		return nil, fmt.Errorf("invalid request path")
	}
	body := []byte(ev.Body)
	if ev.IsBase64Encoded {
		if body, err = base64.StdEncoding.DecodeString(ev.Body); err != nil {
			return nil, fmt.Errorf("body is not valid base64")
		}
	}

	r, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("invalid method or path")
	}
	r.URL = u
	r.RequestURI = uri
	r.RemoteAddr = ev.RequestContext.HTTP.SourceIP
	if proto := ev.RequestContext.HTTP.Protocol; proto != "" {
		if major, minor, ok := http.ParseHTTPVersion(proto); ok {
			r.Proto, r.ProtoMajor, r.ProtoMinor = proto, major, minor
		}
	}
	for k, v := range ev.Headers {
		r.Header.Set(k, v) // API Gateway already joined repeated headers with commas
	}
	if len(ev.Cookies) > 0 {
		r.Header.Set("Cookie", strings.Join(ev.Cookies, "; "))
	}
	// As net/http's server does: Host moves out of the header map.
	r.Host = r.Header.Get("Host")
	if r.Host == "" {
		r.Host = ev.RequestContext.DomainName
	}
	r.Header.Del("Host")
	r.ContentLength = int64(len(body))
	return r, nil
}

// serve runs h and converts what it wrote into the response event; a
// panic in h is logged to logger and answered 500.
func serve(logger *slog.Logger, h http.Handler, r *http.Request) (resp events.APIGatewayV2HTTPResponse) {
	w := &recorder{header: http.Header{}}
	defer func() {
		if p := recover(); p != nil {
			logger.ErrorContext(r.Context(), "httpapi: handler panicked",
				"method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			resp = plain(http.StatusInternalServerError, "internal error")
		}
	}()
	h.ServeHTTP(w, r)
	return w.response()
}

// recorder is a minimal http.ResponseWriter that buffers the response.
type recorder struct {
	header  http.Header
	written http.Header // snapshot taken at WriteHeader, as a server would send
	status  int
	body    bytes.Buffer
}

func (w *recorder) Header() http.Header { return w.header }

func (w *recorder) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	w.written = w.header.Clone()
}

func (w *recorder) Write(p []byte) (int, error) {
	if w.status == 0 {
		if w.header.Get("Content-Type") == "" && len(p) > 0 {
			w.header.Set("Content-Type", http.DetectContentType(p))
		}
		w.WriteHeader(http.StatusOK)
	}
	return w.body.Write(p)
}

// Flush is a no-op: the whole response is sent when the handler returns.
func (w *recorder) Flush() {}

func (w *recorder) response() events.APIGatewayV2HTTPResponse {
	w.WriteHeader(http.StatusOK) // no-op unless the handler wrote nothing
	resp := events.APIGatewayV2HTTPResponse{StatusCode: w.status, Headers: map[string]string{}}
	for k, vs := range w.written {
		if k == "Set-Cookie" {
			resp.Cookies = append(resp.Cookies, vs...)
			continue
		}
		resp.Headers[k] = strings.Join(vs, ",")
	}
	if b := w.body.Bytes(); utf8.Valid(b) {
		resp.Body = string(b)
	} else {
		resp.Body = base64.StdEncoding.EncodeToString(b)
		resp.IsBase64Encoded = true
	}
	return resp
}

func plain(status int, msg string) events.APIGatewayV2HTTPResponse {
	return events.APIGatewayV2HTTPResponse{
		StatusCode: status,
		Headers:    map[string]string{"Content-Type": "text/plain; charset=utf-8"},
		Body:       msg + "\n",
	}
}
