package sessions

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
)

// AgentsTool is agents_list: the agent ids the caller may pass to
// sessions_spawn's agentId, from agents.list[].subagents.allowAgents of
// its agent ("*": any listed agent, allowAny), always including its own.
type AgentsTool struct {
	view view
}

// NewAgentsTool is agents_list of run.
func NewAgentsTool(run tools.Run) AgentsTool { return AgentsTool{view: viewOf(run)} }

// agentsResult is agents_list's answer: the caller's agent first, then
// the others sorted.
type agentsResult struct {
	Requester string        `json:"requester"`
	AllowAny  bool          `json:"allowAny"`
	Agents    []agentChoice `json:"agents"`
}

type agentChoice struct {
	ID         string `json:"id"`
	Name       string `json:"name,omitempty"`
	Configured bool   `json:"configured"` // agents.list names it
}

// Spec implements tools.Tool.
func (AgentsTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name:        AgentsName,
		Description: "List the agent ids this session may start a sub-agent under (sessions_spawn's agentId); allowAny when any agent is allowed.",
		Schema:      json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
	}
}

// Run answers the allowed agents; it takes no arguments.
func (a AgentsTool) Run(context.Context, json.RawMessage) (string, error) {
	return tools.JSONResult(spawnableAgents(a.view))
}

// spawnableAgents applies the allowlist of the caller's agent: unset or
// empty, only the caller's agent; "*", every listed agent (allowAny);
// otherwise the ids it names.
func spawnableAgents(v view) agentsResult {
	out := agentsResult{Requester: v.agentID}
	self, _ := v.cfg.Agent(v.agentID)
	ids := []string{}
	for _, id := range self.Subagents.AllowAgents {
		if id == "*" {
			out.AllowAny = true
			continue
		}
		ids = append(ids, session.NormalizeAgentID(id))
	}
	if out.AllowAny {
		for _, ag := range v.cfg.Agents.List {
			ids = append(ids, ag.ID)
		}
	}
	slices.Sort(ids)
	ids = slices.DeleteFunc(slices.Compact(ids), func(id string) bool { return id == v.agentID })
	for _, id := range append([]string{v.agentID}, ids...) {
		ag, ok := v.cfg.Agent(id)
		out.Agents = append(out.Agents, agentChoice{ID: id, Name: ag.Name, Configured: ok})
	}
	return out
}
