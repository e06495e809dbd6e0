package files

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zero-gateway/zero/shared/files"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools"
)

// memoryFileNote is what a refused write says, and what a memory-only
// tool adds to its description.
const memoryFileNote = "the pre-compaction memory flush may only write MEMORY.md and files under memory/"

// MemoryOnly is tl, the run's write, edit or apply_patch tool, confined
// to the agent's memory files (memoryFile): a call whose paths (every
// file it would create, change, delete or move to) are not all memory
// files is refused with a tool error and writes nothing; the checked
// arguments are re-encoded and passed on, so tl writes exactly the paths
// that were checked. ok is false for any other tool. The turn engine's
// pre-compaction memory flush writes through it.
func MemoryOnly(tl tools.Tool) (confined tools.Tool, ok bool) {
	switch tl.Spec().Name {
	case WriteName:
		return memoryWrites[WriteArgs]{inner: tl, paths: func(a WriteArgs) ([]string, error) { return []string{a.Path}, nil }}, true
	case EditName:
		return memoryWrites[EditArgs]{inner: tl, paths: func(a EditArgs) ([]string, error) { return []string{a.Path}, nil }}, true
	case ApplyPatchName:
		return memoryWrites[PatchArgs]{inner: tl, paths: PatchPaths}, true
	}
	return nil, false
}

// memoryWrites is a writing file tool confined to the memory files
// (MemoryOnly).
type memoryWrites[A any] struct {
	inner tools.Tool
	paths func(A) ([]string, error)
}

// Spec implements tools.Tool: the inner tool's, saying it is confined.
func (m memoryWrites[A]) Spec() model.ToolSpec {
	spec := m.inner.Spec()
	spec.Description += " Now " + memoryFileNote + "."
	return spec
}

// Run checks every path of the call, then runs the inner tool on the
// checked arguments.
func (m memoryWrites[A]) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	name := m.inner.Spec().Name
	var a A
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("%s: the arguments are not valid: %v", name, err)
	}
	paths, err := m.paths(a)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	for _, p := range paths {
		if !memoryFile(p) {
			return "", fmt.Errorf("%s refused: %s; %q is not one of them", name, memoryFileNote, p)
		}
	}
	checked, err := json.Marshal(a)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return m.inner.Run(ctx, checked)
}

// memoryFile reports whether path, exactly as the tool will use it, is
// one of the agent's memory files: MEMORY.md or a file under memory/.
// It must be a clean workspace path (files.Clean), so
// "memory/../AGENTS.md", "./MEMORY.md" or "/memory/x.md" are refused,
// never resolved.
func memoryFile(path string) bool {
	p, err := files.Clean(path)
	return err == nil && (p == "MEMORY.md" || strings.HasPrefix(p, "memory/"))
}
