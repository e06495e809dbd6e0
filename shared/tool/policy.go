package tool

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/model"
)

// Request is the run a decision is for.
type Request struct {
	// AgentID is the agent that runs; "" is the default agent (the one
	// routing falls back to).
	AgentID string
	// Model selects the byProvider entries: "provider" and
	// "provider/model" keys. A zero Model matches none.
	Model model.Ref
	// Sandbox: the run is sandboxed (its session tools see only what
	// agents.*.sandbox.sessionToolsVisibility lets them).
	Sandbox bool
	// Subagent: the run is a sub-agent's, started by sessions_spawn.
	Subagent bool
}

// Verdict is the decision on one tool.
type Verdict struct {
	Name    string
	Allowed bool
	// Reason names the rule that decided, by config key, e.g.
	// `denied by tools.deny "group:runtime"`.
	Reason string
}

// Decision is which tools of the inventory a run may be offered.
type Decision struct {
	// Tools holds one verdict per inventory name, in Names order.
	Tools []Verdict
	// Warnings are the policy's problems: unknown tool names in allow and
	// deny lists, allowlists ignored because they name only unknown tools.
	Warnings []string
	// SessionVisibility is, for a sandboxed run, which sessions its session
	// tools see: config.VisibilitySpawned or config.VisibilityAll. It is ""
	// when the run is not sandboxed.
	SessionVisibility string
}

// Allowed reports whether the decision allows the tool name (any case).
// A name outside the inventory is never allowed.
func (d Decision) Allowed(name string) bool {
	v, ok := d.Tool(name)
	return ok && v.Allowed
}

// Tool returns the verdict on name (any case); ok is false for a name
// outside the inventory.
func (d Decision) Tool(name string) (v Verdict, ok bool) {
	name = normalize(name)
	for _, v := range d.Tools {
		if v.Name == name {
			return v, true
		}
	}
	return Verdict{}, false
}

// AllowedNames returns the allowed tool names, sorted.
func (d Decision) AllowedNames() []string {
	var names []string
	for _, v := range d.Tools {
		if v.Allowed {
			names = append(names, v.Name)
		}
	}
	return names
}

// Decide evaluates the tool policy of cfg (nil: config.Default()) for req.
// Every tool of the inventory gets a verdict. Entries of allow and deny
// lists are tool names, "*" wildcards ("sessions_*", "*") or group:*
// shortcuts, matched case-insensitively. A tool is allowed when all of
// these hold, checked in this order (the first that fails is the reason):
//
//  1. a sub-agent never gets sessions_spawn;
//  2. no deny list names it: tools.deny, agents.defaults.tools.deny,
//     agents.list[].tools.deny, the deny of every matching byProvider entry
//     of those three, and for a sub-agent tools.subagents.tools.deny. Deny
//     always wins over any allow at any level;
//  3. the base allowlist includes it: the profile plus the allow list, each
//     taken from the most specific level that sets it (agents.list[].tools,
//     else agents.defaults.tools, else tools). "full", like no profile,
//     contributes nothing; with neither a profile nor a non-empty allow
//     list every tool is in;
//  4. the byProvider allowlist includes it: built like the base from the
//     matching entries, ordered tools, agents.defaults.tools,
//     agents.list[].tools, and within each "provider" before
//     "provider/model" (the more specific). It only narrows the base;
//  5. a sub-agent: tools.subagents.tools.allow includes it when set;
//     unset, the sub-agent gets everything but the session tools.
//
// An allow list whose every entry matches no tool is ignored, with a
// warning, as if it were not written (the next less specific one applies),
// so a list of plugin tools ZERO does not have cannot deny everything.
//
// A sandbox does not change which tools are allowed; it limits what the
// session tools see (SessionVisibility), which their reasons say.
func Decide(cfg *config.Config, req Request) Decision {
	if cfg == nil {
		cfg = config.Default()
	}
	p := newPolicy(cfg, req)
	d := Decision{Warnings: p.warnings}
	if req.Sandbox {
		d.SessionVisibility = p.visibility
	}
	for _, name := range inventory {
		allowed, reason := p.decide(name)
		if allowed && req.Sandbox && slices.Contains(visibleSessionTools, name) {
			reason += "; " + visibilityNote(p.visibility)
		}
		d.Tools = append(d.Tools, Verdict{Name: name, Allowed: allowed, Reason: reason})
	}
	return d
}

