package brave

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
)

const testKey = "BSA-test-key"

// fakeBrave speaks Brave's web search API: it checks the path, the token
// header and the query, and answers status with results (or raw body).
func fakeBrave(t *testing.T, status int, wantQ, wantCount string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/res/v1/web/search" {
			t.Errorf("got %s %s, want GET /res/v1/web/search", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("X-Subscription-Token"); got != testKey {
			t.Errorf("X-Subscription-Token %q, want the key", got)
		}
		if q, c := r.URL.Query().Get("q"), r.URL.Query().Get("count"); q != wantQ || c != wantCount {
			t.Errorf("q=%q count=%q, want %q and %q", q, c, wantQ, wantCount)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(`{"type":"search","query":{"original":"go"},"web":{"type":"search","results":[
			{"title":"The Go Programming Language","url":"https://go.dev/","description":"Go is an <strong>open source</strong> language.","page_age":"2024-01-01"},
			{"title":"Go (game)","url":"https://en.wikipedia.org/wiki/Go_(game)","description":"An abstract strategy board game."},
			{"title":"Third","url":"https://example.com/3","description":"three"}]}}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSearch(t *testing.T) {
	two := []Result{
		{Title: "The Go Programming Language", URL: "https://go.dev/", Description: "Go is an <strong>open source</strong> language."},
		{Title: "Go (game)", URL: "https://en.wikipedia.org/wiki/Go_(game)", Description: "An abstract strategy board game."},
	}
	cases := []struct {
		name      string
		query     string
		count     int
		status    int
		wantCount string
		want      []Result
		wantCode  fault.Code
	}{
		{name: "results cut to count", query: "golang & go", count: 2, status: 200, wantCount: "2", want: two},
		{name: "count above 10 is clamped", query: "go", count: 50, status: 200, wantCount: "10", want: append(two, Result{Title: "Third", URL: "https://example.com/3", Description: "three"})},
		{name: "count 0 asks for 1", query: "go", count: 0, status: 200, wantCount: "1", want: two[:1]},
		{name: "bad key", query: "go", count: 5, status: 401, wantCount: "5", wantCode: fault.Unauthorized},
		{name: "rate limited", query: "go", count: 5, status: 429, wantCount: "5", wantCode: fault.RateLimited},
		{name: "server error", query: "go", count: 5, status: 503, wantCount: "5", wantCode: fault.Unavailable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fakeBrave(t, c.status, c.query, c.wantCount)
			cl, err := New(testKey, srv.URL, srv.Client())
			if err != nil {
				t.Fatal(err)
			}
			got, err := cl.Search(context.Background(), c.query, c.count)
			if c.wantCode != "" {
				if fault.CodeOf(err) != c.wantCode {
					t.Fatalf("Search = %v, want %s", err, c.wantCode)
				}
				if strings.Contains(err.Error(), testKey) {
					t.Errorf("the error shows the key: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewAndEmptyQuery(t *testing.T) {
	cases := []struct {
		name     string
		key      string
		query    string
		wantCode fault.Code
		wantMsg  string
	}{
		{name: "no key", key: "", wantCode: fault.Unauthorized, wantMsg: "brave-api-key"},
		{name: "blank key", key: "  ", wantCode: fault.Unauthorized, wantMsg: "brave-api-key"},
		{name: "empty query", key: testKey, query: "  ", wantCode: fault.Invalid, wantMsg: "query is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl, err := New(c.key, "http://127.0.0.1:1", nil)
			if err == nil {
				_, err = cl.Search(context.Background(), c.query, 5)
			}
			if fault.CodeOf(err) != c.wantCode || !strings.Contains(fault.Message(err), c.wantMsg) {
				t.Fatalf("err = %v, want %s mentioning %q", err, c.wantCode, c.wantMsg)
			}
		})
	}
}
