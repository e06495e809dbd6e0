// Package tool is the agent's tool surface as configuration sees it: the
// inventory of tool names, their group:* shortcuts and profiles, and the
// policy that decides which tools a run may be offered (tools.*,
// agents.defaults.tools, agents.list[].tools, byProvider, sub-agents,
// sandbox). It is core: no AWS or provider import.
//
// Names are lower-case; every function here matches case-insensitively.
package tool

import (
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/config"
)

// inventory is every built-in tool the tools pages name, whether ZERO
// implements it yet or not (see Provided), sorted.
var inventory = []string{
	"agents_list",
	"apply_patch",
	"bash",
	"browser",
	"canvas",
	"cron",
	"edit",
	"exec",
	"gateway",
	"image",
	"memory_get",
	"memory_search",
	"message",
	"nodes",
	"process",
	"read",
	"session_status",
	"sessions_history",
	"sessions_list",
	"sessions_send",
	"sessions_spawn",
	"web_fetch",
	"web_search",
	"write",
}

// groupZero is every built-in tool; plugin tools are not in the inventory.
const groupZero = "group:zero"

// groups are the group:* shortcuts, members in the order the seed lists
// them. group:zero is the inventory, filled in by Group.
var groups = map[string][]string{
	"group:runtime":    {"exec", "bash", "process"},
	"group:fs":         {"read", "write", "edit", "apply_patch"},
	"group:sessions":   {"sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "session_status"},
	"group:memory":     {"memory_search", "memory_get"},
	"group:web":        {"web_search", "web_fetch"},
	"group:ui":         {"browser", "canvas"},
	"group:automation": {"cron", "gateway"},
	"group:messaging":  {"message"},
	"group:nodes":      {"nodes"},
	groupZero:          nil,
}

// profiles are the base allowlists of tools.profile, as entries (groups
// and names). full is absent: it restricts nothing.
var profiles = map[string][]string{
	config.ProfileMinimal:   {"session_status"},
	config.ProfileCoding:    {"group:fs", "group:runtime", "group:sessions", "group:memory", "image"},
	config.ProfileMessaging: {"group:messaging", "sessions_list", "sessions_history", "sessions_send", "session_status"},
}

// sessionTools are the tools the session-tools page names: what sub-agents
// go without by default. session_status is not among them (it is in
// group:sessions, but it only reports on a session).
var sessionTools = []string{"sessions_list", "sessions_history", "sessions_send", "sessions_spawn"}

// spawn is the tool a sub-agent never gets.
const spawn = "sessions_spawn"

// visibleSessionTools are the tools whose view of other sessions a
// sandbox's sessionToolsVisibility limits.
var visibleSessionTools = []string{"sessions_list", "sessions_history", "sessions_send"}

// Names returns every tool name of the inventory, sorted. The slice is the
// caller's.
func Names() []string { return slices.Clone(inventory) }

// Known reports whether name is in the inventory.
func Known(name string) bool {
	_, ok := slices.BinarySearch(inventory, normalize(name))
	return ok
}

// Groups returns the names of the group:* shortcuts ("group:fs", ...),
// sorted.
func Groups() []string {
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	slices.Sort(names)
	return names
}

// Group returns the tools of a group:* shortcut, given with its "group:"
// prefix, in the seed's order (group:zero: the whole inventory, sorted).
// ok is false for an unknown group.
func Group(name string) (tools []string, ok bool) {
	name = normalize(name)
	if name == groupZero {
		return Names(), true
	}
	members, ok := groups[name]
	return slices.Clone(members), ok
}

// Profile returns the tools of a tools.profile, expanded and sorted.
// "full" restricts nothing: it returns nil and true. ok is false for an
// unknown profile.
func Profile(name string) (tools []string, ok bool) {
	name = normalize(name)
	if name == config.ProfileFull {
		return nil, true
	}
	entries, ok := profiles[name]
	if !ok {
		return nil, false
	}
	tools, _ = Expand(entries)
	return tools, true
}

// Expand resolves allow/deny entries (names, "*" wildcards, group:*
// shortcuts) to the inventory names they match, sorted and without
// duplicates. unknown lists, in order, the entries that match no tool.
func Expand(entries []string) (tools, unknown []string) {
	for _, e := range entries {
		n := 0
		for _, name := range inventory {
			if matches(e, name) {
				n++
				if !slices.Contains(tools, name) {
					tools = append(tools, name)
				}
			}
		}
		if n == 0 {
			unknown = append(unknown, e)
		}
	}
	slices.Sort(tools)
	return tools, unknown
}

// matches reports whether the allow/deny entry e names the tool name (an
// inventory name): e is a group:* shortcut, or a name in which each "*"
// matches any run of characters.
func matches(e, name string) bool {
	e = normalize(e)
	if strings.HasPrefix(e, "group:") {
		if e == groupZero {
			return true
		}
		return slices.Contains(groups[e], name)
	}
	return glob(e, name)
}

// glob matches name against pattern, whose only special character is "*".
func glob(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	rest := name[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	// The last part must fit in what is left, after every earlier part.
	return strings.HasSuffix(rest, parts[len(parts)-1])
}

func normalize(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
