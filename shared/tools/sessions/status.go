package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
)

// StatusTool is session_status: the /status report of a session, for the
// model, which may also set that session's model (the tools page:
// `sessionKey?` (default: the current session; a sessionId is accepted),
// `model?` (`default` clears the override)). It sees only sessions of the
// run's own agent, and for an admitted sender only those in its
// tools.sessions.visibility scope (view.scoped).
//
// The run's own session is not written by the tool: its entry is the
// turn's to commit, and the engine replays the run's recorded
// session_status calls onto it (ChosenModel), so a retry that adopts the
// recorded run changes the entry alike. Another session is patched at
// once through Updater.Update.
type StatusTool struct {
	cfg     *config.Config
	caller  inbound.Message // the run's message: its session is the current one
	entry   session.Entry   // the run's session entry
	report  tools.StatusReport
	updates Updater // nil: only the run's own session
	view    view    // its scope bounds the other sessions it reaches
}

// NewStatusTool is session_status of run, answering with run.Status
// (which must be set) and reaching other sessions through updates (nil:
// none).
func NewStatusTool(run tools.Run, updates Updater) StatusTool {
	return StatusTool{cfg: run.Config, caller: run.Message, entry: run.Entry, report: run.Status, updates: updates, view: viewOf(run)}
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

// Spec implements tools.Tool.
func (StatusTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: StatusName,
		Description: "Show a session's status (default: this session): its key and id, the model, how much context is used, " +
			"thinking and verbose levels, and whether replies are sent. With model, set that session's model (\"default\" clears it).",
		Schema: json.RawMessage(statusSchema),
	}
}

// Run reports on the session sessionKey names, with the model change
// noted; a model the configuration does not allow is an error.
func (s StatusTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a statusArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be {sessionKey?: string, model?: string}: %v", err)
	}
	choice, err := resolveModelChoice(s.cfg, s.cfg.IsOwner(s.caller.Channel, s.caller.From), a.Model)
	if err != nil {
		return "", err
	}
	if isCurrentSession(s.cfg, s.caller, s.entry, a.SessionKey) {
		e := s.entry
		choice.apply(&e)
		return s.report(s.caller.SessionKey, e, true) + choice.note(), nil
	}
	return s.other(ctx, strings.TrimSpace(a.SessionKey), choice)
}

// other reports on (and patches) a session other than the run's own.
func (s StatusTool) other(ctx context.Context, raw string, choice modelChoice) (string, error) {
	if s.updates == nil {
		return "", errors.New("this deployment's session store cannot read other sessions: session_status sees only this session")
	}
	key, e, err := findSession(ctx, s.updates, s.cfg, s.entry.AgentID, s.caller.Channel, raw)
	if key, e, err = s.view.scoped(ctx, s.updates, raw, key, e, err); err != nil {
		return "", err
	}
	self := session.NormalizeAgentID(s.entry.AgentID)
	if owner := session.OwnerOf(key, e); owner != self {
		return "", fmt.Errorf("session %q belongs to agent %q: session_status sees only agent %q's sessions", raw, owner, self)
	}
	if choice.set {
		if e, err = s.updates.Update(ctx, key, func(e *session.Entry) error { choice.apply(e); return nil }); err != nil {
			return "", fmt.Errorf("set the model of %s: %w", key, err)
		}
	}
	return s.report(key, e, false) + choice.note(), nil
}

// ChosenModel is what one recorded, successful session_status call with
// arguments args chose for the model of the run's own session (caller's
// session under cfg, entry e): ok is false when the call named another
// session, set no model, or its model does not resolve; a zero ref with
// ok clears the override. The engine replays a run's calls with it when
// it commits the run's entry, so a retry that adopts the recorded run
// changes the entry alike. Pure.
func ChosenModel(cfg *config.Config, caller inbound.Message, e session.Entry, args string) (model.Ref, bool) {
	var a statusArgs
	if json.Unmarshal([]byte(args), &a) != nil || !isCurrentSession(cfg, caller, e, a.SessionKey) {
		return model.Ref{}, false
	}
	choice, err := resolveModelChoice(cfg, cfg.IsOwner(caller.Channel, caller.From), a.Model)
	if err != nil || !choice.set {
		return model.Ref{}, false
	}
	return choice.ref, true
}

// isCurrentSession reports whether session_status's sessionKey names the
// run's own session: empty, its sessionId, or a key resolving to it.
// Pure, so a recorded call can be replayed.
func isCurrentSession(cfg *config.Config, caller inbound.Message, e session.Entry, raw string) bool {
	raw = strings.TrimSpace(raw)
	if raw == "" || raw == e.SessionID {
		return true
	}
	return session.Canonical(e.AgentID, raw, caller.Channel, cfg.Keys()) == caller.SessionKey
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
