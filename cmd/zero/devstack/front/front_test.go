package front

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/cmd/zero/devstack/provision"
	"github.com/zero-gateway/zero/cmd/zero/devstack/rie"
)

var telegramRoute = provision.Route{Method: "POST", Path: "/webhooks/telegram", Function: "TelegramWebhook"}

func TestNewV2Request(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 4, 5, 123e6, time.UTC)
	tests := []struct {
		name   string
		req    func() *http.Request
		route  provision.Route
		params map[string]string
		check  func(t *testing.T, ev events.APIGatewayV2HTTPRequest)
	}{
		{
			name:  "telegram webhook JSON",
			route: telegramRoute,
			req: func() *http.Request {
				r := httptest.NewRequest("POST", "http://127.0.0.1:3000/webhooks/telegram?a=1&a=2&b=x%20y", strings.NewReader(`{"update_id":1}`))
				r.RemoteAddr = "10.0.0.7:5555"
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("X-Telegram-Bot-Api-Secret-Token", "sekret")
				r.Header.Add("X-Multi", "one")
				r.Header.Add("X-Multi", "two")
				r.Header.Set("User-Agent", "curl/8")
				r.Header.Set("Cookie", "c1=v1; c2=v2")
				return r
			},
			check: func(t *testing.T, ev events.APIGatewayV2HTTPRequest) {
				eq(t, "version", ev.Version, "2.0")
				eq(t, "routeKey", ev.RouteKey, "POST /webhooks/telegram")
				eq(t, "rawPath", ev.RawPath, "/webhooks/telegram")
				eq(t, "rawQueryString", ev.RawQueryString, "a=1&a=2&b=x%20y")
				eq(t, "query", ev.QueryStringParameters, map[string]string{"a": "1,2", "b": "x y"})
				eq(t, "secret header", ev.Headers["x-telegram-bot-api-secret-token"], "sekret")
				eq(t, "repeated header", ev.Headers["x-multi"], "one,two")
				eq(t, "content-type", ev.Headers["content-type"], "application/json")
				eq(t, "content-length", ev.Headers["content-length"], "15")
				eq(t, "host", ev.Headers["host"], "127.0.0.1:3000")
				eq(t, "x-forwarded-for", ev.Headers["x-forwarded-for"], "10.0.0.7")
				eq(t, "x-forwarded-port", ev.Headers["x-forwarded-port"], "3000")
				eq(t, "cookies", ev.Cookies, []string{"c1=v1", "c2=v2"})
				if _, ok := ev.Headers["cookie"]; ok {
					t.Errorf("cookie header kept; API Gateway moves it to cookies")
				}
				for k := range ev.Headers {
					if k != strings.ToLower(k) {
						t.Errorf("header %q not lower-cased", k)
					}
				}
				eq(t, "body", ev.Body, `{"update_id":1}`)
				eq(t, "isBase64Encoded", ev.IsBase64Encoded, false)
				rc := ev.RequestContext
				eq(t, "rc.routeKey", rc.RouteKey, "POST /webhooks/telegram")
				eq(t, "rc.stage", rc.Stage, "$default")
				eq(t, "rc.requestId", rc.RequestID, "req-1")
				eq(t, "rc.accountId", rc.AccountID, "123456789012")
				eq(t, "rc.apiId", rc.APIID, "local")
				eq(t, "rc.domainName", rc.DomainName, "127.0.0.1")
				eq(t, "rc.time", rc.Time, "25/Nov/2026:10:04:05 +0000")
				eq(t, "rc.timeEpoch", rc.TimeEpoch, int64(1795601045123))
				eq(t, "rc.http", rc.HTTP, events.APIGatewayV2HTTPRequestContextHTTPDescription{
					Method: "POST", Path: "/webhooks/telegram", Protocol: "HTTP/1.1", SourceIP: "10.0.0.7", UserAgent: "curl/8",
				})
				if ev.PathParameters != nil {
					t.Errorf("pathParameters = %v, want none", ev.PathParameters)
				}
			},
		},
		{
			name:  "binary body is base64",
			route: telegramRoute,
			req: func() *http.Request {
				r := httptest.NewRequest("POST", "/webhooks/telegram", strings.NewReader("\xff\x00\xfe"))
				r.Header.Set("Content-Type", "application/octet-stream")
				return r
			},
			check: func(t *testing.T, ev events.APIGatewayV2HTTPRequest) {
				eq(t, "isBase64Encoded", ev.IsBase64Encoded, true)
				eq(t, "body", ev.Body, base64.StdEncoding.EncodeToString([]byte("\xff\x00\xfe")))
				eq(t, "no query", ev.QueryStringParameters, map[string]string(nil))
			},
		},
		{
			name:  "invalid UTF-8 under a text type is base64",
			route: telegramRoute,
			req: func() *http.Request {
				r := httptest.NewRequest("POST", "/webhooks/telegram", strings.NewReader("ok\xff"))
				r.Header.Set("Content-Type", "text/plain")
				return r
			},
			check: func(t *testing.T, ev events.APIGatewayV2HTTPRequest) {
				eq(t, "isBase64Encoded", ev.IsBase64Encoded, true)
			},
		},
		{
			name:   "path parameters and empty body",
			route:  provision.Route{Method: "GET", Path: "/sessions/{id}", Function: "F"},
			params: map[string]string{"id": "a b"},
			req:    func() *http.Request { return httptest.NewRequest("GET", "/sessions/a%20b", nil) },
			check: func(t *testing.T, ev events.APIGatewayV2HTTPRequest) {
				eq(t, "routeKey", ev.RouteKey, "GET /sessions/{id}")
				eq(t, "rawPath", ev.RawPath, "/sessions/a%20b")
				eq(t, "http.path", ev.RequestContext.HTTP.Path, "/sessions/a b")
				eq(t, "pathParameters", ev.PathParameters, map[string]string{"id": "a b"})
				eq(t, "body", ev.Body, "")
				eq(t, "isBase64Encoded", ev.IsBase64Encoded, false)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.req()
			body, _ := io.ReadAll(r.Body)
			ev := newV2Request(r, tt.route, tt.params, body, now, "req-1", "123456789012", "local")
			// What the function receives is the JSON form.
			var decoded events.APIGatewayV2HTTPRequest
			b, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &decoded); err != nil {
				t.Fatal(err)
			}
			tt.check(t, decoded)
		})
	}
}

