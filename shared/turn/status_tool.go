package turn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// Sessions is the optional Store capability behind session_status on
// another session than the turn's own: read it by key or sessionId and
// patch it with a version check (a session.Store has it; shared/dynamo and
// turntest.MemStore both are one). Without it, session_status reports and
// patches only the turn's own session.
type Sessions interface {
	Get(ctx context.Context, key string) (session.Entry, error)
	Lookup(ctx context.Context, sessionID string) (string, session.Entry, error)
	Update(ctx context.Context, key string, fn func(*session.Entry) error) (session.Entry, error)
}

const statusToolName = "session_status"

// statusTool is session_status: the /status report of a session, for the
// model, which may also set that session's model (the tools page:
// `sessionKey?` (default: the current session; a sessionId is accepted),
// `model?` (`default` clears the override)). It sees only sessions of the
// run's own agent.
//
// The turn's own session is not written by the tool: its entry is the
// turn's to commit, and turnOutput.apply replays the run's recorded
// session_status calls onto it (chosenModel), so a retry that adopts the
// recorded run changes the entry alike. Another session is patched at
// once through Sessions.Update.
type statusTool struct {
	p *Processor
	t *turnState
	e session.Entry
}

// statusArgs are session_status's arguments.
type statusArgs struct {
	SessionKey string `json:"sessionKey"`
	Model      string `json:"model"`
}

const statusSchema = `{"type":"object","properties":{` +
	`"sessionKey":{"type":"string","description":"the session to report on: a session key (\"main\" is this agent's direct chat) or a sessionId; default: this session"},` +
	`"model":{"type":"string","description":"set the session's model from its next message on: an alias or a model the configuration lists; \"default\" clears the override"}` +
	`},"additionalProperties":false}`

func (s statusTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: statusToolName,
		Description: "Show a session's status (default: this session): its key and id, the model, how much context is used, " +
			"thinking and verbose levels, and whether replies are sent. With model, set that session's model (\"default\" clears it).",
		Schema: json.RawMessage(statusSchema),
	}
}

func (s statusTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a statusArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be {sessionKey?: string, model?: string}: %v", err)
	}
	choice, err := resolveModelChoice(s.t.cfg, s.t.cfg.IsOwner(s.t.msg.Channel, s.t.msg.From), a.Model)
	if err != nil {
		return "", err
	}
	if isCurrentSession(s.t, s.e, a.SessionKey) {
		e := s.e
		choice.apply(&e)
		return s.p.statusOf(s.t.cfg, s.t.msg.SessionKey, e, s.t.history, s.t.reset == ResetStale) + choice.note(), nil
	}
	return s.other(ctx, strings.TrimSpace(a.SessionKey), choice)
}

// other reports on (and patches) a session other than the turn's own.
func (s statusTool) other(ctx context.Context, raw string, choice modelChoice) (string, error) {
	store, ok := s.p.Store.(Sessions)
	if !ok {
		return "", errors.New("this deployment's session store cannot read other sessions: session_status sees only this session")
	}
	key, e, err := findSession(ctx, store, s.t.cfg, s.e.AgentID, s.t.msg.Channel, raw)
	if err != nil {
		return "", err
	}
	if owner := agentOf(key, e); owner != session.NormalizeAgentID(s.e.AgentID) {
		return "", fmt.Errorf("session %q belongs to agent %q: session_status sees only agent %q's sessions", raw, owner, session.NormalizeAgentID(s.e.AgentID))
	}
	if choice.set {
		if e, err = store.Update(ctx, key, func(e *session.Entry) error { choice.apply(e); return nil }); err != nil {
			return "", fmt.Errorf("set the model of %s: %w", key, err)
		}
	}
	return s.p.statusOf(s.t.cfg, key, e, nil, false) + choice.note(), nil
}

// sessionFinder reads a session by key or by sessionId (Sessions and
// SessionReader both can).
type sessionFinder interface {
	Get(ctx context.Context, key string) (session.Entry, error)
	Lookup(ctx context.Context, sessionID string) (string, session.Entry, error)
}

