package turn

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tool"
)

// tools returns the tools of one run: those ZERO provides for this turn
// that the tool policy allows for the agent and model. The same set is
// described in the system prompt and sent as the provider's tool schema;
// the loop refuses a call to anything else.
func (p *Processor) tools(t *turnState, e session.Entry, ref model.Ref) []agent.Tool {
	decision := tool.Decide(t.cfg, tool.Request{AgentID: e.AgentID, Model: ref})
	provided := []agent.Tool{statusTool{p: p, t: t, e: e}}
	var allowed []agent.Tool
	for _, tl := range provided {
		if decision.Allowed(tl.Spec().Name) {
			allowed = append(allowed, tl)
		}
	}
	return allowed
}

// system assembles the system prompt: the base prompt, then the tools
// section naming exactly the tools the model is offered.
func (p *Processor) system(tools []agent.Tool) string {
	if len(tools) == 0 {
		return p.System
	}
	var b strings.Builder
	b.WriteString(p.System)
	b.WriteString("\n\n## Tools\nYou can call these tools:\n")
	for _, tl := range tools {
		spec := tl.Spec()
		b.WriteString("- " + spec.Name + ": " + spec.Description + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// statusTool is session_status: the /status report, for the model.
type statusTool struct {
	p *Processor
	t *turnState
	e session.Entry
}

func (s statusTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name:        "session_status",
		Description: "Show this session's status: its key and id, the model, how much context is used, thinking and verbose levels, and whether replies are sent.",
		Schema:      json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
	}
}

func (s statusTool) Run(context.Context, json.RawMessage) (string, error) {
	return s.p.status(s.t, s.e), nil
}