func TestMatchRoute(t *testing.T) {
	routes := []provision.Route{
		telegramRoute,
		{Method: "GET", Path: "/items/{id}", Function: "Item"},
		{Method: "GET", Path: "/items/special", Function: "Special"},
		{Method: "ANY", Path: "/items/{id}", Function: "AnyItem"},
		{Method: "ANY", Path: "/files/{proxy+}", Function: "Files"},
	}
	withDefault := append(append([]provision.Route{}, routes...), provision.Route{Method: "ANY", Path: "$default", Function: "Default"})
	tests := []struct {
		name       string
		routes     []provision.Route
		method     string
		path       string
		wantFn     string
		wantParams map[string]string
		wantOK     bool
	}{
		{name: "exact", routes: routes, method: "POST", path: "/webhooks/telegram", wantFn: "TelegramWebhook", wantOK: true},
		{name: "trailing slash", routes: routes, method: "POST", path: "/webhooks/telegram/", wantFn: "TelegramWebhook", wantOK: true},
		{name: "wrong method", routes: routes, method: "GET", path: "/webhooks/telegram"},
		{name: "unknown path", routes: routes, method: "POST", path: "/nope"},
		{name: "literal beats parameter", routes: routes, method: "GET", path: "/items/special", wantFn: "Special", wantOK: true},
		{name: "method beats ANY", routes: routes, method: "GET", path: "/items/7", wantFn: "Item", wantParams: map[string]string{"id": "7"}, wantOK: true},
		{name: "ANY", routes: routes, method: "DELETE", path: "/items/7", wantFn: "AnyItem", wantParams: map[string]string{"id": "7"}, wantOK: true},
		{name: "greedy", routes: routes, method: "PUT", path: "/files/a/b%2Fc", wantFn: "Files", wantParams: map[string]string{"proxy": "a/b/c"}, wantOK: true},
		{name: "greedy needs a segment", routes: routes, method: "PUT", path: "/files/"},
		{name: "default catches the rest", routes: withDefault, method: "GET", path: "/nope", wantFn: "Default", wantOK: true},
		{name: "default loses to a match", routes: withDefault, method: "POST", path: "/webhooks/telegram", wantFn: "TelegramWebhook", wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, params, ok := matchRoute(tt.routes, tt.method, tt.path)
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			eq(t, "function", rt.Function, tt.wantFn)
			eq(t, "params", params, tt.wantParams)
		})
	}
}

