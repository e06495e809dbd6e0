package turn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
)

const sessionsHistoryName = "sessions_history"

// sessionsHistoryTool is sessions_history (the session tools page).
type sessionsHistoryTool struct {
	p     *Processor
	store SessionReader
	view  sessionView
}

type historyArgs struct {
	SessionKey   string        `json:"sessionKey"`
	Limit        *tools.Number `json:"limit"`
	IncludeTools bool          `json:"includeTools"`
}

// historyResult is sessions_history's answer: the transcript's messages
// in their raw format, oldest first. Truncated: older messages were left
// out to keep the result within a tool result's size.
type historyResult struct {
	SessionKey string            `json:"sessionKey"`
	SessionID  string            `json:"sessionId"`
	Messages   []json.RawMessage `json:"messages"`
	Truncated  bool              `json:"truncated,omitempty"`
}

const historySchema = `{"type":"object","properties":{` +
	`"sessionKey":{"type":"string","description":"a session key as sessions_list shows it (\"main\" is this agent's direct chat) or a sessionId"},` +
	`"limit":{"type":"integer","minimum":1,"maximum":200,"description":"most messages, the last ones (default 50)"},` +
	`"includeTools":{"type":"boolean","description":"include tool results (default false)"}` +
	`},"required":["sessionKey"],"additionalProperties":false}`

func (s sessionsHistoryTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name:        sessionsHistoryName,
		Description: "Read a session's transcript messages (the last ones), by session key or sessionId; tool results only with includeTools.",
		Schema:      json.RawMessage(historySchema),
	}
}

func (s sessionsHistoryTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a historyArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be {sessionKey: string, limit?: number, includeTools?: boolean}: %v", err)
	}
	key, e, err := s.find(ctx, strings.TrimSpace(a.SessionKey))
	if err != nil {
		return "", err
	}
	limit := tools.Clamp(a.Limit, defaultHistoryLimit, 1, maxHistoryLimit)
	msgs := []json.RawMessage{}
	if e.TranscriptSeq > 0 {
		if s.p.Transcript == nil {
			return "", errors.New("this deployment has no transcript store")
		}
		if msgs, err = session.LastMessages(ctx, s.p.Transcript, session.TranscriptPath(key, e), e.TranscriptSeq, a.IncludeTools, limit); err != nil {
			return "", fmt.Errorf("read the transcript of %s: %w", key, err)
		}
	}
	kept, dropped, err := tools.Fitted(msgs, tools.ResultBudget-len(key)-len(e.SessionID), true)
	if err != nil {
		return "", err
	}
	return tools.JSONResult(historyResult{SessionKey: session.ShownKey(s.view.agentID, key, s.view.keys), SessionID: e.SessionID, Messages: kept, Truncated: dropped > 0})
}

// find resolves sessionKey as the session tools do (findSession: a key,
// "main" included, else a sessionId; an unknown one is an error) and
// checks the view shows it. "unknown" is never a session the tools name,
// nor "global" unless session.scope is global (where it is "main"). In a
// spawned-only view a missing session and one it may not see read alike.
func (s sessionsHistoryTool) find(ctx context.Context, raw string) (string, session.Entry, error) {
	if raw == "" {
		return "", session.Entry{}, errors.New("sessionKey is required: a session key as sessions_list shows it, or a sessionId")
	}
	k := strings.ToLower(raw)
	if k == session.KeyUnknown || (k == session.KeyGlobal && !strings.EqualFold(s.view.keys.Scope, session.ScopeGlobal)) {
		return "", session.Entry{}, fmt.Errorf("%q is a reserved key, not a session: use a key sessions_list shows", raw)
	}
	key, e, err := findSession(ctx, s.store, s.view.cfg, s.view.agentID, s.view.channel, raw)
	if s.view.spawnedOnly && (err != nil || !s.view.visible(e)) {
		return "", session.Entry{}, fmt.Errorf("no session %q among those this session spawned: a sandboxed session sees only the sessions it spawned (sessionToolsVisibility \"spawned\")", raw)
	}
	return key, e, err
}

const agentsListName = "agents_list"

// agentsListTool is agents_list: the agent ids the caller may pass to
// sessions_spawn's agentId, from agents.list[].subagents.allowAgents of
// its agent ("*": any listed agent, allowAny), always including its own.
type agentsListTool struct {
	view sessionView
}

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

func (agentsListTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name:        agentsListName,
		Description: "List the agent ids this session may start a sub-agent under (sessions_spawn's agentId); allowAny when any agent is allowed.",
		Schema:      json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
	}
}

func (a agentsListTool) Run(context.Context, json.RawMessage) (string, error) {
	return tools.JSONResult(spawnableAgents(a.view))
}

// spawnableAgents applies the allowlist of the caller's agent: unset or
// empty, only the caller's agent; "*", every listed agent (allowAny);
// otherwise the ids it names.
func spawnableAgents(v sessionView) agentsResult {
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
