// Package sessions is the session tools (the session tools page):
// session_status, sessions_list, sessions_history, sessions_send,
// sessions_spawn, sessions_yield, subagents and agents_list. They see a run through tools.Run and
// reach the deployment through the ports declared here (Reader, Updater),
// session.PartReader (transcripts), run.Getter (sessions_send's wait) and
// tools.Ingress (sessions_send and sessions_spawn queue through the
// ingest door). What follows a send or a spawn (the reply-back rounds,
// the announces) is the turn engine's: the tools only start the flow
// (inbound.Flow).
package sessions

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
)

// Names of the tools.
const (
	StatusName  = "session_status"
	ListName    = "sessions_list"
	HistoryName = "sessions_history"
	SendName    = "sessions_send"
	SpawnName   = "sessions_spawn"
	AgentsName  = "agents_list"
	YieldName   = "sessions_yield"
	// SubagentsName is upstream's subagents tool (list / kill / steer).
	SubagentsName = "subagents"
)

// Finder reads a session by key or by sessionId (a session.Store is one).
type Finder interface {
	Get(ctx context.Context, key string) (session.Entry, error)
	Lookup(ctx context.Context, sessionID string) (string, session.Entry, error)
}

// Reader is what sessions_list, sessions_history and sessions_send read:
// a session by key or sessionId, and an agent's sessions, each by one
// index query, never a scan (a session.Store is one).
type Reader interface {
	Finder
	List(ctx context.Context, q session.ListQuery) ([]session.Listed, error)
}

// Updater patches a session with a version check: session_status's
// model change on a session other than the run's own (a session.Store is
// one).
type Updater interface {
	Finder
	Update(ctx context.Context, key string, fn func(*session.Entry) error) (session.Entry, error)
}

// view is what one run's session tools may see: every agent's sessions,
// or, in a sandboxed session whose visibility is "spawned", only the
// sessions it spawned (entries whose spawnedBy is its key).
type view struct {
	cfg         *config.Config
	keys        session.KeyConfig
	agentID     string // the caller's agent, normalised
	key         string // the caller's session key
	channel     string // the caller's channel, for legacy keys
	spawnedOnly bool
}

// viewOf is the view of run, as the tool policy decided it
// (tools.Run.SessionVisibility).
func viewOf(run tools.Run) view {
	return view{
		cfg: run.Config, keys: run.Config.Keys(), agentID: run.AgentID, key: run.Message.SessionKey,
		channel: run.Message.Channel, spawnedOnly: run.SessionVisibility == config.VisibilitySpawned,
	}
}

// visible reports whether the view shows the session of entry e.
func (v view) visible(e session.Entry) bool {
	return !v.spawnedOnly || e.SpawnedBy == v.key
}

// globalScope reports whether session.scope is global (the one shared
// session is "global", shown as "main").
func (v view) globalScope() bool { return strings.EqualFold(v.keys.Scope, session.ScopeGlobal) }

// row is the row of key's entry as this caller sees it: its own agent's
// main session (and "global") keyed "main".
func (v view) row(key string, e session.Entry) session.Row {
	r := session.RowOf(key, e, v.keys)
	r.Key = session.ShownKey(v.agentID, key, v.keys)
	return r
}

// agents are the agents whose sessions sessions_list lists: those of
// agents.list, and the default agent (the only one without a list).
func (v view) agents() []string {
	routing := v.cfg.Routing()
	ids := slices.Clone(routing.IDs)
	if !slices.Contains(ids, routing.Default) {
		ids = append(ids, routing.Default)
	}
	return ids
}

// find resolves sessionKey as the session tools do (findSession: a key,
// "main" included, else a sessionId; an unknown one is an error) and
// checks the view shows it. "unknown" is never a session the tools name,
// nor "global" unless session.scope is global (where it is "main"). In a
// spawned-only view a missing session and one it may not see read alike.
func (v view) find(ctx context.Context, store Finder, raw string) (string, session.Entry, error) {
	if raw == "" {
		return "", session.Entry{}, errors.New("sessionKey is required: a session key as sessions_list shows it, or a sessionId")
	}
	k := strings.ToLower(raw)
	if k == session.KeyUnknown || (k == session.KeyGlobal && !v.globalScope()) {
		return "", session.Entry{}, fmt.Errorf("%q is a reserved key, not a session: use a key sessions_list shows", raw)
	}
	key, e, err := findSession(ctx, store, v.cfg, v.agentID, v.channel, raw)
	if v.spawnedOnly && (err != nil || !v.visible(e)) {
		return "", session.Entry{}, fmt.Errorf("no session %q among those this session spawned: a sandboxed session sees only the sessions it spawned (sessionToolsVisibility \"spawned\")", raw)
	}
	return key, e, err
}

// findSession finds raw as a session key (resolved like the session
// tools' keys: "main" is the agent's main key), else, when it could be a
// sessionId (no ":"), as one.
func findSession(ctx context.Context, store Finder, cfg *config.Config, agentID, channel, raw string) (string, session.Entry, error) {
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
