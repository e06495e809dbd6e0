package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zero-gateway/zero/shared/webfetch"
)

// CacheTTL is how long a web_fetch or web_search result is reused.
const CacheTTL = 15 * time.Minute

// Cache holds web_fetch and web_search results for CacheTTL, shared
// by every runner instance (the runner's is the DynamoDB table). Keys are
// hex SHA-256 digests of the normalised request (FetchKey,
// SearchKey); values are opaque bytes.
type Cache interface {
	// Get returns the value under key; ok is false when there is none or
	// it has expired.
	Get(ctx context.Context, key string) (value []byte, ok bool, err error)
	// Put stores value under key until ttl has passed. A store may skip a
	// value it cannot hold (too large) without error.
	Put(ctx context.Context, key string, value []byte, ttl time.Duration) error
}

// FetchKey is the cache key of a web_fetch request: the URL with its
// scheme and host lower-cased and the fragment dropped, the extract mode
// (default markdown) and maxChars.
func FetchKey(req webfetch.Request) string {
	u := strings.TrimSpace(req.URL)
	if parsed, err := url.Parse(u); err == nil {
		parsed.Scheme = strings.ToLower(parsed.Scheme)
		parsed.Host = strings.ToLower(parsed.Host)
		parsed.Fragment, parsed.RawFragment = "", ""
		u = parsed.String()
	}
	mode := strings.ToLower(strings.TrimSpace(req.Mode))
	if mode == "" {
		mode = webfetch.ModeMarkdown
	}
	return digest("web_fetch", u, mode, strconv.Itoa(req.MaxChars))
}

// SearchKey is the cache key of a web_search request: the query with
// its whitespace collapsed, lower-cased, and the count.
func SearchKey(query string, count int) string {
	q := strings.ToLower(strings.Join(strings.Fields(query), " "))
	return digest("web_search", q, strconv.Itoa(count))
}

func digest(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])
}

// CachedFetcher is f behind cache: a hit answers without fetching, a
// successful fetch is stored for CacheTTL. Errors are never cached; a
// cache that fails is logged and bypassed (the fetch still happens).
func CachedFetcher(f Fetcher, cache Cache, log *slog.Logger) Fetcher {
	return cachedFetcher{f: f, c: cacheLayer{cache: cache, log: log}}
}

type cachedFetcher struct {
	f Fetcher
	c cacheLayer
}

func (c cachedFetcher) Fetch(ctx context.Context, req webfetch.Request) (webfetch.Page, error) {
	key := FetchKey(req)
	var page webfetch.Page
	if c.c.get(ctx, key, &page) {
		return page, nil
	}
	page, err := c.f.Fetch(ctx, req)
	if err == nil {
		c.c.put(ctx, key, page)
	}
	return page, err
}

// CachedSearcher is s behind cache, as CachedFetcher.
func CachedSearcher(s Searcher, cache Cache, log *slog.Logger) Searcher {
	return cachedSearcher{s: s, c: cacheLayer{cache: cache, log: log}}
}

type cachedSearcher struct {
	s Searcher
	c cacheLayer
}

func (c cachedSearcher) Search(ctx context.Context, query string, count int) ([]Result, error) {
	key := SearchKey(query, count)
	var results []Result
	if c.c.get(ctx, key, &results) {
		return results, nil
	}
	results, err := c.s.Search(ctx, query, count)
	if err == nil {
		c.c.put(ctx, key, results)
	}
	return results, err
}

// cacheLayer is the JSON coding and failure policy both decorators
// share: any cache or decoding error is a miss, logged.
type cacheLayer struct {
	cache Cache
	log   *slog.Logger
}

func (l cacheLayer) get(ctx context.Context, key string, into any) bool {
	data, ok, err := l.cache.Get(ctx, key)
	if err == nil && ok {
		if err = json.Unmarshal(data, into); err == nil {
			return true
		}
	}
	if err != nil {
		l.logger().WarnContext(ctx, "web cache read failed; going to the source", "err", err)
	}
	return false
}

func (l cacheLayer) put(ctx context.Context, key string, value any) {
	data, err := json.Marshal(value)
	if err == nil {
		err = l.cache.Put(ctx, key, data, CacheTTL)
	}
	if err != nil {
		l.logger().WarnContext(ctx, "web cache write failed; the result is not cached", "err", err)
	}
}

func (l cacheLayer) logger() *slog.Logger {
	if l.log == nil {
		return slog.Default()
	}
	return l.log
}

// MemoryCache is a Cache in one process's memory, for tests and the
// local stack. Expired values are dropped when read. Safe for concurrent
// use.
type MemoryCache struct {
	Now func() time.Time // nil: time.Now

	mu    sync.Mutex
	items map[string]memoryItem
}

type memoryItem struct {
	value   []byte
	expires time.Time
}

// Get implements Cache.
func (m *MemoryCache) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.items[key]
	if !ok {
		return nil, false, nil
	}
	if !m.now().Before(it.expires) {
		delete(m.items, key)
		return nil, false, nil
	}
	return append([]byte(nil), it.value...), true, nil
}

// Put implements Cache.
func (m *MemoryCache) Put(_ context.Context, key string, value []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.items == nil {
		m.items = map[string]memoryItem{}
	}
	m.items[key] = memoryItem{value: append([]byte(nil), value...), expires: m.now().Add(ttl)}
	return nil
}

func (m *MemoryCache) now() time.Time {
	if m.Now == nil {
		return time.Now()
	}
	return m.Now()
}
