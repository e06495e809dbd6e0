package main

import (
	"context"
	"net/http"
	"time"

	"github.com/zero-gateway/zero/functions/internal/settings"
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

// newWebSearcher reads the key from secrets where b names its parameter
// (template.yaml always does; a bare local run may not: a missing secret
// or parameter is no key), on b.BaseURL ("": brave.DefaultBaseURL, a
// fake's in tests).
func newWebSearcher(secrets secret.Getter, b settings.Brave) *braveSearcher {
	var keys secret.Getter = noSecret{}
	if b.KeyParameter != "" {
		keys = secret.OrEmpty(secrets)
	}
	httpClient := &http.Client{Timeout: 15 * time.Second}
	return &braveSearcher{client: secret.Derive(keys, secret.BraveAPIKey, func(key string) (*brave.Client, error) {
		return brave.New(key, b.BaseURL, httpClient)
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

// noSecret is a getter whose every secret is unset ("").
type noSecret struct{}

func (noSecret) Get(context.Context, secret.Spec) (string, error) { return "", nil }
