package turn

import (
	"github.com/zero-gateway/zero/shared/agent"
	filetools "github.com/zero-gateway/zero/shared/tools/files"
	memorytools "github.com/zero-gateway/zero/shared/tools/memory"
)

// flushTools are the memory flush's tools, of the run's allowed tools:
// read, memory_search and memory_get as they are, and write, edit and
// apply_patch confined to the agent's memory files
// (filetools.MemoryOnly). The others (message, sessions_*, cron,
// gateway, web_*, image, session_status, …) are left out.
func flushTools(allowed []agent.Tool) []agent.Tool {
	var out []agent.Tool
	for _, tl := range allowed {
		switch tl.Spec().Name {
		case filetools.ReadName, memorytools.SearchName, memorytools.GetName:
			out = append(out, tl)
		default:
			if confined, ok := filetools.MemoryOnly(tl); ok {
				out = append(out, confined)
			}
		}
	}
	return out
}
