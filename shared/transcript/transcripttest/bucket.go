// Package transcripttest holds the conformance suite every transcript.Bucket
// implementation runs, and an in-memory Bucket for unit tests of the core.
package transcripttest

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/transcript"
)

// TestBucket checks the transcript.Bucket contract. newBucket must return an
// empty bucket (or one whose keys cannot collide with a fresh random prefix:
// the suite namespaces its keys per subtest).
func TestBucket(t *testing.T, newBucket func(t *testing.T) transcript.Bucket) {
	ctx := context.Background()
	prefix := func(t *testing.T) string { return "suite/" + strings.ReplaceAll(t.Name(), "/", "_") + "/" }

	t.Run("create then get", func(t *testing.T) {
		b, p := newBucket(t), prefix(t)
		want := []byte("{\"a\":1}\n")
		if err := b.Create(ctx, p+"k", want); err != nil {
			t.Fatalf("Create: %v", err)
		}
		got, err := b.Get(ctx, p+"k")
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Get = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("create is create-only", func(t *testing.T) {
		b, p := newBucket(t), prefix(t)
		if err := b.Create(ctx, p+"k", []byte("first")); err != nil {
			t.Fatalf("Create: %v", err)
		}
		err := b.Create(ctx, p+"k", []byte("second"))
		if !fault.Is(err, fault.Conflict) {
			t.Fatalf("second Create = %v; want a fault.Conflict error", err)
		}
		got, _ := b.Get(ctx, p+"k")
		if string(got) != "first" {
			t.Fatalf("after conflicting Create, Get = %q; want the first body", got)
		}
	})
	t.Run("get missing is not found", func(t *testing.T) {
		b, p := newBucket(t), prefix(t)
		if _, err := b.Get(ctx, p+"missing"); !fault.Is(err, fault.NotFound) {
			t.Fatalf("Get missing = %v; want fault.NotFound", err)
		}
	})
	t.Run("list by prefix in lexical order", func(t *testing.T) {
		b, p := newBucket(t), prefix(t)
		for _, k := range []string{"x.d/0000000002.jsonl", "x.d/0000000010.jsonl", "x.d/0000000001.jsonl", "y.d/0000000001.jsonl"} {
			if err := b.Create(ctx, p+k, []byte(k)); err != nil {
				t.Fatalf("Create %s: %v", k, err)
			}
		}
		got, err := b.List(ctx, p+"x.d/")
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		want := []string{p + "x.d/0000000001.jsonl", p + "x.d/0000000002.jsonl", p + "x.d/0000000010.jsonl"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("List = %v; want %v", got, want)
		}
		if got, _ := b.List(ctx, p+"none/"); len(got) != 0 {
			t.Fatalf("List of empty prefix = %v; want none", got)
		}
	})
	t.Run("log reads parts as one stream", func(t *testing.T) {
		b, p := newBucket(t), prefix(t)
		log := transcript.NewLog(b)
		path := p + transcript.Path("main", "s1", "")
		for seq := int64(1); seq <= 12; seq++ {
			if err := log.WritePart(ctx, path, seq, []any{map[string]int64{"seq": seq}}); err != nil {
				t.Fatalf("WritePart %d: %v", seq, err)
			}
		}
		stream, err := log.Read(ctx, path)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		var want strings.Builder
		for seq := 1; seq <= 12; seq++ {
			fmt.Fprintf(&want, "{\"seq\":%d}\n", seq)
		}
		if string(stream) != want.String() {
			t.Fatalf("Read =\n%s\nwant\n%s", stream, want.String())
		}
	})
}

// MemBucket is an in-memory transcript.Bucket. Safe for concurrent use.
type MemBucket struct {
	mu      sync.Mutex
	objects map[string][]byte
	// Calls counts every method call, to assert how often the core reads.
	Calls int
}

// NewMemBucket returns an empty bucket.
func NewMemBucket() *MemBucket { return &MemBucket{objects: map[string][]byte{}} }

// Create implements transcript.Bucket.
func (m *MemBucket) Create(_ context.Context, key string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	if _, ok := m.objects[key]; ok {
		return fault.New(fault.Conflict, "object %s exists", key)
	}
	m.objects[key] = append([]byte(nil), data...)
	return nil
}

// Get implements transcript.Bucket.
func (m *MemBucket) Get(_ context.Context, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	data, ok := m.objects[key]
	if !ok {
		return nil, fault.New(fault.NotFound, "object %s not found", key)
	}
	return append([]byte(nil), data...), nil
}

// List implements transcript.Bucket.
func (m *MemBucket) List(_ context.Context, prefix string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	var keys []string
	for k := range m.objects {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// Delete removes every object with the prefix (tests use it to simulate a
// user deleting a transcript).
func (m *MemBucket) Delete(prefix string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.objects {
		if strings.HasPrefix(k, prefix) {
			delete(m.objects, k)
		}
	}
}

// Remove implements transcript.Remover.
func (m *MemBucket) Remove(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.objects, key)
	return nil
}
