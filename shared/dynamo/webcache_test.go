package dynamo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/tools/web"
	"github.com/zero-gateway/zero/shared/tools/web/webtest"
)

func TestWebCache(t *testing.T) {
	webtest.TestCache(t, func(t *testing.T, clock *webtest.Clock) web.Cache {
		s := New(testClient, testTable)
		s.now = clock.Now
		return s.WebCache()
	})
}

// TestWebCacheSkipsLargeValues: a value larger than an item can hold is
// not stored, and that is no error.
func TestWebCacheSkipsLargeValues(t *testing.T) {
	ctx := context.Background()
	c := New(testClient, testTable).WebCache()
	k := awstest.Name("large-")
	if err := c.Put(ctx, k, []byte(strings.Repeat("x", maxItemBytes)), time.Minute); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if _, ok, err := c.Get(ctx, k); ok || err != nil {
		t.Errorf("Get = %v, %v; want a miss", ok, err)
	}
}
