package workspace

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/transcript"
)

// Every transcript.Bucket — shared/s3store's Bucket and the in-memory one —
// is a Store, so the S3 adapter needs no change to serve workspaces.
var _ Store = transcript.Bucket(nil)

// memStore is an in-memory Store that counts its calls.
type memStore struct {
	mu      sync.Mutex
	objects map[string][]byte
	ghosts  map[string]bool // listed, but a Get finds nothing (deleted meanwhile)
	listErr error
	getErr  error
	lists   int
	gets    int
}

func newMemStore() *memStore {
	return &memStore{objects: map[string][]byte{}, ghosts: map[string]bool{}}
}

func (s *memStore) put(key, data string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objects[key] = []byte(data)
}

func (s *memStore) remove(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.objects, key)
}

func (s *memStore) fail(listErr, getErr error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listErr, s.getErr = listErr, getErr
}

// calls returns and resets the call counts.
func (s *memStore) calls() (lists, gets int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lists, gets = s.lists, s.gets
	s.lists, s.gets = 0, 0
	return lists, gets
}

func (s *memStore) keys(prefix string) []string {
	var keys []string
	for k := range s.objects {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	for k := range s.ghosts {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func (s *memStore) List(_ context.Context, prefix string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	if s.listErr != nil {
		return nil, s.listErr
	}
	return s.keys(prefix), nil
}

func (s *memStore) Get(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets++
	if s.getErr != nil {
		return nil, s.getErr
	}
	data, ok := s.objects[key]
	if !ok {
		return nil, fault.New(fault.NotFound, "object %s not found", key)
	}
	return slices.Clone(data), nil
}

// etagStore is a memStore whose listing carries S3-like ETags (the MD5 of
// the content) and sizes.
type etagStore struct{ *memStore }

var _ ObjectLister = etagStore{}

func (s etagStore) ListObjects(_ context.Context, prefix string) ([]Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	if s.listErr != nil {
		return nil, s.listErr
	}
	var out []Object
	for _, k := range s.keys(prefix) {
		sum := md5.Sum(s.objects[k])
		out = append(out, Object{Key: k, ETag: `"` + hex.EncodeToString(sum[:]) + `"`, Size: int64(len(s.objects[k]))})
	}
	return out, nil
}

// loadDir puts every file under dir into s under prefix.
func loadDir(t *testing.T, s *memStore, dir, prefix string) {
	t.Helper()
	err := fs.WalkDir(os.DirFS(dir), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(dir + "/" + path)
		if err != nil {
			return err
		}
		s.put(prefix+path, string(data))
		return nil
	})
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
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
