// Package filestest holds the conformance suite every files.Store
// implementation runs (shared/s3store's Bucket on the emulator, MemStore
// here), and MemStore, an in-memory files.Store for unit tests of the file
// tools.
package filestest

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/files"
)

// op is one call of a suite case, on key k of the case's namespace.
type op struct {
	do  string // "put", "delete" or "fetch"
	key string
	// data of a put.
	data string
	// ifMatch of a put or delete: an ETag an earlier op got, by that op's
	// index ("#0" is the ETag the first op returned or fetched), or a
	// literal one ("" for a create, `"stale"` for one no object has).
	ifMatch string
	want    fault.Code // "" for success
}

// TestStore checks the files.Store contract: every write is conditional,
// a failed condition is fault.Conflict and changes nothing, a missing
// object is fault.NotFound. newStore may return the same backing store
// every time: each case keeps to keys under a prefix of its own.
//
// ETags are opaque: the suite only compares an ETag with the one the
// store answered for the same object, and never assumes that two writes
// of different objects have different ETags or that rewriting the same
// bytes changes the ETag (S3's ETag of a plain put is the content's MD5).
func TestStore(t *testing.T, newStore func(t *testing.T) files.Store) {
	tests := []struct {
		name string
		ops  []op
		// want is the stored content of every key the case names at the
		// end; "" means the key holds no object.
		want map[string]string
	}{
		{
			name: "fetch of a missing key is not found",
			ops:  []op{{do: "fetch", key: "a.md", want: fault.NotFound}},
			want: map[string]string{"a.md": ""},
		},
		{
			name: "create, then fetch gives the content and the create's ETag",
			ops:  []op{{do: "put", key: "a.md", data: "one\n"}, {do: "fetch", key: "a.md"}},
			want: map[string]string{"a.md": "one\n"},
		},
		{
			name: "create over an existing object is a conflict and changes nothing",
			ops:  []op{{do: "put", key: "a.md", data: "one\n"}, {do: "put", key: "a.md", data: "two\n", want: fault.Conflict}},
			want: map[string]string{"a.md": "one\n"},
		},
		{
			name: "update with the current ETag replaces the content",
			ops:  []op{{do: "put", key: "a.md", data: "one\n"}, {do: "put", key: "a.md", data: "two\n", ifMatch: "#0"}, {do: "fetch", key: "a.md"}},
			want: map[string]string{"a.md": "two\n"},
		},
		{
			name: "update with the ETag a fetch answered",
			ops:  []op{{do: "put", key: "a.md", data: "one\n"}, {do: "fetch", key: "a.md"}, {do: "put", key: "a.md", data: "two\n", ifMatch: "#1"}},
			want: map[string]string{"a.md": "two\n"},
		},
		{
			name: "update with an ETag the object never had is a conflict",
			ops:  []op{{do: "put", key: "a.md", data: "one\n"}, {do: "put", key: "a.md", data: "two\n", ifMatch: `"stale"`, want: fault.Conflict}},
			want: map[string]string{"a.md": "one\n"},
		},
		{
			name: "update with an ETag the object had before another write is a conflict",
			ops: []op{
				{do: "put", key: "a.md", data: "one\n"},
				{do: "put", key: "a.md", data: "two\n", ifMatch: "#0"},
				{do: "put", key: "a.md", data: "three\n", ifMatch: "#0", want: fault.Conflict},
			},
			want: map[string]string{"a.md": "two\n"},
		},
		{
			name: "update of a missing key is a conflict and creates nothing",
			ops: []op{
				{do: "put", key: "a.md", data: "one\n"},
				{do: "put", key: "b.md", data: "x", ifMatch: "#0", want: fault.Conflict},
			},
			want: map[string]string{"a.md": "one\n", "b.md": ""},
		},
		{
			name: "delete with the current ETag removes the object",
			ops:  []op{{do: "put", key: "a.md", data: "one\n"}, {do: "delete", key: "a.md", ifMatch: "#0"}, {do: "fetch", key: "a.md", want: fault.NotFound}},
			want: map[string]string{"a.md": ""},
		},
		{
			name: "delete with a stale ETag is a conflict and keeps the object",
			ops: []op{
				{do: "put", key: "a.md", data: "one\n"},
				{do: "put", key: "a.md", data: "two\n", ifMatch: "#0"},
				{do: "delete", key: "a.md", ifMatch: "#0", want: fault.Conflict},
			},
			want: map[string]string{"a.md": "two\n"},
		},
		{
			name: "delete of a missing key is not found",
			ops:  []op{{do: "delete", key: "a.md", ifMatch: `"stale"`, want: fault.NotFound}},
			want: map[string]string{"a.md": ""},
		},
		{
			name: "a deleted key can be created again, and its old ETag no longer deletes",
			ops: []op{
				{do: "put", key: "a.md", data: "one\n"},
				{do: "delete", key: "a.md", ifMatch: "#0"},
				{do: "put", key: "a.md", data: "again\n"},
				{do: "delete", key: "a.md", ifMatch: "#0", want: fault.Conflict},
			},
			want: map[string]string{"a.md": "again\n"},
		},
		{
			name: "keys are exact: a prefix or an extension of a key is another object",
			ops: []op{
				{do: "put", key: "notes/a.md", data: "a"},
				{do: "put", key: "notes/a.md.bak", data: "bak"},
				{do: "put", key: "notes", data: "file named like the folder"},
				{do: "delete", key: "notes/a.md", ifMatch: "#0"},
			},
			want: map[string]string{"notes/a.md": "", "notes/a.md.bak": "bak", "notes": "file named like the folder"},
		},
		{
			name: "an empty file round-trips",
			ops:  []op{{do: "put", key: "empty", data: ""}, {do: "fetch", key: "empty"}, {do: "put", key: "empty", data: "now some", ifMatch: "#1"}},
			want: map[string]string{"empty": "now some"},
		},
		{
			name: "content round-trips byte for byte",
			ops: []op{
				{do: "put", key: "odd.txt", data: "ü 😀 \r\n\x00\xff trailing spaces   \n\n"},
				{do: "put", key: "big.md", data: strings.Repeat("0123456789abcde\n", files.MaxFileBytes/16)},
			},
			want: map[string]string{"odd.txt": "ü 😀 \r\n\x00\xff trailing spaces   \n\n", "big.md": strings.Repeat("0123456789abcde\n", files.MaxFileBytes/16)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s, p := newStore(t), prefix(t)
			etags := make([]string, len(tt.ops))
			for i, o := range tt.ops {
				ifMatch := o.ifMatch
				if ref, ok := strings.CutPrefix(ifMatch, "#"); ok {
					j, err := strconv.Atoi(ref)
					if err != nil || j >= i {
						t.Fatalf("op %d: if-match %s names no earlier op", i, ifMatch)
					}
					ifMatch = etags[j]
				}
				var err error
				switch o.do {
				case "put":
					etags[i], err = s.Put(ctx, p+o.key, []byte(o.data), ifMatch)
					if err == nil && etags[i] == "" {
						t.Errorf("op %d: put %s answered no ETag", i, o.key)
					}
				case "delete":
					err = s.Delete(ctx, p+o.key, ifMatch)
				case "fetch":
					var obj files.Object
					obj, err = s.Fetch(ctx, p+o.key)
					etags[i] = obj.ETag
					if err == nil && i > 0 && tt.ops[i-1].do == "put" && tt.ops[i-1].key == o.key && obj.ETag != etags[i-1] {
						t.Errorf("op %d: fetch %s answered ETag %s; want %s, the one its put answered", i, o.key, obj.ETag, etags[i-1])
					}
				}
				if got := fault.CodeOf(err); err != nil && got != o.want || err == nil && o.want != "" {
					t.Fatalf("op %d: %s %s (if-match %q) = %v (code %q); want code %q", i, o.do, o.key, ifMatch, err, got, o.want)
				}
			}
			got := map[string]string{}
			for k := range tt.want {
				got[k] = content(t, s, p+k)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("stored content (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("concurrent updates of one version: exactly one wins", func(t *testing.T) {
		ctx := context.Background()
		s, key := newStore(t), prefix(t)+"f.md"
		etag, err := s.Put(ctx, key, []byte("v0"), "")
		if err != nil {
			t.Fatal(err)
		}
		errs := make([]error, 6)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() { _, errs[i] = s.Put(ctx, key, []byte(fmt.Sprint("run ", i)), etag) })
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
		if diff := cmp.Diff(fmt.Sprint("run ", winner), content(t, s, key)); diff != "" {
			t.Errorf("content (-want the winner's +got):\n%s", diff)
		}
	})

	t.Run("concurrent creates of one key: exactly one wins", func(t *testing.T) {
		ctx := context.Background()
		s, key := newStore(t), prefix(t)+"new.md"
		errs := make([]error, 6)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() { _, errs[i] = s.Put(ctx, key, []byte(fmt.Sprint("run ", i)), "") })
		}
		wg.Wait()
		var won []int
		for i, err := range errs {
			if err == nil {
				won = append(won, i)
			} else if !fault.Is(err, fault.Conflict) {
				t.Errorf("run %d: %v; want nil or fault.Conflict", i, err)
			}
		}
		if len(won) != 1 {
			t.Fatalf("runs %v won; want exactly one (%v)", won, errs)
		}
		if diff := cmp.Diff(fmt.Sprint("run ", won[0]), content(t, s, key)); diff != "" {
			t.Errorf("content (-want the winner's +got):\n%s", diff)
		}
	})
}

