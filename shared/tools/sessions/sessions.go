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
	"github.com/zero-gateway/zero/shared/inbound"
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
// sessions it spawned (entries whose spawnedBy is its key); and within
// that, for an admitted sender's run, only its scope
// (tools.sessions.visibility).
type view struct {
	cfg         *config.Config
	keys        session.KeyConfig
	agentID     string // the caller's agent, normalised
	key         string // the caller's session key
	channel     string // the caller's channel, for legacy keys
	spawnedOnly bool
	// scope is tools.sessions.visibility for an admitted sender's run
	// (self, tree, agent, all), self for an untrusted run, "" (every
	// session) for the owner's.
	scope string
}

// viewOf is the view of run, as the tool policy decided it
// (tools.Run.SessionVisibility) and as far as who asked may see.
func viewOf(run tools.Run) view {
	return view{
		cfg: run.Config, keys: run.Config.Keys(), agentID: run.AgentID, key: run.Message.SessionKey,
		channel: run.Message.Channel, spawnedOnly: run.SessionVisibility == config.VisibilitySpawned,
		scope: scopeOf(run),
	}
}

// scopeOf is the visibility scope of run's session tools: the owner sees
// every session (""), an admitted sender what tools.sessions.visibility
// says (default self), untrusted text its own session only. The gate
// (tools.Allowed) refuses a call past the run's own session before the
// scope is asked when the scope is self.
func scopeOf(run tools.Run) string {
	switch run.Provenance {
	case inbound.Sender:
		if v := run.Config.Tools.Sessions.Visibility; v != "" {
			return v
		}
		return config.SessionsVisibilitySelf
	case inbound.Untrusted:
		return config.SessionsVisibilitySelf
	}
	return ""
}

// visible reports whether the view shows the session of entry e.
func (v view) visible(e session.Entry) bool {
	return !v.spawnedOnly || e.SpawnedBy == v.key
}

// maxTreeDepth bounds the spawnedBy chain inTree follows (sub-agents do
// not spawn today, so a tree is one level deep).
const maxTreeDepth = 8

// inScope reports whether the session key (entry e) is within the view's
// scope: self is the run's own session; tree adds the sessions it
// spawned, recursively (inTree); agent is every session of the run's
// agent; all (and the owner's "") every session. An unknown scope shows
// only the run's own session. Errors are the store's.
func (v view) inScope(ctx context.Context, store Finder, key string, e session.Entry) (bool, error) {
	switch v.scope {
	case "", config.SessionsVisibilityAll:
		return true, nil
	case config.SessionsVisibilityAgent:
		return session.OwnerOf(key, e) == v.agentID, nil
	case config.SessionsVisibilityTree:
		return v.inTree(ctx, store, key, e)
	}
	return key == v.key, nil
}

// inTree reports whether key (entry e) is the run's own session or one
// it spawned, directly or through sessions it spawned: it follows
// spawnedBy up to maxTreeDepth sessions, one Get each past the first.
// A parent that no longer exists ends the chain (not in the tree).
func (v view) inTree(ctx context.Context, store Finder, key string, e session.Entry) (bool, error) {
	for range maxTreeDepth {
		if key == v.key || e.SpawnedBy == v.key {
			return true, nil
		}
		if e.SpawnedBy == "" {
			return false, nil
		}
		parent, err := store.Get(ctx, e.SpawnedBy)
		if fault.Is(err, fault.NotFound) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("read session %q (the parent of %q): %w", e.SpawnedBy, key, err)
		}
		key, e = e.SpawnedBy, parent
	}
	return false, nil
}

// scopeNote says, in a refusal, what the scope shows.
func (v view) scopeNote() string {
	switch v.scope {
	case config.SessionsVisibilityTree:
		return "this session and the sub-agent sessions it spawned"
	case config.SessionsVisibilityAgent:
		return "agent " + v.agentID + "'s sessions"
	}
	return "this session only"
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
	return v.scoped(ctx, store, raw, key, e, err)
}

// scoped is findSession's answer for raw (key, e, err) as the view's
// scope sees it: unchanged when the session is in scope, else the same
// refusal for a session out of scope and for one that does not exist.
// A store failure stays itself.
func (v view) scoped(ctx context.Context, store Finder, raw, key string, e session.Entry, err error) (string, session.Entry, error) {
	if v.scope == "" || v.scope == config.SessionsVisibilityAll {
		return key, e, err
	}
	in := false
	if err == nil {
		if in, err = v.inScope(ctx, store, key, e); err != nil {
			return "", session.Entry{}, err
		}
	} else if !errors.As(err, new(noSessionError)) {
		return "", session.Entry{}, err
	}
	if !in { // a missing session and one out of scope read alike
		return "", session.Entry{}, fmt.Errorf("no session %q that this run may see: for a sender who is not an owner tools.sessions.visibility is %q (%s)", raw, v.scope, v.scopeNote())
	}
	return key, e, nil
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
		return "", session.Entry{}, noSessionError{raw}
	}
	if err != nil {
		return "", session.Entry{}, fmt.Errorf("read session %q: %w", raw, err)
	}
	return key, e, nil
}

// noSessionError is findSession's answer for a session that does not
// exist.
type noSessionError struct{ raw string }

func (e noSessionError) Error() string {
	return fmt.Sprintf("no session %q: give a session key (as sessions are listed) or a sessionId", e.raw)
}
