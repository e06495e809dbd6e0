package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/lambdalog"
)

// quiet is the logger of tests whose log lines do not matter.
var quiet = slog.New(slog.DiscardHandler)

// seen is what echoHandler observed about the request.
type seen struct {
	Method        string
	Path          string
	RawQuery      string
	Query         string // value of ?q
	Host          string
	RemoteAddr    string
	RequestURI    string
	Proto         string
	ContentLength int64
	ContentType   string
	Secret        string // X-Telegram-Bot-Api-Secret-Token
	HostHeader    string // must be empty: Host moves to r.Host
	Cookies       string
	Body          string
	CtxValue      string
}

type ctxKey struct{}

// echoHandler answers 200 with a JSON description of the request it got.
var echoHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	ctxValue, _ := r.Context().Value(ctxKey{}).(string)
	s := seen{
		Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Query: r.URL.Query().Get("q"),
		Host: r.Host, RemoteAddr: r.RemoteAddr, RequestURI: r.RequestURI, Proto: r.Proto,
		ContentLength: r.ContentLength, ContentType: r.Header.Get("Content-Type"),
		Secret: r.Header.Get("X-Telegram-Bot-Api-Secret-Token"), HostHeader: r.Header.Get("Host"),
		Cookies: r.Header.Get("Cookie"), Body: string(body), CtxValue: ctxValue,
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s)
})

func event(method, rawPath string) events.APIGatewayV2HTTPRequest {
	ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RawPath: rawPath}
	ev.RequestContext.HTTP.Method = method
	ev.RequestContext.HTTP.Path = rawPath
	return ev
}

func TestHandlerRequest(t *testing.T) {
	tests := []struct {
		name  string
		event func() events.APIGatewayV2HTTPRequest
		want  seen
	}{
		{
			name: "post with headers cookies and query",
			event: func() events.APIGatewayV2HTTPRequest {
				ev := event("POST", "/webhooks/telegram")
				ev.RawQueryString = "q=a%20b&x=1"
				ev.Headers = map[string]string{
					"content-type":                    "application/json",
					"x-telegram-bot-api-secret-token": "dev-secret",
					"host":                            "abc.execute-api.eu-west-1.amazonaws.com",
				}
				ev.Cookies = []string{"a=1", "b=2"}
				ev.Body = `{"update_id":1}`
				ev.RequestContext.HTTP.SourceIP = "203.0.113.7"
				ev.RequestContext.HTTP.Protocol = "HTTP/1.1"
				return ev
			},
			want: seen{
				Method: "POST", Path: "/webhooks/telegram", RawQuery: "q=a%20b&x=1", Query: "a b",
				Host: "abc.execute-api.eu-west-1.amazonaws.com", RemoteAddr: "203.0.113.7",
				RequestURI: "/webhooks/telegram?q=a%20b&x=1", Proto: "HTTP/1.1",
				ContentLength: 15, ContentType: "application/json", Secret: "dev-secret",
				Cookies: "a=1; b=2", Body: `{"update_id":1}`, CtxValue: "from-lambda",
			},
		},
		{
			name: "base64 body is decoded",
			event: func() events.APIGatewayV2HTTPRequest {
				ev := event("PUT", "/bin")
				ev.Body = base64.StdEncoding.EncodeToString([]byte("héllo"))
				ev.IsBase64Encoded = true
				return ev
			},
			want: seen{Method: "PUT", Path: "/bin", RequestURI: "/bin", Proto: "HTTP/1.1", ContentLength: 6, Body: "héllo", CtxValue: "from-lambda"},
		},
		{
			name: "host falls back to domain name and path to context path",
			event: func() events.APIGatewayV2HTTPRequest {
				ev := event("GET", "")
				ev.RequestContext.HTTP.Path = "/from-context"
				ev.RequestContext.DomainName = "id.lambda-url.eu-west-1.on.aws"
				return ev
			},
			want: seen{Method: "GET", Path: "/from-context", RequestURI: "/from-context", Host: "id.lambda-url.eu-west-1.on.aws", Proto: "HTTP/1.1", CtxValue: "from-lambda"},
		},
		{
			name:  "no path at all is root",
			event: func() events.APIGatewayV2HTTPRequest { return event("GET", "") },
			want:  seen{Method: "GET", Path: "/", RequestURI: "/", Proto: "HTTP/1.1", CtxValue: "from-lambda"},
		},
		{
			name:  "escaped path keeps its escaping",
			event: func() events.APIGatewayV2HTTPRequest { return event("GET", "/a%2Fb") },
			want:  seen{Method: "GET", Path: "/a/b", RequestURI: "/a%2Fb", Proto: "HTTP/1.1", CtxValue: "from-lambda"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.WithValue(context.Background(), ctxKey{}, "from-lambda")
			resp, err := Handler(echoHandler, WithLogger(quiet))(ctx, tt.event())
			if err != nil {
				t.Fatalf("Handler returned error %v; it must never", err)
			}
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status = %d, body %q", resp.StatusCode, resp.Body)
			}
			var got seen
			if err := json.Unmarshal([]byte(resp.Body), &got); err != nil {
				t.Fatalf("decode echo: %v (%q)", err, resp.Body)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("what the handler saw (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHandlerBadEvent(t *testing.T) {
	tests := []struct {
		name  string
		event events.APIGatewayV2HTTPRequest
	}{
		{"missing method", event("", "/x")},
		{"bad base64 body", func() events.APIGatewayV2HTTPRequest {
			ev := event("POST", "/x")
			ev.Body, ev.IsBase64Encoded = "%%%not base64", true
			return ev
		}()},
		{"bad percent escape in path", event("GET", "/a%zz")},
		{"relative path", event("GET", "no-slash")},
		{"invalid method token", event("GE T", "/x")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true })
			resp, err := Handler(h, WithLogger(quiet))(context.Background(), tt.event)
			if err != nil {
				t.Fatalf("Handler returned error %v; want a 400 response", err)
			}
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("status = %d, want 400", resp.StatusCode)
			}
			if called {
				t.Error("handler ran for a malformed event")
			}
		})
	}
}

