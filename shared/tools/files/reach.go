package files

import (
	"encoding/json"
	"strings"

	wsfiles "github.com/zero-gateway/zero/shared/files"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/workspace"
)

// Protected reports whether a workspace path is one every later prompt
// reads as the operator's instructions: a bootstrap file other than
// MEMORY.md (AGENTS.md, SOUL.md, TOOLS.md, IDENTITY.md, USER.md,
// HEARTBEAT.md, BOOTSTRAP.md) or anything under skills/. MEMORY.md is
// the agent's own curated memory and stays writable.
func Protected(path string) bool {
	p, err := wsfiles.Clean(path)
	if err != nil {
		return false // the tool refuses the path itself
	}
	if p == "skills" || strings.HasPrefix(p, "skills/") {
		return true
	}
	for _, b := range workspace.BootstrapFiles {
		if b != workspace.MemoryFile && strings.EqualFold(p, b) {
			return true
		}
	}
	return false
}

// WriteReach is the reach of a write or edit call: the bootstrap and
// skill files when its path is Protected, else nothing.
func WriteReach(_ tools.Run, raw json.RawMessage) tools.Reach {
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return 0 // the tool refuses the arguments itself
	}
	if Protected(a.Path) {
		return tools.ReachBootstrap
	}
	return 0
}

// PatchReach is the reach of an apply_patch call: the bootstrap and
// skill files when any path it writes (a move's destination included) is
// Protected.
func PatchReach(_ tools.Run, raw json.RawMessage) tools.Reach {
	var a PatchArgs
	if json.Unmarshal(raw, &a) != nil {
		return 0
	}
	paths, err := PatchPaths(a)
	if err != nil {
		return 0 // the tool refuses the patch itself
	}
	for _, p := range paths {
		if Protected(p) {
			return tools.ReachBootstrap
		}
	}
	return 0
}
