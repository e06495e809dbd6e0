// Package webtest is the conformance suite of web.Cache, for its
// implementations (the DynamoDB table, the in-memory cache).
package webtest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/tools/web"
)

// Clock is the clock a web cache under test reads; the suite moves it.
type Clock struct{ T time.Time }

// Now is the clock's time.
func (c *Clock) Now() time.Time { return c.T }

// TestCache is the conformance suite of web.Cache: a value put is
// read back until its ttl passes and not after, a later put replaces it,
// keys do not mix, and a missing key is a miss without error. newCache
// returns an empty cache that reads clock.
func TestCache(t *testing.T, newCache func(t *testing.T, clock *Clock) web.Cache) {
	ctx := context.Background()
	start := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	type step struct {
		put     bool
		key     string
		value   string
		advance time.Duration // clock moves before the step
		wantOK  bool          // for a get
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"missing key is a miss", []step{{key: "absent"}}},
		{"put then get", []step{{put: true, key: "a", value: "one"}, {key: "a", value: "one", wantOK: true}}},
		{"still there just before the ttl", []step{{put: true, key: "a", value: "one"}, {key: "a", value: "one", wantOK: true, advance: web.CacheTTL - time.Minute}}},
		{"gone after the ttl", []step{{put: true, key: "a", value: "one"}, {key: "a", advance: web.CacheTTL + time.Minute}}},
		{"a later put replaces", []step{{put: true, key: "a", value: "one"}, {put: true, key: "a", value: "two"}, {key: "a", value: "two", wantOK: true}}},
		{"keys do not mix", []step{{put: true, key: "a", value: "one"}, {key: "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &Clock{T: start}
			c := newCache(t, clock)
			prefix := uniqueKey(t)
			for i, s := range tt.steps {
				clock.T = clock.T.Add(s.advance)
				if s.put {
					if err := c.Put(ctx, prefix+s.key, []byte(s.value), web.CacheTTL); err != nil {
						t.Fatalf("step %d: Put: %v", i, err)
					}
					continue
				}
				got, ok, err := c.Get(ctx, prefix+s.key)
				if err != nil || ok != s.wantOK || (ok && !bytes.Equal(got, []byte(s.value))) {
					t.Errorf("step %d: Get(%q) = %q, %v, %v; want %q, %v, nil", i, s.key, got, ok, err, s.value, s.wantOK)
				}
			}
		})
	}
}

// uniqueKey keeps the cases apart on a shared table.
func uniqueKey(t *testing.T) string {
	return t.Name() + "/" + time.Now().Format(time.RFC3339Nano) + "/"
}
