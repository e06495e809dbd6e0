package s3store

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
)

// TestConditionalWrites checks that the emulator (moto) honours
// If-None-Match: * and If-Match on PutObject and If-Match on DeleteObject,
// as S3 does.
func TestConditionalWrites(t *testing.T) {
	ctx := context.Background()
	b := New(testClient, freshBucket(t))
	first, err := b.Put(ctx, "ws/a.md", []byte("one\n"), "")
	if err != nil || first == "" {
		t.Fatalf("create = %q, %v; want an ETag", first, err)
	}
	steps := []struct {
		name string
		run  func() error
		want fault.Code // "" for success
	}{
		{"create over an existing key", func() error { _, err := b.Put(ctx, "ws/a.md", []byte("x"), ""); return err }, fault.Conflict},
		{"update with a stale ETag", func() error { _, err := b.Put(ctx, "ws/a.md", []byte("x"), `"0123"`); return err }, fault.Conflict},
		{"update with the current ETag", func() error { _, err := b.Put(ctx, "ws/a.md", []byte("two\n"), first); return err }, ""},
		{"second update with the same, now stale, ETag", func() error { _, err := b.Put(ctx, "ws/a.md", []byte("three\n"), first); return err }, fault.Conflict},
		{"update of a missing key", func() error { _, err := b.Put(ctx, "ws/gone.md", []byte("x"), first); return err }, fault.Conflict},
		{"delete with a stale ETag", func() error { return b.Delete(ctx, "ws/a.md", first) }, fault.Conflict},
	}
	for _, s := range steps {
		err := s.run()
		if s.want == "" && err != nil || s.want != "" && !fault.Is(err, s.want) {
			t.Errorf("%s: %v; want %q", s.name, err, s.want)
		}
	}
	obj, err := b.Fetch(ctx, "ws/a.md")
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if diff := cmp.Diff("two\n", string(obj.Data)); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if err := b.Delete(ctx, "ws/a.md", obj.ETag); err != nil {
		t.Fatalf("delete with the current ETag: %v", err)
	}
	if _, err := b.Fetch(ctx, "ws/a.md"); !fault.Is(err, fault.NotFound) {
		t.Errorf("Fetch after delete = %v; want NotFound", err)
	}
}

// TestConcurrentUpdatesOneWins: runs that read the same version and write
// If-Match it at once: exactly one wins, the others get fault.Conflict.
func TestConcurrentUpdatesOneWins(t *testing.T) {
	ctx := context.Background()
	b := New(testClient, freshBucket(t))
	etag, err := b.Put(ctx, "ws/f.md", []byte("v0"), "")
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, 6)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { _, errs[i] = b.Put(ctx, "ws/f.md", []byte(fmt.Sprint("run ", i)), etag) })
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("runs %d and %d both won", winner, i)
		case err == nil:
			winner = i
		case !fault.Is(err, fault.Conflict):
			t.Errorf("run %d: %v; want nil or fault.Conflict", i, err)
		}
	}
	if winner < 0 {
		t.Fatalf("no run won: %v", errs)
	}
	if obj, _ := b.Fetch(ctx, "ws/f.md"); string(obj.Data) != fmt.Sprint("run ", winner) {
		t.Errorf("object = %q; want the winner's", obj.Data)
	}
}