func TestHandlerResponse(t *testing.T) {
	binary := []byte{0xff, 0x00, 0xfe, 'x'}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    events.APIGatewayV2HTTPResponse
	}{
		{
			name:    "nothing written is 200 empty",
			handler: func(http.ResponseWriter, *http.Request) {},
			want:    events.APIGatewayV2HTTPResponse{StatusCode: 200, Headers: map[string]string{}},
		},
		{
			name: "status headers and text body",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Add("Vary", "A")
				w.Header().Add("Vary", "B")
				w.WriteHeader(http.StatusCreated)
				w.Header().Set("X-Late", "ignored after WriteHeader")
				_, _ = io.WriteString(w, `{"ok":true}`)
			},
			want: events.APIGatewayV2HTTPResponse{
				StatusCode: 201,
				Headers:    map[string]string{"Content-Type": "application/json", "Vary": "A,B"},
				Body:       `{"ok":true}`,
			},
		},
		{
			name: "content type is sniffed when unset",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				_, _ = io.WriteString(w, "hello")
			},
			want: events.APIGatewayV2HTTPResponse{
				StatusCode: 200,
				Headers:    map[string]string{"Content-Type": "text/plain; charset=utf-8"},
				Body:       "hello",
			},
		},
		{
			name: "binary body is base64",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/octet-stream")
				_, _ = w.Write(binary)
			},
			want: events.APIGatewayV2HTTPResponse{
				StatusCode:      200,
				Headers:         map[string]string{"Content-Type": "application/octet-stream"},
				Body:            base64.StdEncoding.EncodeToString(binary),
				IsBase64Encoded: true,
			},
		},
		{
			name: "set-cookie goes to cookies",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				http.SetCookie(w, &http.Cookie{Name: "a", Value: "1"})
				http.SetCookie(w, &http.Cookie{Name: "b", Value: "2"})
				w.WriteHeader(http.StatusNoContent)
			},
			want: events.APIGatewayV2HTTPResponse{StatusCode: 204, Headers: map[string]string{}, Cookies: []string{"a=1", "b=2"}},
		},
		{
			name:    "panic is a 500",
			handler: func(http.ResponseWriter, *http.Request) { panic("boom") },
			want: events.APIGatewayV2HTTPResponse{
				StatusCode: 500,
				Headers:    map[string]string{"Content-Type": "text/plain; charset=utf-8"},
				Body:       "internal error\n",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := Handler(tt.handler, WithLogger(quiet))(context.Background(), event("GET", "/"))
			if err != nil {
				t.Fatalf("Handler returned error %v", err)
			}
			if diff := cmp.Diff(tt.want, resp); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

// panicLine is the log line of a handler panic.
type panicLine struct {
	Msg       string `json:"msg"`
	Method    string `json:"method"`
	Path      string `json:"path"`
	Panic     string `json:"panic"`
	RequestID string `json:"requestId"`
	Stack     string `json:"stack"`
}

// TestPanicIsLogged checks that a handler panic is logged to the injected
// logger, not slog's default, with the invocation's request id.
func TestPanicIsLogged(t *testing.T) {
	prev := slog.Default()
	t.Cleanup(func() { slog.SetDefault(prev) })
	var defaultLog bytes.Buffer
	slog.SetDefault(slog.New(slog.NewJSONHandler(&defaultLog, nil)))

	var injected bytes.Buffer
	boom := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })
	ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "req-panic"})
	resp, err := Handler(boom, WithLogger(lambdalog.New(&injected)))(ctx, event("POST", "/rpc"))
	if err != nil || resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("Handler = %d, %v; want 500 and no error", resp.StatusCode, err)
	}

	var line panicLine
	if err := json.Unmarshal(injected.Bytes(), &line); err != nil {
		t.Fatalf("the injected logger got no JSON line: %v: %q", err, injected.String())
	}
	if !strings.Contains(line.Stack, "httpapi") {
		t.Errorf("stack = %q, want the panicking goroutine's stack", line.Stack)
	}
	line.Stack = ""
	want := panicLine{Msg: "httpapi: handler panicked", Method: "POST", Path: "/rpc", Panic: "boom", RequestID: "req-panic"}
	if diff := cmp.Diff(want, line); diff != "" {
		t.Errorf("panic log line (-want +got):\n%s", diff)
	}
	if defaultLog.Len() != 0 {
		t.Errorf("slog's default logger got %q; want every line on the injected logger", defaultLog.String())
	}
}
