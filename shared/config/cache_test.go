package config

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
)

// memSource is an in-memory Source that counts fetches.
type memSource struct {
	mu      sync.Mutex
	data    string
	version string
	err     error
	fetches int
}

func (s *memSource) Fetch(context.Context) ([]byte, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fetches++
	if s.err != nil {
		return nil, "", s.err
	}
	return []byte(s.data), s.version, nil
}

func (s *memSource) set(data, version string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data, s.version, s.err = data, version, err
}

func (s *memSource) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetches
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// syncBuffer collects log output from concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

const ttl = time.Minute

func newTestCache(src Source) (*Cache, *fakeClock, *syncBuffer) {
	logs := &syncBuffer{}
	clock := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	c := NewCache(src, ttl, slog.New(slog.NewTextHandler(logs, nil)))
	c.Clock = clock.Now
	return c, clock, logs
}

func admitted(t *testing.T, c *Cache, sender string) bool {
	t.Helper()
	cfg, err := c.Current(context.Background())
	if err != nil {
		t.Fatalf("Current: %v", err)
	}
	return cfg.Admits("telegram", sender)
}

func allow(id string) string { return `{channels: {telegram: {allowFrom: ["` + id + `"]}}}` }

func TestCacheWithinTTL(t *testing.T) {
	src := &memSource{data: allow("1"), version: "v1"}
	c, clock, _ := newTestCache(src)
	first, err := c.Current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	clock.advance(ttl - time.Second)
	src.set(allow("2"), "v2", nil)
	second, _ := c.Current(context.Background())
	if src.count() != 1 || second != first {
		t.Fatalf("fetches = %d, same config = %v; want 1 fetch and the cached config", src.count(), second == first)
	}
}

func TestCacheRefetchAfterTTL(t *testing.T) {
	src := &memSource{data: allow("1"), version: "v1"}
	c, clock, _ := newTestCache(src)
	if !admitted(t, c, "1") {
		t.Fatal("v1 must admit 1")
	}
	src.set(allow("2"), "v2", nil)
	clock.advance(ttl)
	if !admitted(t, c, "2") || admitted(t, c, "1") {
		t.Fatal("after TTL the new version must apply")
	}
	if src.count() != 2 {
		t.Fatalf("fetches = %d; want 2", src.count())
	}
}

func TestCacheUnchangedVersionNotReparsed(t *testing.T) {
	src := &memSource{data: allow("1"), version: "v1"}
	c, clock, _ := newTestCache(src)
	first, _ := c.Current(context.Background())
	// Same version, different bytes: were it parsed, 2 would be admitted.
	src.set(allow("2"), "v1", nil)
	clock.advance(ttl)
	second, _ := c.Current(context.Background())
	if src.count() != 2 || second != first {
		t.Fatalf("fetches = %d, same config = %v; want a re-fetch and no re-parse", src.count(), second == first)
	}
	// The re-fetch restarts the TTL.
	clock.advance(ttl - time.Second)
	c.Current(context.Background())
	if src.count() != 2 {
		t.Fatalf("fetches = %d; want 2 within the renewed TTL", src.count())
	}
}

func TestCacheBadVersionKeepsLastGood(t *testing.T) {
	src := &memSource{data: allow("1"), version: "v1"}
	c, clock, logs := newTestCache(src)
	good, _ := c.Current(context.Background())

	src.set(`{session: {reset: {atHour: 25}}}`, "v2", nil)
	for range 3 {
		clock.advance(ttl)
		got, err := c.Current(context.Background())
		if err != nil || got != good {
			t.Fatalf("Current = %p, %v; want the last good config", got, err)
		}
	}
	if n := strings.Count(logs.String(), "session.reset.atHour: must be an integer 0-23, got 25"); n != 1 {
		t.Fatalf("the bad version was logged %d times; want once with its key path:\n%s", n, logs)
	}
	if !strings.Contains(logs.String(), "level=ERROR") {
		t.Fatalf("want an ERROR log:\n%s", logs)
	}

	src.set(allow("3"), "v3", nil)
	clock.advance(ttl)
	if !admitted(t, c, "3") {
		t.Fatal("a good new version must replace the old one")
	}
}

