package turn

import (
	"context"
	"strings"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tool"
	"github.com/zero-gateway/zero/shared/workspace"
)

// tools returns the tools of one run: those ZERO provides for this turn
// that the tool policy allows for the agent and model. The same set is
// described in the system prompt and sent as the provider's tool schema;
// the loop refuses a call to anything else. The policy's warnings (an
// allowlist of only unknown tools, ignored; unknown names) go to the
// run's log, not only to `zero tools`.
//
// A run is sandboxed when its agent's agents.list[] entry has a sandbox
// block (config.Agent.Sandboxed); a sub-agent's is one whose key is
// agent:<id>:subagent:<uuid>. sessions_list and sessions_history are
// provided when the store can read other sessions (SessionReader), and
// sessions_send when the Processor also has an Ingress; sessions_spawn
// whenever it has an Ingress (never to a sub-agent: the policy denies it);
// memory_search and memory_get when it has a Memory; web_fetch and
// web_search when it has their backend and tools.web enables them.
//
// The pre-compaction memory flush's run (ctx marked by withFlush) gets
// only the file and memory tools among those, its writes confined to the
// memory files (flushTools).
func (p *Processor) tools(ctx context.Context, t *turnState, e session.Entry, ref model.Ref) []agent.Tool {
	agentCfg, _ := t.cfg.Agent(agentOf(t.msg.SessionKey, e))
	decision := tool.Decide(t.cfg, tool.Request{AgentID: e.AgentID, Model: ref, Sandbox: agentCfg.Sandboxed, Subagent: session.IsSubagent(t.msg.SessionKey)})
	for _, w := range decision.Warnings {
		p.log().WarnContext(ctx, "tool policy: "+w, "session", t.msg.SessionKey, "agent", e.AgentID, "model", ref.String())
	}
	view := newSessionView(t, e, decision)
	provided := []agent.Tool{statusTool{p: p, t: t, e: e}}
	if store, ok := p.Store.(SessionReader); ok {
		provided = append(provided, sessionsListTool{p: p, store: store, view: view}, sessionsHistoryTool{p: p, store: store, view: view})
		if p.Ingress != nil {
			provided = append(provided, sessionsSendTool{p: p, store: store, view: view, ingress: p.Ingress, caller: t.msg, sends: &sendCounter{}})
		}
	}
	if p.Ingress != nil {
		provided = append(provided, sessionsSpawnTool{p: p, view: view, ingress: p.Ingress, caller: t.msg, entry: e, spawns: &sendCounter{}})
	}
	provided = append(provided, agentsListTool{view: view})
	provided = append(provided, p.webTools(t.cfg)...)
	provided = append(provided, p.imageTools(t.cfg, agentOf(t.msg.SessionKey, e), ref, t.msg)...) // image (image_tool.go)
	// cron and gateway (automation_tools.go)
	provided = append(provided, p.automationTools(t, e)...)
	provided = append(provided, p.fileTools(t.cfg, agentOf(t.msg.SessionKey, e), ref)...)
	provided = append(provided, p.messageTools(t, e)...) // message, where the runner has channel messengers
	if p.Memory != nil {
		provided = append(provided, memorySearchTool{mem: p.Memory, agentID: agentOf(t.msg.SessionKey, e)}, memoryGetTool{mem: p.Memory, agentID: agentOf(t.msg.SessionKey, e)})
	}
	var allowed []agent.Tool
	for _, tl := range provided {
		if decision.Allowed(tl.Spec().Name) {
			allowed = append(allowed, tl)
		}
	}
	if inFlush(ctx) {
		return flushTools(allowed)
	}
	return allowed
}

// Workspace supplies an agent's bootstrap files and skills (a
// workspace.Loader: cached, re-listed at most once a minute).
type Workspace interface {
	Load(ctx context.Context, agentID string) (workspace.Files, error)
}

// prompt assembles the system prompt of a run: the base prompt, the tools
// section naming exactly the tools the model is offered, the skills list
// and the agent's workspace files, within the workspace package's limits.
// A workspace that cannot be read is logged and left out: the run goes on.
func (p *Processor) prompt(ctx context.Context, agentID string, tools []agent.Tool) workspace.Prompt {
	in := workspace.Input{Base: p.System}
	for _, tl := range tools {
		in.Tools = append(in.Tools, tl.Spec())
	}
	if p.Workspace != nil {
		files, err := p.Workspace.Load(ctx, agentID)
		if err != nil {
			p.log().WarnContext(ctx, "workspace not loaded; the prompt goes without it", "agent", agentID, "err", err)
		}
		in.Files, in.Skills = files.Bootstrap, files.Skills
	}
	return workspace.Assemble(in)
}

// toolSummaries is the inline summary of a run's tool calls shown before
// the reply when the session's verbose level is on: one line per call.
func toolSummaries(msgs []model.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		if m.Role != model.ToolResult {
			continue
		}
		mark := "✓"
		if m.IsError {
			mark = "✗"
		}
		b.WriteString("🔧 " + m.ToolName + " " + mark + "\n")
	}
	if b.Len() == 0 {
		return ""
	}
	return b.String() + "\n"
}

// reasoning is the model's thinking shown before the reply when the
// session's reasoning level is on.
func reasoning(msgs []model.Message) string {
	var parts []string
	for _, m := range msgs {
		if t := strings.TrimSpace(m.Thinking); m.Role == model.Assistant && t != "" {
			parts = append(parts, "💭 "+t)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "\n") + "\n\n"
}