// level is one tools block the decision reads, with its config key path.
type level struct {
	path   string
	policy config.ToolPolicy
}

// entry is one allow or deny entry and the key of the list holding it.
type entry struct {
	list, value string
}

// allowlist is a profile plus an allow list, as resolved over levels.
type allowlist struct {
	profilePath string // "" when no level sets a profile
	profile     string
	tools       []string // the profile's tools; nil for none or "full"
	allowPath   string   // "" when no level sets an allow list
	allow       []string // nil: none applies
}

// policy is a Decide call's resolved configuration.
type policy struct {
	subagent   bool
	base       allowlist
	provider   allowlist
	subAllow   []string // tools.subagents.tools.allow; nil: the default
	subAllowOK bool     // subAllow applies (set and not ignored)
	denies     []entry
	visibility string
	warnings   []string
}

const subagentsPath = "tools.subagents.tools"

func newPolicy(cfg *config.Config, req Request) *policy {
	p := &policy{subagent: req.Subagent, visibility: cfg.Agents.Defaults.Sandbox.SessionToolsVisibility}
	id := req.AgentID
	if strings.TrimSpace(id) == "" {
		id = cfg.Routing().Default
	}
	levels := []level{
		{"tools", cfg.Tools.ToolPolicy},
		{"agents.defaults.tools", cfg.Agents.Defaults.Tools},
	}
	if a, ok := cfg.Agent(id); ok {
		levels = append(levels, level{"agents.list[" + a.ID + "].tools", a.Tools})
		p.visibility = a.Sandbox.SessionToolsVisibility
	}
	if p.visibility == "" {
		p.visibility = config.VisibilitySpawned
	}
	// Each level's byProvider entries follow it: provider, then
	// provider/model. Deny order is only the order reasons are looked for
	// in: every deny applies.
	var providers []level
	for _, l := range levels {
		p.addDenies(l)
		for _, key := range providerKeys(req.Model) {
			if bp, ok := l.policy.ByProvider[key]; ok {
				pl := level{keyPath(l.path+".byProvider", key), bp}
				p.addDenies(pl)
				providers = append(providers, pl)
			}
		}
	}
	p.base = p.resolve(levels)
	p.provider = p.resolve(providers)
	if req.Subagent {
		sub := level{subagentsPath, cfg.Tools.Subagents}
		p.addDenies(sub)
		if sub.policy.Allow != nil && p.checkAllow(sub.path+".allow", sub.policy.Allow) {
			p.subAllow, p.subAllowOK = sub.policy.Allow, true
		}
	}
	return p
}

// providerKeys are the byProvider keys m matches, least specific first.
func providerKeys(m model.Ref) []string {
	provider := normalize(m.Provider)
	if provider == "" {
		return nil
	}
	keys := []string{provider}
	if name := normalize(m.Name); name != "" {
		keys = append(keys, provider+"/"+name)
	}
	return keys
}

// resolve builds the allowlist of levels (least specific first): the
// profile and the allow list of the most specific level setting each.
func (p *policy) resolve(levels []level) allowlist {
	var a allowlist
	for _, l := range slices.Backward(levels) {
		if l.policy.Profile != "" {
			a.profilePath, a.profile = l.path+".profile", normalize(l.policy.Profile)
			a.tools, _ = Profile(a.profile)
			break
		}
	}
	// Every allow list is checked, the overridden ones too, so a typo is
	// reported wherever it is.
	usable := make([]bool, len(levels))
	for i, l := range levels {
		usable[i] = l.policy.Allow != nil && p.checkAllow(l.path+".allow", l.policy.Allow)
	}
	for i := len(levels) - 1; i >= 0; i-- {
		if usable[i] {
			a.allowPath, a.allow = levels[i].path+".allow", levels[i].policy.Allow
			break
		}
	}
	return a
}

