package memory

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/workspace"
)

// fakeStore is an in-memory Store with S3-like ETags (the MD5 of the
// content) that counts its calls.
type fakeStore struct {
	mu      sync.Mutex
	objects map[string]string
	lists   int
	gets    []string
}

// fixtureStore is a fakeStore holding testdata/workspace as agent's
// workspace.
func fixtureStore(t *testing.T, agent string) *fakeStore {
	t.Helper()
	s := &fakeStore{objects: map[string]string{}}
	root := filepath.Join("testdata", "workspace")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		s.objects[workspace.Prefix(agent)+filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatalf("read fixture workspace: %v", err)
	}
	return s
}

func (s *fakeStore) put(key, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objects[key] = content
}

func (s *fakeStore) ListObjects(_ context.Context, prefix string) ([]workspace.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	var out []workspace.Object
	for k, v := range s.objects {
		if strings.HasPrefix(k, prefix) {
			sum := md5.Sum([]byte(v))
			out = append(out, workspace.Object{Key: k, ETag: `"` + hex.EncodeToString(sum[:]) + `"`, Size: int64(len(v))})
		}
	}
	slices.SortFunc(out, func(a, b workspace.Object) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

func (s *fakeStore) Get(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets = append(s.gets, key)
	v, ok := s.objects[key]
	if !ok {
		return nil, fault.New(fault.NotFound, "no object %s", key)
	}
	return []byte(v), nil
}
