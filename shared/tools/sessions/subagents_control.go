package sessions

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/stopmark"
	"github.com/zero-gateway/zero/shared/tools"
)

// subagentsResult is the answer of kill and steer (upstream's shape):
// status "ok" (killed), "done" (already finished), "accepted" (a steer
// queued) or "error" (the target did not resolve).
type subagentsResult struct {
	Status     string   `json:"status"`
	Action     string   `json:"action"`
	Target     string   `json:"target,omitempty"`
	RunID      string   `json:"runId,omitempty"`
	SessionKey string   `json:"sessionKey,omitempty"`
	Label      string   `json:"label,omitempty"`
	Mode       string   `json:"mode,omitempty"`
	Killed     *int     `json:"killed,omitempty"`
	Labels     []string `json:"labels,omitempty"`
	Error      string   `json:"error,omitempty"`
	Text       string   `json:"text,omitempty"`
}

// resolveTarget finds token among views: "last" (the newest spawn), an
// index of the list, a session key, a label (exact, then as a prefix, case
// ignored) or a runId prefix. Nothing outside views (this session's
// children) ever resolves.
func resolveTarget(views []subagentView, token string) (subagentView, error) {
	if token == "" {
		return subagentView{}, fmt.Errorf("Missing subagent target.")
	}
	if token == "last" && len(views) > 0 {
		newest := views[0]
		for _, v := range views {
			if v.StartedAt >= newest.StartedAt {
				newest = v
			}
		}
		return newest, nil
	}
	if n, err := strconv.Atoi(token); err == nil {
		if n < 1 || n > len(views) {
			return subagentView{}, fmt.Errorf("Invalid subagent index: %s", token)
		}
		return views[n-1], nil
	}
	if strings.Contains(token, ":") {
		for _, v := range views {
			if v.SessionKey == token {
				return v, nil
			}
		}
		return subagentView{}, fmt.Errorf("Unknown subagent session: %s", token)
	}
	lower := strings.ToLower(token)
	for _, match := range []struct {
		what string
		ok   func(v subagentView) bool
	}{
		{"label", func(v subagentView) bool { return strings.ToLower(v.Label) == lower }},
		{"label prefix", func(v subagentView) bool { return strings.HasPrefix(strings.ToLower(v.Label), lower) }},
		{"run id prefix", func(v subagentView) bool { return strings.HasPrefix(v.RunID, token) }},
	} {
		var found []subagentView
		for _, v := range views {
			if match.ok(v) {
				found = append(found, v)
			}
		}
		switch {
		case len(found) == 1:
			return found[0], nil
		case len(found) > 1:
			return subagentView{}, fmt.Errorf("Ambiguous subagent %s: %s", match.what, token)
		}
	}
	return subagentView{}, fmt.Errorf("Unknown subagent target: %s", token)
}

// kill stops the target ("all" or "*": every running child) with a stop
// mark keyed by the caller's message, so a retried turn writes the same.
func (s SubagentsTool) kill(ctx context.Context, views []subagentView, target string) (string, error) {
	if s.stops == nil {
		return "", errNoStops
	}
	mark := stopmark.Mark{MessageID: "subagents-kill:" + s.run.Message.ID, At: s.run.Now().UnixMilli(), Pending: true, Remote: true}
	if target == "all" || target == "*" {
		killed, labels := 0, []string{}
		for _, v := range views {
			if !v.active {
				continue
			}
			if err := s.stops.MarkStop(ctx, v.SessionKey, mark); err != nil {
				return "", fmt.Errorf("stop sub-agent %s: %w", v.SessionKey, err)
			}
			killed++
			labels = append(labels, v.Label)
		}
		text := fmt.Sprintf("killed %d subagent(s).", killed)
		if killed == 0 {
			text = "no running subagents to kill."
		}
		return tools.JSONResult(subagentsResult{Status: "ok", Action: actionKill, Target: "all", Killed: &killed, Labels: labels, Text: text})
	}
	v, err := resolveTarget(views, target)
	if err != nil {
		return tools.JSONResult(subagentsResult{Status: "error", Action: actionKill, Target: target, Error: err.Error()})
	}
	res := subagentsResult{Status: "done", Action: actionKill, Target: target, RunID: v.RunID, SessionKey: v.SessionKey, Label: v.Label, Text: v.Label + " is already finished."}
	if v.active {
		if err := s.stops.MarkStop(ctx, v.SessionKey, mark); err != nil {
			return "", fmt.Errorf("stop sub-agent %s: %w", v.SessionKey, err)
		}
		res.Status, res.Text = "ok", "killed "+v.Label+"."
	}
	return tools.JSONResult(res)
}

// steer queues message for the target's session: a sub-agent task like
// the spawn's (inbound.FlowSubagent, the caller's chat as its route), so
// its result is announced here when it has run.
func (s SubagentsTool) steer(ctx context.Context, views []subagentView, target, message string) (string, error) {
	if s.run.Ingress == nil {
		return "", fmt.Errorf("this deployment cannot queue messages, so it cannot steer sub-agents")
	}
	if err := checkText("message", message, "say what the sub-agent should do"); err != nil {
		return "", err
	}
	if n := utf8.RuneCountInString(message); n > maxSteerChars {
		return tools.JSONResult(subagentsResult{Status: "error", Action: actionSteer, Target: target,
			Error: fmt.Sprintf("Message too long (%d chars, max %d).", n, maxSteerChars)})
	}
	v, err := resolveTarget(views, target)
	if err != nil {
		return tools.JSONResult(subagentsResult{Status: "error", Action: actionSteer, Target: target, Error: err.Error()})
	}
	m := s.steerMessage(v, message)
	runID, err := s.run.Ingress.Queue(ctx, m)
	if err != nil {
		return "", fmt.Errorf("queue the steer for %s: %w", v.SessionKey, err)
	}
	return tools.JSONResult(subagentsResult{Status: "accepted", Action: actionSteer, Target: target, RunID: runID, SessionKey: v.SessionKey,
		Label: v.Label, Mode: "queued", Text: "steered " + v.Label + ": the message runs after its current turn; its result is announced here."})
}

// steerMessage is the message steering v: its id derives from the
// caller's message and the steer's ordinal in the run.
func (s SubagentsTool) steerMessage(v subagentView, message string) inbound.Message {
	caller := s.run.Message
	id := "subagent-steer:" + spawnID("steer:"+caller.ID, s.steers.Next(""))
	agentID := session.AgentOf(v.SessionKey)
	now := s.run.Now().UnixMilli()
	m := inbound.Message{
		ID: id, AgentID: agentID, SessionKey: v.SessionKey,
		Channel: inbound.Internal, ChatType: inbound.Direct, To: subagentTo,
		Text: message, ReceivedAt: now, Label: v.Label, SpawnedBy: caller.SessionKey,
		ExtraSystemPrompt: subagentContext(s.run.AgentID, caller, v.Label) + "\nThis message steers the task you were given: follow it.",
	}
	m.Flow = &inbound.Flow{
		Kind: inbound.FlowSubagent, ID: id,
		Requester: caller.SessionKey, RequesterAgent: s.run.AgentID, RequesterChannel: caller.Channel,
		Target: v.SessionKey, TargetAgent: agentID, Request: message,
		Route: spawnRoute(caller, s.run.Entry), Label: v.Label, Cleanup: inbound.CleanupKeep, StartedAt: now,
	}
	return m
}
