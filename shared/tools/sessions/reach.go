package sessions

import (
	"encoding/json"
	"strings"

	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
)

// ownSession reports whether key names the run's own session: empty, its
// key, its sessionId, or a key ("main", …) that resolves to it.
func ownSession(run tools.Run, key string) bool {
	key = strings.TrimSpace(key)
	switch {
	case key == "", key == run.Message.SessionKey:
		return true
	case run.Entry.SessionID != "" && key == run.Entry.SessionID:
		return true
	}
	return run.Config != nil && session.Canonical(run.AgentID, key, "", run.Config.Keys()) == run.Message.SessionKey
}

// keyArg reads the sessionKey argument of a call; ok is false when the
// arguments do not decode (the tool refuses them itself).
func keyArg(raw json.RawMessage) (key string, ok bool) {
	var a struct {
		SessionKey string `json:"sessionKey"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return "", false
	}
	return a.SessionKey, true
}

// HistoryReach is the reach of sessions_history and session_status:
// other sessions, unless the call names the run's own.
func HistoryReach(run tools.Run, raw json.RawMessage) tools.Reach {
	key, ok := keyArg(raw)
	if !ok || ownSession(run, key) {
		return 0
	}
	return tools.ReachSessions
}

// ListReach is the reach of sessions_list: other sessions, always (it
// shows their keys, labels and last messages).
func ListReach(tools.Run, json.RawMessage) tools.Reach { return tools.ReachSessions }

// SendReach is the reach of sessions_send: other sessions, and another
// agent when the target's key names one.
func SendReach(run tools.Run, raw json.RawMessage) tools.Reach {
	key, ok := keyArg(raw)
	if !ok {
		return 0
	}
	r := tools.ReachSessions
	if agent := session.AgentOf(strings.TrimSpace(key)); strings.HasPrefix(strings.TrimSpace(key), "agent:") && agent != run.AgentID {
		r |= tools.ReachAgents
	}
	return r
}

// SubagentsReach is the reach of subagents and sessions_yield: nothing
// past the conversation. Their targets resolve only among the sub-agents
// the run's own session spawned (childrenOf), which work for it: listing,
// steering or stopping them stays inside its conversation, whoever asked.
func SubagentsReach(tools.Run, json.RawMessage) tools.Reach { return 0 }
