package status

import (
	"fmt"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cost"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// CostLines are the report's cost lines: the session's model cost (last
// turn and in all, at the configured price of the model that answered
// last) and ZERO's infrastructure cost (last turn and in all, as the
// engine charged them: AWS calls and Lambda time at arm64 list prices).
func CostLines(cfg *config.Config, e session.Entry, fallback model.Ref) []string {
	ref := model.Ref{Provider: e.ModelProvider, Name: e.Model}
	if ref.Provider == "" || ref.Name == "" {
		ref = fallback
	}
	modelLine := "Model cost: n/a (no price for " + ref.String() + " in models.providers)"
	if price, ok := cfg.ModelCost(ref); ok {
		last := cost.Tokens(e.LastInputTokens, e.LastOutputTokens, price.Input, price.Output)
		all := cost.Tokens(e.InputTokens, e.OutputTokens, price.Input, price.Output)
		modelLine = fmt.Sprintf("Model cost: %s last turn · %s in all (%s prices)", cost.FormatUSD(last), cost.FormatUSD(all), ref)
	}
	infra := fmt.Sprintf("Infra cost: ≈%s last turn · ≈%s in all (AWS calls and Lambda time, %s list prices)",
		cost.FormatUSD(e.LastInfraCostUSD), cost.FormatUSD(e.InfraCostUSD), cost.DeployedArch)
	return []string{modelLine, infra}
}

// ResetLine says when the session resets if no message comes first:
// "Next reset: 2026-11-29 04:00 UTC (daily at 04:00)", "... (idle 30 min)",
// or "Next reset: never (reset mode off)".
func ResetLine(cfg *config.Config, e session.Entry) string {
	lc := cfg.Lifecycle()
	p := lc.PolicyFor(e.Channel, session.ResetTypeOf(e.ChatType, e.LastThreadID))
	at, ok := lc.NextReset(p, e.UpdatedAt)
	if !ok {
		return "Next reset: never (reset mode " + orDefault(p.Mode, "off") + ")"
	}
	loc := lc.Location
	if loc == nil {
		loc = time.UTC
	}
	var rule string
	switch {
	case p.Mode == session.ResetIdle:
		rule = fmt.Sprintf("idle %d min", p.IdleMinutes)
	case p.IdleMinutes > 0:
		rule = fmt.Sprintf("daily at %02d:00 or idle %d min", p.AtHour, p.IdleMinutes)
	default:
		rule = fmt.Sprintf("daily at %02d:00", p.AtHour)
	}
	return fmt.Sprintf("Next reset: %s (%s)", at.In(loc).Format("2006-01-02 15:04 MST"), rule)
}
