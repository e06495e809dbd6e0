package main

import (
	"context"
	"net/http"
	"os"
	"time"

	"github.com/zero-gateway/zero/shared/brave"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/tools/web"
	"github.com/zero-gateway/zero/shared/webfetch"
)

// newWebFetcher is web_fetch's fetcher: one SSRF-guarded HTTP client for
// the instance (production guard: no private, loopback, link-local,
// CGNAT or metadata address), 2 MB and 15 s per fetch.
func newWebFetcher() *webfetch.Fetcher {
	return &webfetch.Fetcher{Client: webfetch.NewClient(webfetch.ClientOptions{}), MaxBytes: webfetch.DefaultMaxBytes, Timeout: webfetch.DefaultTimeout}
}

// braveSearcher is web_search's backend: a Brave Search client rebuilt
// when the brave-api-key secret changes, over one HTTP client. Without a
// key every search answers that web_search is not configured.
type braveSearcher struct {
	client *secret.Derived[*brave.Client]
}

// newWebSearcher reads the key from secrets where the deployment names
// its parameter (a missing secret or parameter is no key), and
// BRAVE_API_BASE_URL (default brave.DefaultBaseURL, a fake's in tests).
func newWebSearcher(secrets secret.Getter) *braveSearcher {
	var keys secret.Getter = noSecret{}
	if braveKeyConfigured() {
		keys = secret.OrEmpty(secrets)
	}
	base := envOr("BRAVE_API_BASE_URL", brave.DefaultBaseURL)
	httpClient := &http.Client{Timeout: 15 * time.Second}
	return &braveSearcher{client: secret.Derive(keys, secret.BraveAPIKey, func(key string) (*brave.Client, error) {
		return brave.New(key, base, httpClient)
	})}
}

// Search implements web.Searcher.
func (b *braveSearcher) Search(ctx context.Context, query string, count int) ([]web.Result, error) {
	c, err := b.client.Get(ctx)
	if err != nil {
		return nil, err
	}
	results, err := c.Search(ctx, query, count)
	if err != nil {
		return nil, err
	}
	out := make([]web.Result, len(results))
	for i, r := range results {
		out[i] = web.Result{Title: r.Title, URL: r.URL, Description: r.Description}
	}
	return out, nil
}

// braveKeyConfigured reports whether the deployment names the Brave key's
// parameter (template.yaml always does; a bare local run may not).
func braveKeyConfigured() bool { return os.Getenv(secret.BraveAPIKey.Env) != "" }