func TestWriteV2Response(t *testing.T) {
	tests := []struct {
		name       string
		out        string
		wantErr    bool
		wantStatus int
		wantBody   string
		wantHeader http.Header
	}{
		{
			name:       "structured",
			out:        `{"statusCode":201,"headers":{"content-type":"text/plain","x-a":"1"},"body":"made"}`,
			wantStatus: 201, wantBody: "made",
			wantHeader: http.Header{"Content-Type": {"text/plain"}, "X-A": {"1"}},
		},
		{
			name:       "base64 body, cookies and multi-value headers",
			out:        `{"statusCode":200,"multiValueHeaders":{"x-m":["a","b"]},"cookies":["s=1; HttpOnly"],"isBase64Encoded":true,"body":"` + base64.StdEncoding.EncodeToString([]byte{0, 1, 2}) + `"}`,
			wantStatus: 200, wantBody: "\x00\x01\x02",
			wantHeader: http.Header{"X-M": {"a", "b"}, "Set-Cookie": {"s=1; HttpOnly"}},
		},
		{
			name:       "no content type is not sniffed",
			out:        `{"statusCode":200,"body":"<html>"}`,
			wantStatus: 200, wantBody: "<html>",
			wantHeader: http.Header{},
		},
		{
			name:       "plain JSON without statusCode is the body",
			out:        `{"ok":true}`,
			wantStatus: 200, wantBody: `{"ok":true}`,
			wantHeader: http.Header{"Content-Type": {"application/json"}},
		},
		{name: "not JSON", out: `hello`, wantErr: true},
		{name: "bad status", out: `{"statusCode":1000}`, wantErr: true},
		{name: "bad base64", out: `{"statusCode":200,"isBase64Encoded":true,"body":"!!"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			err := writeV2Response(w, []byte(tt.out))
			if tt.wantErr {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			resp := w.Result()
			eq(t, "status", resp.StatusCode, tt.wantStatus)
			body, _ := io.ReadAll(resp.Body)
			eq(t, "body", string(body), tt.wantBody)
			for k, v := range resp.Header {
				if v == nil { // a nil value only suppresses sniffing; it is not sent
					delete(resp.Header, k)
				}
			}
			eq(t, "headers", resp.Header, tt.wantHeader)
		})
	}
}

func TestFrontErrors(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		path       string
		invoke     func(ctx context.Context) ([]byte, error)
		wantStatus int
		wantBody   string
	}{
		{name: "unknown route", method: "POST", path: "/nope", wantStatus: 404, wantBody: `{"message":"Not Found"}`},
		{
			name: "function error", method: "POST", path: "/webhooks/telegram",
			invoke: func(context.Context) ([]byte, error) {
				return nil, &rie.FunctionError{Type: "errorString", Message: "boom"}
			},
			wantStatus: 500, wantBody: `{"message":"Internal Server Error"}`,
		},
		{
			name: "malformed response", method: "POST", path: "/webhooks/telegram",
			invoke:     func(context.Context) ([]byte, error) { return []byte("nope"), nil },
			wantStatus: 500, wantBody: `{"message":"Internal Server Error"}`,
		},
		{
			name: "integration timeout", method: "POST", path: "/webhooks/telegram",
			invoke: func(ctx context.Context) ([]byte, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			},
			wantStatus: 503, wantBody: `{"message":"Service Unavailable"}`,
		},
		{
			name: "success", method: "POST", path: "/webhooks/telegram",
			invoke:     func(context.Context) ([]byte, error) { return []byte(`{"statusCode":200,"body":"ok"}`), nil },
			wantStatus: 200, wantBody: "ok",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &Front{
				Routes: []provision.Route{telegramRoute},
				Invoke: func(ctx context.Context, fn string, payload []byte) ([]byte, error) {
					if fn != "TelegramWebhook" {
						return nil, errors.New("wrong function " + fn)
					}
					return tt.invoke(ctx)
				},
				Timeout: 50 * time.Millisecond,
				Logf:    t.Logf,
			}
			w := httptest.NewRecorder()
			f.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, strings.NewReader("{}")))
			eq(t, "status", w.Code, tt.wantStatus)
			eq(t, "body", w.Body.String(), tt.wantBody)
			if w.Header().Get("Apigw-Requestid") == "" && tt.wantStatus != 404 {
				t.Errorf("no apigw-requestid header")
			}
		})
	}
}

// eq reports a difference between got and want as a go-cmp diff.
func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
	}
}
