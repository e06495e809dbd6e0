package turn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/files"
	"github.com/zero-gateway/zero/shared/model"
	filetools "github.com/zero-gateway/zero/shared/tools/files"
	memorytools "github.com/zero-gateway/zero/shared/tools/memory"
)

// memoryFileNote is what a refused write says, and what the flush's
// writing tools add to their description.
const memoryFileNote = "the pre-compaction memory flush may only write MEMORY.md and files under memory/"

// flushTools are the memory flush's tools, of the run's allowed tools:
// read, memory_search and memory_get as they are, and write, edit and
// apply_patch confined to the agent's memory files (memoryWrites). The
// others (message, sessions_*, cron, gateway, web_*, image,
// session_status, …) are left out.
func flushTools(allowed []agent.Tool) []agent.Tool {
	var out []agent.Tool
	for _, tl := range allowed {
		switch tl.Spec().Name {
		case filetools.ReadName, memorytools.SearchName, memorytools.GetName:
			out = append(out, tl)
		case filetools.WriteName:
			out = append(out, memoryWrites[filetools.WriteArgs]{inner: tl, paths: func(a filetools.WriteArgs) ([]string, error) { return []string{a.Path}, nil }})
		case filetools.EditName:
			out = append(out, memoryWrites[filetools.EditArgs]{inner: tl, paths: func(a filetools.EditArgs) ([]string, error) { return []string{a.Path}, nil }})
		case filetools.ApplyPatchName:
			out = append(out, memoryWrites[filetools.PatchArgs]{inner: tl, paths: filetools.PatchPaths})
		}
	}
	return out
}

// memoryWrites is a writing file tool confined to the memory files: a
// call whose paths (every file it would create, change, delete or move
// to) are not all memory files is refused with a tool error and writes
// nothing. The checked arguments are re-encoded and passed on, so the
// inner tool writes exactly the paths that were checked.
type memoryWrites[A any] struct {
	inner agent.Tool
	paths func(A) ([]string, error)
}

func (m memoryWrites[A]) Spec() model.ToolSpec {
	spec := m.inner.Spec()
	spec.Description += " Now " + memoryFileNote + "."
	return spec
}

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
