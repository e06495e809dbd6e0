package tooltest

import (
	"context"
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/memory"
	"github.com/zero-gateway/zero/shared/workspace"
)

// MemoryStore is a memory.Store over fixed objects, ETag the content.
type MemoryStore map[string]string

func (s MemoryStore) ListObjects(_ context.Context, prefix string) ([]workspace.Object, error) {
	var out []workspace.Object
	for k, v := range s {
		if strings.HasPrefix(k, prefix) {
			out = append(out, workspace.Object{Key: k, ETag: `"` + v + `"`, Size: int64(len(v))})
		}
	}
	slices.SortFunc(out, func(a, b workspace.Object) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

func (s MemoryStore) Get(_ context.Context, key string) ([]byte, error) {
	v, ok := s[key]
	if !ok {
		return nil, fault.New(fault.NotFound, "no %s", key)
	}
	return []byte(v), nil
}

// AgentMemory is the main agent's memory: MEMORY.md on Alice, a dated
// note on the dentist, and an AGENTS.md that is not memory.
func AgentMemory() *memory.Index {
	return memory.NewIndex(MemoryStore{
		"agents/main/workspace/MEMORY.md":            "# Memory\n\nThe user's sister Alice lives in Lisbon.\n",
		"agents/main/workspace/memory/2026-11-20.md": "Called the dentist: Friday at 10:00.\n",
		"agents/main/workspace/AGENTS.md":            "The dentist is not memory.\n",
	})
}