// prefix is a key prefix no other subtest uses, so a shared store works.
func prefix(t *testing.T) string {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, t.Name())
	return "suite/" + safe + "/"
}

// content is key's stored content, "" when it holds no object.
func content(t *testing.T, s files.Store, key string) string {
	t.Helper()
	obj, err := s.Fetch(context.Background(), key)
	if fault.Is(err, fault.NotFound) {
		return ""
	}
	if err != nil {
		t.Fatalf("fetch %s: %v", key, err)
	}
	if obj.ETag == "" {
		t.Errorf("fetch %s answered no ETag", key)
	}
	return string(obj.Data)
}

// MemStore is an in-memory files.Store with S3's conditional semantics:
// its ETags are quoted write counters, so every write gets a new one.
// Safe for concurrent use.
type MemStore struct {
	mu     sync.Mutex
	objs   map[string]files.Object
	writes int
}

var _ files.Store = (*MemStore)(nil)

// NewMemStore returns a store holding contents, by key.
func NewMemStore(contents map[string]string) *MemStore {
	m := &MemStore{}
	for k, v := range contents {
		m.Seed(k, v)
	}
	return m
}

// Seed stores data at key unconditionally, as an operator's upload would.
func (m *MemStore) Seed(key, data string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.put(key, []byte(data))
}

