// Package workspace is the agent's workspace as the system prompt sees it:
// the bootstrap files (AGENTS.md, SOUL.md, …) and skills kept in object
// storage under agents/<agentId>/workspace/, loaded with a per-agent cache
// (Loader), and the assembly of the system prompt from ZERO's base prompt,
// the tools section, the skills list, the bootstrap files and the per-run
// overrides (Assemble), with a Report of what each part costs — the text
// of /context list and /context detail.
//
// It is core: storage comes in through Store, which shared/s3store's
// Bucket already satisfies.
//
// Sizes are counted in characters (Unicode code points), like the limits;
// a token is estimated as four characters, rounded up.
package workspace

import (
	"strings"
	"time"
)

// The bootstrap files: workspace files injected into every run's system
// prompt when present, in BootstrapFiles order.
const (
	AgentsFile    = "AGENTS.md"    // operating instructions: rules, priorities, workflows
	SoulFile      = "SOUL.md"      // persona, tone and boundaries
	ToolsFile     = "TOOLS.md"     // the user's notes on tools and conventions
	IdentityFile  = "IDENTITY.md"  // the agent's name, vibe, presentation
	UserFile      = "USER.md"      // who the user is and how to address them
	HeartbeatFile = "HEARTBEAT.md" // the heartbeat checklist
	BootstrapFile = "BOOTSTRAP.md" // the first-run ritual; the agent deletes it when done
	MemoryFile    = "MEMORY.md"    // curated long-term memory
)

// BootstrapFiles are the injected workspace files in prompt order. No other
// workspace file reaches the prompt unless a BootstrapHook adds it.
var BootstrapFiles = [...]string{AgentsFile, SoulFile, ToolsFile, IdentityFile, UserFile, HeartbeatFile, BootstrapFile, MemoryFile}

// SkillFile is the file of a skill: skills/<folder>/SKILL.md in the
// workspace. Only its front matter (name, description) reaches the prompt.
const SkillFile = "SKILL.md"

// SkillsDir is the workspace folder holding one folder per skill.
const SkillsDir = "skills/"

// Default limits of the assembled prompt, in characters. A file over its
// limit is cut in the middle with a visible marker (the marker counts
// toward the limit); once the files together reach MaxTotalChars, the
// remaining files are cut to what is left or, when too little is left,
// omitted.
const (
	MaxFileChars             = 20_000 // one bootstrap file
	MaxTotalChars            = 60_000 // all bootstrap files together
	MaxSkillsChars           = 20_000 // the skills list section
	MaxSkillDescriptionChars = 1_024  // one skill's description (the Agent Skills cap)
)

// DefaultTTL is how long a Loader reuses an agent's workspace before it
// lists the workspace again.
const DefaultTTL = 60 * time.Second

// Prefix is the object key prefix of an agent's workspace; a workspace
// file's key is Prefix(agentID) + its Name.
func Prefix(agentID string) string { return "agents/" + agentID + "/workspace/" }

// File is a workspace file as the prompt sees it.
type File struct {
	// Name is the path inside the workspace ("AGENTS.md"); it heads the
	// file in the prompt. A file a hook adds may use any name.
	Name    string `json:"name"`
	Content string `json:"content"`
}

// Skill is a skill's entry in the skills list: its SKILL.md front matter,
// not its body, which the model reads on demand.
type Skill struct {
	Name        string `json:"name"`                  // front matter name, else the folder name
	Description string `json:"description,omitempty"` // front matter description, on one line
	Path        string `json:"path"`                  // inside the workspace: skills/<folder>/SKILL.md
}

// Files is an agent's loaded workspace. The zero value is an empty
// workspace.
type Files struct {
	Bootstrap []File  `json:"bootstrap,omitempty"` // present bootstrap files in BootstrapFiles order, after the hooks
	Skills    []Skill `json:"skills,omitempty"`    // in folder order
}

// BootstrapHook is the agent:bootstrap internal hook: it runs on every
// Load, after the workspace is read and before the prompt is assembled, and
// returns the bootstrap files to inject — it may add, remove, reorder or
// rewrite them. It gets its own copy of the slice and must not block.
type BootstrapHook func(agentID string, files []File) []File

// isBootstrap reports whether a workspace path is one of BootstrapFiles.
func isBootstrap(name string) bool {
	for _, b := range BootstrapFiles {
		if name == b {
			return true
		}
	}
	return false
}

// skillFolder returns the folder of a skills/<folder>/SKILL.md path; any
// other path (nested deeper, another file) is not a skill.
func skillFolder(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, SkillsDir)
	if !ok {
		return "", false
	}
	folder, ok := strings.CutSuffix(rest, "/"+SkillFile)
	if !ok || folder == "" || strings.Contains(folder, "/") {
		return "", false
	}
	return folder, true
}
