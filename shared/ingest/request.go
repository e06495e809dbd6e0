package ingest

import (
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/session"
)

// Origin says who vouches for a message's sender, which decides the
// admission rules that apply to it.
type Origin int

const (
	// Peer is someone on a channel: a user, or the chat of a channel
	// post. The platform authenticates the delivery, not the person, so
	// channels.<channel>.allowFrom must admit the sender, or for a group
	// or channel chat the chat itself.
	Peer Origin = iota
	// Operator is an authenticated caller of the gateway API (its bearer
	// token is the operator's). allowFrom does not apply: it lists who
	// may talk to the assistant on a channel, and the operator is the one
	// who writes it. Later trusted callers the operator configures
	// (hooks with their token, cron jobs, sub-agents, sessions_send) are
	// operators too. Stop marks and the queue mode apply as to anyone.
	Operator
)

// String names the origin for logs.
func (o Origin) String() string {
	switch o {
	case Peer:
		return "peer"
	case Operator:
		return "operator"
	}
	return "unknown"
}

// Request is one inbound event at the door.
type Request struct {
	// Message is the message as its ingress maps it. Its ID must be the
	// same on every delivery of the same event (it is the queue's dedup
	// id and the runner's record key), e.g. "<channel>:<account>:<event
	// id>". AgentID and SessionKey: left empty for the door to route
	// (see Route); set by callers that name the session themselves (the
	// gateway's sessionKey or sessionId), which the door keeps as they
	// are. A KindMigrate message also leaves MigrateFrom empty (see
	// MigrateFrom).
	Message inbound.Message
	// Route is where the message came from. When Message.SessionKey is
	// empty the door routes on it: the agent by agents' bindings, the key
	// by session.dmScope, identityLinks and session.scope.
	Route session.Route
	// MigrateFrom is, for a KindMigrate message routed by the door, the
	// route of the chat whose session moves to Route's.
	MigrateFrom session.Route
	// Origin decides the admission rules (default Peer).
	Origin Origin
}

// address returns r's message with its agent and session key (and, for a
// migration, the key it moves from), validated.
func address(cfg *config.Config, r Request) (inbound.Message, error) {
	if r.Origin != Peer && r.Origin != Operator {
		return inbound.Message{}, invalid("unknown origin %d", r.Origin)
	}
	m := r.Message
	switch {
	case m.SessionKey != "":
		if m.AgentID == "" {
			m.AgentID = agentOfKey(cfg, m.SessionKey)
		}
	case strings.TrimSpace(r.Route.Channel) == "":
		return inbound.Message{}, invalid("message %q names no session and has no route", m.ID)
	default:
		m.AgentID, m.SessionKey = route(cfg, r.Route)
		if m.Kind == inbound.KindMigrate && m.MigrateFrom == "" {
			// An empty old route would key the main session: refuse it
			// rather than move the wrong session.
			if strings.TrimSpace(r.MigrateFrom.PeerID) == "" {
				return inbound.Message{}, invalid("migration %q has no old chat", m.ID)
			}
			_, m.MigrateFrom = route(cfg, r.MigrateFrom)
		}
	}
	if err := m.Validate(); err != nil {
		return inbound.Message{}, err
	}
	return m, nil
}

// route picks the agent of r (the most specific binding, else the default
// agent) and r's session key under that agent.
func route(cfg *config.Config, r session.Route) (agentID, key string) {
	agentID = cfg.Routing().AgentFor(r)
	return agentID, session.Key(agentID, r, cfg.Keys())
}

// agentOfKey is the agent a named key belongs to: the one an
// agent:<id>:... key names, else the default agent (cron:, hook:, node-
// and the reserved keys name none).
func agentOfKey(cfg *config.Config, key string) string {
	if strings.HasPrefix(key, "agent:") {
		return session.AgentOf(key)
	}
	return session.NormalizeAgentID(cfg.Routing().Default)
}

// invalid is a request the door cannot address.
func invalid(format string, args ...any) error {
	return fault.New(fault.Invalid, "ingest: "+format, args...)
}
