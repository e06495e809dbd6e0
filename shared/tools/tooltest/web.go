package tooltest

import (
	"context"
	"net/netip"

	"github.com/zero-gateway/zero/shared/tools/web"
	"github.com/zero-gateway/zero/shared/webfetch"
)

// Searcher is a web.Searcher that records its calls and answers Results
// or Err.
type Searcher struct {
	Queries []string
	Counts  []int
	Results []web.Result
	Err     error
}

func (f *Searcher) Search(_ context.Context, query string, count int) ([]web.Result, error) {
	f.Queries, f.Counts = append(f.Queries, query), append(f.Counts, count)
	return f.Results, f.Err
}

// LocalFetcher is a webfetch.Fetcher that may reach 127.0.0.1 (a test's
// web server) and nothing else private.
func LocalFetcher() *webfetch.Fetcher {
	guard := webfetch.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	return &webfetch.Fetcher{Client: webfetch.NewClient(webfetch.ClientOptions{Guard: guard})}
}
