package web_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/tools/web"
	"github.com/zero-gateway/zero/shared/tools/web/webtest"
	"github.com/zero-gateway/zero/shared/webfetch"
)

func TestMemoryCache(t *testing.T) {
	webtest.TestCache(t, func(t *testing.T, clock *webtest.Clock) web.Cache {
		return &web.MemoryCache{Now: clock.Now}
	})
}

// TestWebCacheKeys: requests that differ only in what normalisation removes
// share a key; any real difference gives another.
func TestCacheKeys(t *testing.T) {
	base := webfetch.Request{URL: "https://example.com/a?q=1", Mode: "markdown", MaxChars: 1000}
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"fetch: host case and fragment", web.FetchKey(base), web.FetchKey(webfetch.Request{URL: " HTTPS://Example.COM/a?q=1#top", MaxChars: 1000}), true},
		{"fetch: path case matters", web.FetchKey(base), web.FetchKey(webfetch.Request{URL: "https://example.com/A?q=1", MaxChars: 1000}), false},
		{"fetch: mode matters", web.FetchKey(base), web.FetchKey(webfetch.Request{URL: base.URL, Mode: "text", MaxChars: 1000}), false},
		{"fetch: maxChars matters", web.FetchKey(base), web.FetchKey(webfetch.Request{URL: base.URL, MaxChars: 2000}), false},
		{"search: case and spaces", web.SearchKey("Go  generics ", 5), web.SearchKey("go generics", 5), true},
		{"search: count matters", web.SearchKey("go", 5), web.SearchKey("go", 6), false},
		{"fetch and search never collide", web.FetchKey(webfetch.Request{URL: "go"}), web.SearchKey("go", 0), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a == tt.b; got != tt.same {
				t.Errorf("same key = %v; want %v", got, tt.same)
			}
		})
	}
}

type countingFetcher struct {
	calls int
	err   error
}

func (f *countingFetcher) Fetch(_ context.Context, req webfetch.Request) (webfetch.Page, error) {
	f.calls++
	return webfetch.Page{URL: req.URL, Status: 200, Content: "body"}, f.err
}

type countingSearcher struct{ calls int }

func (s *countingSearcher) Search(_ context.Context, query string, count int) ([]web.Result, error) {
	s.calls++
	return []web.Result{{Title: query, URL: "https://x.test"}}, nil
}

// failingCache fails every call: the decorators must go to the source.
type failingCache struct{}

func (failingCache) Get(context.Context, string) ([]byte, bool, error) {
	return nil, false, errors.New("cache down")
}
func (failingCache) Put(context.Context, string, []byte, time.Duration) error {
	return errors.New("cache down")
}

// TestCachedWebTools: a second identical call is answered from the cache,
// errors are not cached, a failing cache is bypassed.
func TestCachedBackends(t *testing.T) {
	ctx := context.Background()
	req := webfetch.Request{URL: "https://example.com/"}
	tests := []struct {
		name      string
		cache     web.Cache
		fetchErr  error
		wantCalls int
	}{
		{"hit after the first fetch", &web.MemoryCache{}, nil, 1},
		{"errors are not cached", &web.MemoryCache{}, errors.New("boom"), 2},
		{"failing cache is bypassed", failingCache{}, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &countingFetcher{err: tt.fetchErr}
			cf := web.CachedFetcher(f, tt.cache, quiet)
			first, _ := cf.Fetch(ctx, req)
			second, _ := cf.Fetch(ctx, req)
			if f.calls != tt.wantCalls {
				t.Errorf("fetches = %d; want %d", f.calls, tt.wantCalls)
			}
			if diff := cmp.Diff(first, second); diff != "" {
				t.Errorf("cached page differs (-first +second):\n%s", diff)
			}
			s := &countingSearcher{}
			cs := web.CachedSearcher(s, tt.cache, quiet)
			r1, _ := cs.Search(ctx, "q", 3)
			r2, _ := cs.Search(ctx, "q", 3)
			wantSearches := 1
			if _, failing := tt.cache.(failingCache); failing {
				wantSearches = 2
			}
			if s.calls != wantSearches {
				t.Errorf("searches = %d; want %d", s.calls, wantSearches)
			}
			if diff := cmp.Diff(r1, r2); diff != "" {
				t.Errorf("cached results differ (-first +second):\n%s", diff)
			}
		})
	}
}

var quiet = slog.New(slog.DiscardHandler)