// findSession finds raw as a session key (resolved like the session
// tools' keys: "main" is the agent's main key), else, when it could be a
// sessionId (no ":"), as one.
func findSession(ctx context.Context, store sessionFinder, cfg *config.Config, agentID, channel, raw string) (string, session.Entry, error) {
	key := session.Canonical(agentID, raw, channel, cfg.Keys())
	e, err := store.Get(ctx, key)
	if fault.Is(err, fault.NotFound) && !strings.Contains(raw, ":") {
		var k string
		if k, e, err = store.Lookup(ctx, raw); err == nil {
			return k, e, nil
		}
	}
	if fault.Is(err, fault.NotFound) {
		return "", session.Entry{}, fmt.Errorf("no session %q: give a session key (as sessions are listed) or a sessionId", raw)
	}
	if err != nil {
		return "", session.Entry{}, fmt.Errorf("read session %q: %w", raw, err)
	}
	return key, e, nil
}

// agentOf is the agent a session belongs to: its entry's, else its key's.
func agentOf(key string, e session.Entry) string {
	if e.AgentID != "" {
		return session.NormalizeAgentID(e.AgentID)
	}
	return session.AgentOf(key)
}

// isCurrentSession reports whether session_status's sessionKey names the
// turn's own session: empty, its sessionId, or a key resolving to it. Pure,
// so apply can replay a recorded call.
func isCurrentSession(t *turnState, e session.Entry, raw string) bool {
	raw = strings.TrimSpace(raw)
	if raw == "" || raw == e.SessionID {
		return true
	}
	return session.Canonical(e.AgentID, raw, t.msg.Channel, t.cfg.Keys()) == t.msg.SessionKey
}

// modelChoice is session_status's model argument, resolved.
type modelChoice struct {
	set bool      // a model argument was given
	ref model.Ref // the model; zero for "default" (clear the override)
}

// resolveModelChoice resolves session_status's model: "" for none,
// "default" to clear the override, else what /new accepts
// (config.ResetModel: an alias or a listed model; an owner may name any
// provider/model). Anything else is an error the model sees.
func resolveModelChoice(cfg *config.Config, owner bool, input string) (modelChoice, error) {
	input = strings.TrimSpace(input)
	switch {
	case input == "":
		return modelChoice{}, nil
	case strings.EqualFold(input, "default"):
		return modelChoice{set: true}, nil
	}
	ref, ok := cfg.ResetModel(input, owner)
	if !ok {
		return modelChoice{}, fmt.Errorf("model %q is not one the configuration lists: name an alias or a model of agents.defaults.models, or \"default\" to clear the override", input)
	}
	return modelChoice{set: true, ref: ref}, nil
}

func (c modelChoice) apply(e *session.Entry) {
	if c.set {
		e.ProviderOverride, e.ModelOverride = c.ref.Provider, c.ref.Name
	}
}

func (c modelChoice) note() string {
	switch {
	case !c.set:
		return ""
	case c.ref.Provider == "":
		return "\nModel override cleared: the session's next message uses its default model."
	}
	return "\nModel set to " + c.ref.String() + " from the session's next message."
}

// chosenModel applies to e, the turn's own entry, what the run's
// session_status calls chose for its model: every call naming this
// session with a model whose result was not an error, in order. It reads
// the recorded calls, so an adopted run (a retry) changes e alike.
func chosenModel(e *session.Entry, msgs []model.Message, t *turnState) {
	succeeded := map[string]bool{}
	for _, m := range msgs {
		if m.Role == model.ToolResult && !m.IsError {
			succeeded[m.ToolCallID] = true
		}
	}
	owner := t.cfg.IsOwner(t.msg.Channel, t.msg.From)
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			var a statusArgs
			if c.Name != statusToolName || !succeeded[c.ID] || json.Unmarshal([]byte(c.Arguments), &a) != nil || !isCurrentSession(t, *e, a.SessionKey) {
				continue
			}
			if choice, err := resolveModelChoice(t.cfg, owner, a.Model); err == nil {
				choice.apply(e)
			}
		}
	}
}
