package turn

import (
	"context"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/attachment"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tool"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/builtin"
	"github.com/zero-gateway/zero/shared/tools/sessions"
	"github.com/zero-gateway/zero/shared/workspace"
)

// tools returns the tools of one run: those of the built-in registry
// (shared/tools/builtin) that the tool policy allows for the agent and
// model and that this deployment and run can have (each entry's switch
// and constructor decide: a backend in p.Tools, tools.web.*.enabled, an
// image model, ...). The same set is described in the system prompt and
// sent as the provider's tool schema; the loop refuses a call to
// anything else. The policy's warnings (an allowlist of only unknown
// tools, ignored; unknown names) go to the run's log, not only to `zero
// tools`.
//
// A run is sandboxed when its agent's agents.list[] entry has a sandbox
// block (config.Agent.Sandboxed); a sub-agent's is one whose key is
// agent:<id>:subagent:<uuid>. The session tools read the engine's own
// stores (toolDeps) and report with the engine's /status (toolRun).
//
// The pre-compaction memory flush's run (ctx marked by withFlush) gets
// only the file and memory tools among those, its writes confined to the
// memory files (flushTools).
func (p *Processor) tools(ctx context.Context, t *turnState, e session.Entry, ref model.Ref) []agent.Tool {
	agentCfg, _ := t.cfg.Agent(session.OwnerOf(t.msg.SessionKey, e))
	decision := tool.Decide(t.cfg, tool.Request{AgentID: e.AgentID, Model: ref, Sandbox: agentCfg.Sandboxed, Subagent: session.IsSubagent(t.msg.SessionKey)})
	for _, w := range decision.Warnings {
		p.log().WarnContext(ctx, "tool policy: "+w, "session", t.msg.SessionKey, "agent", e.AgentID, "model", ref.String())
	}
	run := p.toolRun(t, e, ref)
	run.SessionVisibility = decision.SessionVisibility
	var allowed []agent.Tool
	for _, tl := range builtin.Registry(p.toolDeps()).Build(run, decision.Allowed) {
		allowed = append(allowed, tl)
	}
	if inFlush(ctx) {
		return flushTools(allowed)
	}
	return allowed
}

// toolRun is the run t of entry e on ref as its tools see it.
func (p *Processor) toolRun(t *turnState, e session.Entry, ref model.Ref) tools.Run {
	cfg := t.cfg
	if cfg == nil {
		cfg = config.Default()
	}
	now := p.Now
	if now == nil {
		now = time.Now
	}
	channel := t.msg.Channel
	return tools.Run{Config: cfg, Message: t.msg, AgentID: session.OwnerOf(t.msg.SessionKey, e), Entry: e, History: t.history, Model: ref, Now: now,
		Provenance: tools.ProvenanceOf(cfg, t.msg), Ingress: p.queue(), Models: p.Models,
		FetchAttachment: func(ctx context.Context, a inbound.Attachment, maxBytes int64) (model.Image, error) {
			return attachment.Fetch(ctx, p.Attachments[channel], channel, a, maxBytes)
		},
		Status: func(key string, s session.Entry, current bool) string {
			if current {
				return p.statusOf(cfg, key, s, t.history, t.reset == ResetStale)
			}
			return p.statusOf(cfg, key, s, nil, false)
		}}
}

// toolDeps are the tools' backends (p.Tools) with the engine's own
// stores the session tools read: p.Store where it reads (and patches)
// other sessions, p.Transcript and p.Runs.
func (p *Processor) toolDeps() builtin.Deps {
	d := p.Tools
	d.Sessions, _ = p.Store.(sessions.Reader)
	d.SessionUpdates, _ = p.Store.(sessions.Updater)
	if p.Transcript != nil {
		d.Transcripts = p.Transcript
	}
	d.Runs = p.Runs
	d.Stops, _ = p.Store.(sessions.StopMarker)
	return d
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
