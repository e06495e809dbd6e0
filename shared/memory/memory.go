// Package memory is the agent's searchable memory: the workspace's
// MEMORY.md and memory/**/*.md, cut into chunks with their line ranges and
// ranked by BM25 for memory_search, and read by line range for memory_get.
//
// It is core: the files come from object storage through Store (the
// workspace's keys, with ETags), which shared/s3store's Bucket satisfies.
// An Index keeps each agent's chunks for the Lambda instance and rebuilds
// them only when the listing shows a memory file added, removed or changed.
package memory

import (
	"path"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/workspace"
)

// Dir is the workspace folder of dated and topical memory notes; every
// .md file under it, at any depth, is a memory file, as is
// workspace.MemoryFile (MEMORY.md) at the workspace root.
const Dir = "memory/"

// Limits of what an agent's index holds. A memory file over MaxFileBytes
// is indexed up to that size; files beyond MaxFiles (in key order) and
// bytes beyond MaxTotalBytes are left out of the index.
const (
	MaxFiles      = 1_000
	MaxFileBytes  = 1 << 20 // 1 MiB
	MaxTotalBytes = 8 << 20 // 8 MiB
)

// IsMemoryPath reports whether a workspace path is a memory file:
// MEMORY.md, or a .md file under memory/. The path must already be clean
// (see CleanPath); the test is case-sensitive, like S3 keys.
func IsMemoryPath(p string) bool {
	if p == workspace.MemoryFile {
		return true
	}
	rest, ok := strings.CutPrefix(p, Dir)
	return ok && rest != "" && strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, "/.md")
}

// CleanPath checks a path a model gave for memory_get and returns it in
// workspace form ("memory/2026-01-02.md"). A leading "./" is accepted. An
// absolute path, a ".." or "." segment, an empty segment, a backslash or
// control character, or any path that is not a memory file is
// fault.Invalid: memory_get reads nothing else.
func CleanPath(raw string) (string, error) {
	p := strings.TrimPrefix(strings.TrimSpace(raw), "./")
	switch {
	case p == "":
		return "", fault.New(fault.Invalid, "memory: no path")
	case strings.HasPrefix(p, "/"):
		return "", fault.New(fault.Invalid, "memory: %q is absolute; give a workspace path like MEMORY.md or memory/<file>.md", raw)
	case strings.ContainsAny(p, "\\\x00") || strings.ContainsFunc(p, isControl):
		return "", fault.New(fault.Invalid, "memory: %q has a backslash or control character", raw)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", fault.New(fault.Invalid, "memory: %q has an empty, \".\" or \"..\" segment", raw)
		}
	}
	if path.Clean(p) != p || !IsMemoryPath(p) {
		return "", fault.New(fault.Invalid, "memory: %q is not a memory file (MEMORY.md or memory/**/*.md)", raw)
	}
	return p, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