func TestCacheFetchErrorKeepsLastGood(t *testing.T) {
	src := &memSource{data: allow("1"), version: "v1"}
	c, clock, logs := newTestCache(src)
	good, _ := c.Current(context.Background())
	src.set("", "", fault.New(fault.Unavailable, "SSM throttled"))
	clock.advance(ttl)
	got, err := c.Current(context.Background())
	if err != nil || got != good {
		t.Fatalf("Current = %p, %v; want the last good config", got, err)
	}
	if !strings.Contains(logs.String(), "SSM throttled") {
		t.Fatalf("the fetch error is not logged:\n%s", logs)
	}
	// The failure is retried after TTL, not on every call.
	c.Current(context.Background())
	if src.count() != 2 {
		t.Fatalf("fetches = %d; want 2", src.count())
	}
}

func TestCacheFirstLoadErrors(t *testing.T) {
	t.Run("fetch error", func(t *testing.T) {
		boom := fault.New(fault.Unauthorized, "no access to the parameter")
		src := &memSource{err: boom}
		c, _, _ := newTestCache(src)
		if _, err := c.Current(context.Background()); !errors.Is(err, boom) {
			t.Fatalf("Current error = %v; want %v", err, boom)
		}
		// No good config: every call tries again.
		src.set(allow("1"), "v1", nil)
		if !admitted(t, c, "1") {
			t.Fatal("the next call must load the config")
		}
	})
	t.Run("invalid document", func(t *testing.T) {
		src := &memSource{data: `{session: {dmScope: "per-user"}}`, version: "v1"}
		c, _, logs := newTestCache(src)
		for range 2 {
			_, err := c.Current(context.Background())
			if !fault.Is(err, fault.Invalid) || !strings.HasPrefix(fault.Message(err), "session.dmScope: ") {
				t.Fatalf("Current error = %v; want the validation error", err)
			}
		}
		if n := strings.Count(logs.String(), "session.dmScope"); n != 1 {
			t.Fatalf("logged %d times; want once:\n%s", n, logs)
		}
	})
}

func TestCacheNotFoundUsesDefaults(t *testing.T) {
	src := &memSource{err: fault.New(fault.NotFound, "parameter /zero/config not found")}
	c, clock, logs := newTestCache(src)
	for range 3 {
		cfg, err := c.Current(context.Background())
		if err != nil {
			t.Fatalf("Current: %v", err)
		}
		if cfg.Admits("telegram", "1") {
			t.Fatal("with no document nobody is admitted")
		}
		clock.advance(ttl)
	}
	out := logs.String()
	if strings.Count(out, "no ZERO configuration found") != 1 || !strings.Contains(out, "level=WARN") ||
		!strings.Contains(out, "channels.<channel>.allowFrom") {
		t.Fatalf("want one WARN naming channels.<channel>.allowFrom:\n%s", out)
	}
	// Once a document appears it is used.
	src.set(allow("1"), "v1", nil)
	if !admitted(t, c, "1") {
		t.Fatal("a document created later must be loaded")
	}
}

func TestCacheConcurrent(t *testing.T) {
	src := &memSource{data: allow("1"), version: "v1"}
	c, clock, _ := newTestCache(src)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 50 {
				if i == 0 && j%10 == 0 {
					clock.advance(ttl)
				}
				if _, err := c.Current(context.Background()); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := src.count(); n < 1 || n > 6 {
		t.Fatalf("fetches = %d; want one per TTL period (1-6)", n)
	}
}

func TestCacheRealClock(t *testing.T) {
	src := &memSource{data: allow("1"), version: "v1"}
	c := NewCache(src, time.Hour, nil)
	if _, err := c.Current(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.Current(context.Background())
	if src.count() != 1 {
		t.Fatalf("fetches = %d; want 1", src.count())
	}
}
