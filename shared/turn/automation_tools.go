package turn

import (
	"time"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/session"
)

// automationTools are group:automation's cron and gateway: cron where
// the Processor has the cron core (Cron), gateway where it has the config
// store (ConfigDoc) and commands.restart enables it. The tool policy
// then decides as for any tool.
func (p *Processor) automationTools(t *turnState, e session.Entry) []agent.Tool {
	cfg := t.cfg
	if cfg == nil {
		cfg = config.Default()
	}
	now := p.Now
	if now == nil {
		now = time.Now
	}
	var out []agent.Tool
	if p.Cron != nil {
		out = append(out, cronTool{svc: p.Cron, ingress: p.Ingress, cfg: cfg, agentID: agentOf(t.msg.SessionKey, e),
			now: now, callerID: t.msg.ID, calls: &sendCounter{}})
	}
	if p.ConfigDoc != nil && cfg.Commands.Restart {
		out = append(out, gatewayTool{store: p.ConfigDoc})
	}
	return out
}
