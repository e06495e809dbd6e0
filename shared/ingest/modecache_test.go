package ingest_test

import (
	"context"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/ingest"
)

// TestCachedModes: a session's mode is read once per TTL, per session; a
// failed read is not kept.
func TestCachedModes(t *testing.T) {
	store := &steeringStops{modes: map[string]string{"a": "steer", "b": "interrupt"}}
	now := testNow
	c := ingest.NewCachedModes(store, 30*time.Second, func() time.Time { return now })
	ctx := context.Background()
	steps := []struct {
		name      string
		key       string
		after     time.Duration
		want      string
		wantReads int
	}{
		{"first read", "a", 0, "steer", 1},
		{"cached", "a", 10 * time.Second, "steer", 1},
		{"another session", "b", 0, "interrupt", 2},
		{"expired", "a", 25 * time.Second, "steer", 3},
	}
	for _, s := range steps {
		now = now.Add(s.after)
		got, err := c.SessionQueueMode(ctx, s.key)
		if err != nil || got != s.want || store.reads != s.wantReads {
			t.Fatalf("%s: %q, %v after %d reads; want %q after %d", s.name, got, err, store.reads, s.want, s.wantReads)
		}
	}
	store.modes["a"] = "collect"
	now = now.Add(31 * time.Second)
	if got, _ := c.SessionQueueMode(ctx, "a"); got != "collect" {
		t.Errorf("a changed mode reads %q after the TTL, want collect", got)
	}
}
