package tools

import (
	"fmt"
	"slices"

	"github.com/zero-gateway/zero/shared/config"
)

// Entry is one built-in tool of the registry.
type Entry struct {
	// Name is the tool's name (lower case), as the model calls it.
	Name string
	// Group is the group:* shortcut the tool belongs to ("group:fs"), ""
	// for none. Every tool is also in group:zero.
	Group string
	// Profiles are the tools.profile values whose base allowlist holds
	// the tool (config.ProfileCoding, ...); "full" holds every tool and
	// is never listed.
	Profiles []string
	// Enabled is the configuration's switch of the tool (tools.web.*,
	// commands.restart, ...), checked before New; nil: always on.
	Enabled func(cfg *config.Config) bool
	// Unavailable, when set, is why this serverless deployment does not
	// provide the tool and what to use instead: the answer a call to it
	// gets. Such a tool has no New and is never offered.
	Unavailable string
	// Reach is what a call of the tool may reach beyond the run's own
	// conversation (0: nothing); ReachOf, when set, computes it per call
	// from the arguments. The run's gate refuses a call whose reach the
	// run's provenance is not allowed (Allowed).
	Reach   Reach
	ReachOf ReachOf
	// Untrusted: the tool's results are outside content (a fetched page,
	// search results); after one, the rest of the run is judged as
	// untrusted.
	Untrusted bool
	// New builds the tool for a run; nil for an unavailable tool.
	New New
}

// Provided reports whether ZERO implements the tool (it is not
// Unavailable).
func (e Entry) Provided() bool { return e.Unavailable == "" }

// On reports whether the tool is provided and cfg (nil: config.Default())
// enables it.
func (e Entry) On(cfg *config.Config) bool {
	if !e.Provided() {
		return false
	}
	if cfg == nil {
		cfg = config.Default()
	}
	return e.Enabled == nil || e.Enabled(cfg)
}

// Registry is every built-in tool, in the order a run is offered them
// (which is also the order of a group's members). It is a plain value:
// shared/tools/builtin builds it, nothing registers itself.
type Registry struct {
	entries []Entry
}

// NewRegistry is the registry of entries, in order. A name given twice is
// a programming error: it panics.
func NewRegistry(entries ...Entry) Registry {
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.Name] {
			panic(fmt.Sprintf("tools: %q is registered twice", e.Name))
		}
		seen[e.Name] = true
	}
	return Registry{entries: slices.Clone(entries)}
}

// Entries returns the entries in registry order. The slice is the
// caller's.
func (r Registry) Entries() []Entry { return slices.Clone(r.entries) }

// Lookup returns the entry named name (exactly); ok is false for none.
func (r Registry) Lookup(name string) (e Entry, ok bool) {
	i := slices.IndexFunc(r.entries, func(e Entry) bool { return e.Name == name })
	if i < 0 {
		return Entry{}, false
	}
	return r.entries[i], true
}

// Build returns the tools of one run, in registry order: those with a
// constructor that run.Config enables (Entry.On), that allowed (the tool
// policy's decision) allows, and whose constructor builds one for run.
// The tools of the run share one scope (Shared) and one gate: every call
// of a tool with a Reach or ReachOf is checked against run.Provenance
// first (see Allowed).
func (r Registry) Build(run Run, allowed func(name string) bool) []Tool {
	run.scope = &scope{}
	g := &gate{cfg: run.Config, who: run.Provenance}
	var out []Tool
	for _, e := range r.entries {
		if e.New == nil || !e.On(run.Config) || !allowed(e.Name) {
			continue
		}
		tl := e.New(run)
		if tl == nil {
			continue
		}
		if e.Reach != 0 || e.ReachOf != nil || e.Untrusted {
			tl = gated{Tool: tl, entry: e, run: run, gate: g}
		}
		out = append(out, tl)
	}
	return out
}