// checkAllow warns about the unknown entries of the allow list at path and
// reports whether the list applies: it does not when every entry is
// unknown (an empty list applies: it allows nothing more).
func (p *policy) checkAllow(path string, allow []string) bool {
	_, unknown := Expand(allow)
	switch {
	case len(unknown) == 0:
		return true
	case len(unknown) < len(allow):
		p.warnings = append(p.warnings, fmt.Sprintf("%s: unknown tool names %s", path, quoteAll(unknown)))
		return true
	}
	p.warnings = append(p.warnings, fmt.Sprintf("%s names only unknown tools (%s): ignored, so it does not deny every tool", path, quoteAll(unknown)))
	return false
}

func (p *policy) addDenies(l level) {
	if _, unknown := Expand(l.policy.Deny); len(unknown) > 0 {
		p.warnings = append(p.warnings, fmt.Sprintf("%s.deny: unknown tool names %s", l.path, quoteAll(unknown)))
	}
	for _, e := range l.policy.Deny {
		p.denies = append(p.denies, entry{l.path + ".deny", normalize(e)})
	}
}

// decide applies the rules of Decide to one inventory name.
func (p *policy) decide(name string) (bool, string) {
	if p.subagent && name == spawn {
		return false, "sub-agents never get " + spawn
	}
	for _, d := range p.denies {
		if matches(d.value, name) {
			return false, fmt.Sprintf("denied by %s %q", d.list, d.value)
		}
	}
	reason, ok := p.base.admits(name)
	if !ok {
		return false, reason
	}
	if p.provider.restricts() {
		why, ok := p.provider.admits(name)
		if !ok {
			return false, why
		}
		reason += "; " + why
	}
	if p.subagent {
		switch {
		case !p.subAllowOK && slices.Contains(sessionTools, name):
			return false, "sub-agents get no session tools unless " + subagentsPath + ".allow names them"
		case p.subAllowOK && len(p.subAllow) > 0:
			e, ok := firstMatch(p.subAllow, name)
			if !ok {
				return false, subagentsPath + ".allow does not include it"
			}
			reason += fmt.Sprintf("; %s.allow %q", subagentsPath, e)
		}
	}
	return true, reason
}

// restricts reports whether a limits the tools at all.
func (a allowlist) restricts() bool { return a.tools != nil || len(a.allow) > 0 }

// admits reports whether a lets name in, and the rule that decided.
func (a allowlist) admits(name string) (reason string, ok bool) {
	profile := a.tools
	if profile == nil && len(a.allow) == 0 {
		if a.profile == config.ProfileFull {
			return fmt.Sprintf("%s %q restricts nothing", a.profilePath, a.profile), true
		}
		return "no profile or allow list restricts it", true
	}
	if slices.Contains(profile, name) {
		return fmt.Sprintf("%s %q includes it", a.profilePath, a.profile), true
	}
	if e, ok := firstMatch(a.allow, name); ok {
		return fmt.Sprintf("%s %q", a.allowPath, e), true
	}
	switch {
	case profile != nil && len(a.allow) > 0:
		return fmt.Sprintf("neither %s %q nor %s includes it", a.profilePath, a.profile, a.allowPath), false
	case profile != nil:
		return fmt.Sprintf("%s %q does not include it", a.profilePath, a.profile), false
	}
	return a.allowPath + " does not include it", false
}

// firstMatch returns the first entry of list that names the tool.
func firstMatch(list []string, name string) (string, bool) {
	for _, e := range list {
		if matches(e, name) {
			return normalize(e), true
		}
	}
	return "", false
}

func visibilityNote(visibility string) string {
	if visibility == config.VisibilityAll {
		return `sandboxed: sees every session (sessionToolsVisibility "all")`
	}
	return fmt.Sprintf("sandboxed: sees only the sessions it spawned (sessionToolsVisibility %q)", visibility)
}

// plainKey is a config key written as .key in a path; others are ["key"],
// as shared/config writes them.
var plainKey = regexp.MustCompile(`^[A-Za-z0-9_$-]+$`)

func keyPath(path, key string) string {
	if plainKey.MatchString(key) {
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

func quoteAll(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
