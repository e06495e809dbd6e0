package memory

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/workspace"
)

// Store is where the workspace lives: a listing with ETags and sizes and
// whole-object reads (shared/s3store's Bucket; its ListObjects is one
// ListObjectsV2 call per 1,000 keys).
type Store interface {
	// ListObjects returns every object under prefix with its ETag and
	// size; a missing prefix is an empty listing or a fault.NotFound.
	ListObjects(ctx context.Context, prefix string) ([]workspace.Object, error)
	// Get returns the whole object, or a fault.NotFound error.
	Get(ctx context.Context, key string) ([]byte, error)
}

// Index is the memory of every agent of a Lambda instance: per agent, the
// memory files as last read and their BM25 corpus. Every Search or Get
// lists the agent's memory files (MEMORY.md and memory/) and reuses what
// it holds when no ETag or size changed; otherwise it reads only the new
// and changed files and rebuilds that agent's corpus. Safe for concurrent
// use; one agent refreshes at a time.
type Index struct {
	store Store

	mu     sync.Mutex
	agents map[string]*agentIndex
}

// agentIndex is one agent's cached memory.
type agentIndex struct {
	mu     sync.Mutex      // held during a refresh
	files  map[string]file // by workspace path
	corpus *corpus
	builds int // corpora built, for tests
}

// file is a memory file as last read.
type file struct {
	etag    string
	size    int64
	content string
}

// NewIndex returns an empty Index over store.
func NewIndex(store Store) *Index {
	return &Index{store: store, agents: map[string]*agentIndex{}}
}

// load brings the agent's memory up to date and returns its files and
// corpus, which the caller must not modify. An empty agentID is
// fault.Invalid; a storage failure is returned wrapped.
func (x *Index) load(ctx context.Context, agentID string) (map[string]file, *corpus, error) {
	if agentID == "" {
		return nil, nil, fault.New(fault.Invalid, "memory: no agent id")
	}
	ai := x.agent(agentID)
	ai.mu.Lock()
	defer ai.mu.Unlock()
	listed, err := x.list(ctx, agentID)
	if err != nil {
		return nil, nil, err
	}
	if ai.corpus != nil && unchanged(ai.files, listed) {
		return ai.files, ai.corpus, nil
	}
	files, err := x.read(ctx, workspace.Prefix(agentID), ai.files, listed)
	if err != nil {
		return nil, nil, err
	}
	ai.files, ai.corpus = files, build(files)
	ai.builds++
	return ai.files, ai.corpus, nil
}

// agent returns the agent's cache entry, creating it empty.
func (x *Index) agent(agentID string) *agentIndex {
	x.mu.Lock()
	defer x.mu.Unlock()
	ai, ok := x.agents[agentID]
	if !ok {
		ai = &agentIndex{}
		x.agents[agentID] = ai
	}
	return ai
}

// list returns the agent's memory files (by workspace path), within
// MaxFiles: one listing of the workspace prefix (one ListObjectsV2 call up
// to 1,000 workspace objects), of which only memory files are kept.
func (x *Index) list(ctx context.Context, agentID string) (map[string]workspace.Object, error) {
	prefix := workspace.Prefix(agentID)
	objs, err := x.store.ListObjects(ctx, prefix)
	if err != nil && !fault.Is(err, fault.NotFound) {
		return nil, fault.Wrap(fault.CodeOf(err), err, "memory: list %s", prefix)
	}
	out := map[string]workspace.Object{}
	for _, o := range objs {
		p, ok := strings.CutPrefix(o.Key, prefix)
		if ok && IsMemoryPath(p) && len(out) < MaxFiles {
			out[p] = o
		}
	}
	return out, nil
}

// unchanged reports whether the listing names exactly the cached files
// with the same ETags and sizes; a file without an ETag counts as changed.
func unchanged(files map[string]file, listed map[string]workspace.Object) bool {
	if len(files) != len(listed) {
		return false
	}
	for p, o := range listed {
		f, ok := files[p]
		if !ok || o.ETag == "" || f.etag != o.ETag || f.size != o.Size {
			return false
		}
	}
	return true
}

// read returns the listed files, reusing the cached content of those whose
// ETag and size did not change and getting the others. A file deleted
// since the listing is left out. Content is cut at MaxFileBytes, and files
// (in path order) stop once MaxTotalBytes is reached.
func (x *Index) read(ctx context.Context, prefix string, cached map[string]file, listed map[string]workspace.Object) (map[string]file, error) {
	out := make(map[string]file, len(listed))
	total := 0
	for _, p := range slices.Sorted(maps.Keys(listed)) {
		o := listed[p]
		f, ok := cached[p]
		if !ok || o.ETag == "" || f.etag != o.ETag || f.size != o.Size {
			data, err := x.store.Get(ctx, prefix+p)
			if fault.Is(err, fault.NotFound) {
				continue
			}
			if err != nil {
				return nil, fault.Wrap(fault.CodeOf(err), err, "memory: read %s", p)
			}
			f = file{etag: o.ETag, size: o.Size, content: string(data[:min(len(data), MaxFileBytes)])}
		}
		if total+len(f.content) > MaxTotalBytes {
			break
		}
		total += len(f.content)
		out[p] = f
	}
	return out, nil
}

// build chunks the files in path order and indexes them.
func build(files map[string]file) *corpus {
	var chunks []chunk
	for _, p := range slices.Sorted(maps.Keys(files)) {
		chunks = append(chunks, chunkFile(p, files[p].content)...)
	}
	return newCorpus(chunks)
}
