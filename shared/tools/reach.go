package tools

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
)

// Reach is what a tool call reaches beyond the run's own conversation: a
// set of the kinds below. A call that reaches nothing (Reach 0) stays
// inside the conversation and is never gated.
type Reach uint

const (
	// ReachSessions: other sessions' transcripts and state.
	ReachSessions Reach = 1 << iota
	// ReachAgents: another agent's sessions (agent-to-agent).
	ReachAgents
	// ReachChats: a chat other than the run's own.
	ReachChats
	// ReachSchedules: cron jobs (creating, changing, removing, running).
	ReachSchedules
	// ReachConfig: writing zero.json.
	ReachConfig
	// ReachBootstrap: the workspace's bootstrap and skill files, which
	// every later prompt includes.
	ReachBootstrap
	// ReachModels: a model outside the configured allowlist (cost).
	ReachModels
)

var reachNames = []struct {
	r    Reach
	name string
}{
	{ReachSessions, "other sessions"},
	{ReachAgents, "another agent"},
	{ReachChats, "other chats"},
	{ReachSchedules, "cron jobs"},
	{ReachConfig, "the configuration"},
	{ReachBootstrap, "the bootstrap and skill files"},
	{ReachModels, "models outside the allowlist"},
}

// String names the kinds in r, joined by ", ".
func (r Reach) String() string {
	var out []string
	for _, n := range reachNames {
		if r&n.r != 0 {
			out = append(out, n.name)
		}
	}
	if len(out) == 0 {
		return "nothing past the conversation"
	}
	return strings.Join(out, ", ")
}

// ReachOf computes the reach of one call from its arguments (the message
// tool to the run's own chat reaches nothing, to another chat ReachChats).
// Arguments it cannot read reach what the entry declares.
type ReachOf func(run Run, args json.RawMessage) Reach

// Allowed is the reach a run may have: everything for the owner, nothing
// for untrusted text, and for an admitted sender what the configuration
// widens (tools.sessions.visibility beyond "self", tools.agentToAgent,
// tools.message.crossContext). Bootstrap files, cron jobs, the
// configuration and models outside the allowlist stay the owner's.
func Allowed(cfg *config.Config, who inbound.Provenance) Reach {
	switch who {
	case inbound.Owner:
		return ^Reach(0)
	case inbound.Untrusted:
		return 0
	}
	var r Reach
	switch cfg.Tools.Sessions.Visibility {
	case config.SessionsVisibilityTree, config.SessionsVisibilityAgent, config.SessionsVisibilityAll:
		r |= ReachSessions
	}
	if cfg.Tools.AgentToAgent.Enabled {
		r |= ReachAgents
	}
	if cfg.Tools.Message.CrossContext {
		r |= ReachChats
	}
	return r
}

// ProvenanceOf is who asked for m's run under cfg: what its door vouched
// (Untrusted, Owner), else Owner for a channel owner and Sender for any
// other admitted sender. Agent-to-agent text is Untrusted whatever its
// door said.
func ProvenanceOf(cfg *config.Config, m inbound.Message) inbound.Provenance {
	switch {
	case m.Provenance == inbound.Untrusted, m.Flow != nil:
		return inbound.Untrusted
	case m.Provenance == inbound.Owner:
		return inbound.Owner
	case cfg.IsOwner(m.Channel, m.From):
		return inbound.Owner
	}
	return inbound.Sender
}

// gate decides, before each call of a run's tools, whether the call's
// reach is allowed to whoever asked. Once a tool that brings outside
// content into the run (Entry.Untrusted: a fetched page, search results)
// has answered, the rest of the run is judged as untrusted: text the
// model read there may be steering it. Safe for concurrent calls.
type gate struct {
	cfg     *config.Config
	who     inbound.Provenance
	mu      sync.Mutex
	tainted string // the tool whose result made the run untrusted
}

// check returns the refusal of a call of name reaching r, or nil.
func (g *gate) check(name string, r Reach) error {
	if r == 0 {
		return nil
	}
	g.mu.Lock()
	who, tainted := g.who, g.tainted
	g.mu.Unlock()
	if tainted != "" {
		who = inbound.Untrusted
	}
	denied := r &^ Allowed(g.cfg, who)
	if denied == 0 {
		return nil
	}
	why := "this run was asked by an admitted sender who is not an owner"
	switch {
	case tainted != "":
		why = "this run has read outside content (" + tainted + "), which may be steering it"
	case who == inbound.Untrusted:
		why = "this run was started by untrusted text (a hook, a tool-made cron job or another agent)"
	}
	return fault.New(fault.Unauthorized, "refused: %s would reach %s, which only the owner may ask for; %s. Tell the user the owner has to ask for it.", name, denied, why)
}

// taint marks the run untrusted after name's result.
func (g *gate) taint(name string) {
	g.mu.Lock()
	if g.tainted == "" {
		g.tainted = name
	}
	g.mu.Unlock()
}

// gated is a tool whose every call passes the run's gate first.
type gated struct {
	Tool
	entry Entry
	run   Run
	gate  *gate
}

// Run checks the call's reach, runs it when allowed (a refusal is the
// tool error the model reads, and so is in the run's events), and taints
// the run after a tool that brings outside content.
func (g gated) Run(ctx context.Context, args json.RawMessage) (string, error) {
	reach := g.entry.Reach
	if g.entry.ReachOf != nil {
		reach = g.entry.ReachOf(g.run, args)
	}
	if err := g.gate.check(g.entry.Name, reach); err != nil {
		return "", err
	}
	out, err := g.Tool.Run(ctx, args)
	if g.entry.Untrusted {
		g.gate.taint(g.entry.Name)
	}
	return out, err
}
