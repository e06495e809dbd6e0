// Package tool is the agent's tool surface as configuration sees it: the
// inventory of tool names, their group:* shortcuts and profiles (all read
// from the built-in registry, shared/tools/builtin), and the policy that decides which tools a run may be offered (tools.*,
// agents.defaults.tools, agents.list[].tools, byProvider, sub-agents,
// sandbox). It is core: no AWS or provider import.
//
// Names are lower-case; every function here matches case-insensitively.
package tool

import (
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/builtin"
)

// registry is the list of built-in tools (shared/tools/builtin) the
// policy reads: names, groups, profiles, what is provided and what is
// enabled. Only its entries' metadata is read here, never a constructor,
// so it is built without backends.
var registry = builtin.Registry(builtin.Deps{})

// inventory is every built-in tool of the registry, whether ZERO
// provides it or not (see Provided), sorted.
var inventory = inventoryOf(registry)

// groupZero is every built-in tool; plugin tools are not in the inventory.
const groupZero = "group:zero"

// groups are the group:* shortcuts, members in registry order (the order
// a run is offered them). group:zero is the inventory, filled in by Group.
var groups = groupsOf(registry)

// profiles are the base allowlists of tools.profile, as tool names. full
// is absent: it restricts nothing.
var profiles = profilesOf(registry)

// inventoryOf is every name of r, sorted.
func inventoryOf(r tools.Registry) []string {
	var names []string
	for _, e := range r.Entries() {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	return names
}

// groupsOf is the group:* shortcuts of r's entries, and group:zero.
func groupsOf(r tools.Registry) map[string][]string {
	out := map[string][]string{groupZero: nil}
	for _, e := range r.Entries() {
		if e.Group != "" {
			out[e.Group] = append(out[e.Group], e.Name)
		}
	}
	return out
}

// profilesOf is the tools of each profile r's entries name.
func profilesOf(r tools.Registry) map[string][]string {
	out := map[string][]string{}
	for _, e := range r.Entries() {
		for _, p := range e.Profiles {
			out[p] = append(out[p], e.Name)
		}
	}
	return out
}

// sessionTools are the tools the session-tools page names: what sub-agents
// go without by default (a ZERO sub-agent is always a leaf: it spawns
// nothing, so it has no sub-agents to yield for, list, steer or kill). session_status is not among them (it is in
// group:sessions, but it only reports on a session).
var sessionTools = []string{"sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "sessions_yield", "subagents"}

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
// prefix, in registry order (group:zero: the whole inventory, sorted).
// ok is false for an unknown group.
func Group(name string) (members []string, ok bool) {
	name = normalize(name)
	if name == groupZero {
		return Names(), true
	}
	members, ok = groups[name]
	return slices.Clone(members), ok
}

// Profile returns the tools of a tools.profile, expanded and sorted.
// "full" restricts nothing: it returns nil and true. ok is false for an
// unknown profile.
func Profile(name string) (names []string, ok bool) {
	name = normalize(name)
	if name == config.ProfileFull {
		return nil, true
	}
	entries, ok := profiles[name]
	if !ok {
		return nil, false
	}
	names, _ = Expand(entries)
	return names, true
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