// Content is key's content, ok=false when key holds no object.
func (m *MemStore) Content(key string) (data string, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objs[key]
	return string(o.Data), ok
}

// Fetch implements files.Store.
func (m *MemStore) Fetch(_ context.Context, key string) (files.Object, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objs[key]
	if !ok {
		return files.Object{}, fault.New(fault.NotFound, "object %s not found", key)
	}
	return files.Object{Data: bytes.Clone(o.Data), ETag: o.ETag}, nil
}

// Put implements files.Store.
func (m *MemStore) Put(_ context.Context, key string, data []byte, ifMatch string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objs[key]
	if ifMatch == "" && ok || ifMatch != "" && (!ok || o.ETag != ifMatch) {
		return "", fault.New(fault.Conflict, "object %s: the write's condition failed", key)
	}
	return m.put(key, data), nil
}

// Delete implements files.Store.
func (m *MemStore) Delete(_ context.Context, key, ifMatch string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objs[key]
	switch {
	case !ok:
		return fault.New(fault.NotFound, "object %s not found", key)
	case o.ETag != ifMatch:
		return fault.New(fault.Conflict, "object %s changed before its delete", key)
	}
	delete(m.objs, key)
	return nil
}

// put stores a copy of data at key under a new ETag; m.mu is held.
func (m *MemStore) put(key string, data []byte) string {
	if m.objs == nil {
		m.objs = map[string]files.Object{}
	}
	m.writes++
	etag := fmt.Sprintf("%q", fmt.Sprint(m.writes))
	m.objs[key] = files.Object{Data: bytes.Clone(data), ETag: etag}
	return etag
}
