package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
)

// Limits of the session methods.
const (
	// maxRowMessages bounds sessions.list's messageLimit: every row with
	// messages costs a transcript read.
	maxRowMessages = 20
	// Defaults and bounds of chat.history's limit.
	defaultHistory = 50
	maxHistory     = 500
	// statusRows is how many sessions status shows.
	statusRows = 5
)

var kinds = []string{session.KindMain, session.KindGroup, session.KindCron, session.KindHook, session.KindNode, session.KindOther}

// rowOf builds the row of key's entry: session.RowOf's (the one place
// that computes a row's key, kind, channel, model and transcriptPath),
// plus the gateway's own fields (input/output tokens, label).
func rowOf(cfg *config.Config, key string, e session.Entry) Row {
	s := session.RowOf(key, e, cfg.Keys())
	r := Row{
		Key: s.Key, Kind: s.Kind, Channel: s.Channel, DisplayName: s.DisplayName,
		UpdatedAt: s.UpdatedAt, SessionID: s.SessionID, Model: s.Model,
		ContextTokens: s.ContextTokens, TotalTokens: s.TotalTokens, InputTokens: e.InputTokens, OutputTokens: e.OutputTokens,
		ThinkingLevel: s.ThinkingLevel, VerboseLevel: s.VerboseLevel, SystemSent: s.SystemSent, AbortedLastRun: s.AbortedLastRun,
		SendPolicy: s.SendPolicy, LastChannel: s.LastChannel, LastTo: s.LastTo, Label: e.Label,
		TranscriptPath: s.TranscriptPath,
	}
	if d := s.DeliveryContext; d != nil {
		r.DeliveryContext = &DeliveryContext{Channel: d.Channel, To: d.To, AccountID: d.AccountID}
	}
	return r
}

// sessionsList lists an agent's sessions, newest first (equal updatedAt
// in key order): {sessions: [Row]}, by the one sessions query the
// sessions_list tool also runs (session.ListSessions, with its error
// rule). limit defaults to session.DefaultListLimit and is capped at
// session.MaxListLimit; kinds filters by Row.Kind (the store is then
// asked for MaxListLimit rows, filtered, and cut to limit);
// activeMinutes keeps the sessions updated in the last N minutes;
// messageLimit > 0 (at most 20) adds each row's last N user/assistant
// messages from its transcript; includeGlobal/includeUnknown add the
// reserved sessions "global" and "unknown" when they exist.
//
// Store calls: 1 List, plus 1 Get per include flag; with messageLimit,
// per row that has a transcript, the newest parts until it has its
// messages (usually 1 window of up to 8 part reads; rows up to 8 at
// once).
func (g *gateway) sessionsList(ctx context.Context, params json.RawMessage) (any, error) {
	var p ListParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	limit, messages, err := p.check()
	if err != nil {
		return nil, err
	}
	if g.Sessions == nil {
		return nil, missing("Sessions")
	}
	if messages > 0 && g.Transcripts == nil {
		return nil, missing("Transcripts")
	}
	cfg, err := g.config(ctx)
	if err != nil {
		return nil, err
	}
	found, err := session.ListSessions(ctx, g.Sessions, g.listing(cfg, p, limit, messages))
	if err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(found))
	for _, f := range found {
		r := rowOf(cfg, f.Key, f.Entry)
		r.Messages = f.Messages
		rows = append(rows, r)
	}
	return ListResult{Sessions: rows}, nil
}

// listing is the sessions query of p, checked: one agent's sessions and
// the reserved ones p includes, messages read from g.Transcripts.
func (g *gateway) listing(cfg *config.Config, p ListParams, limit, messages int) session.Listing {
	l := session.Listing{Agents: []string{agentOr(cfg, p.AgentID)}, Limit: limit, Kinds: p.Kinds, Keys: cfg.Keys(), Messages: messages}
	if p.ActiveMinutes != nil && *p.ActiveMinutes > 0 {
		l.ActiveSince = g.nowMS() - *p.ActiveMinutes*60_000
	}
	if p.IncludeGlobal {
		l.Reserved = append(l.Reserved, session.KeyGlobal)
	}
	if p.IncludeUnknown {
		l.Reserved = append(l.Reserved, session.KeyUnknown)
	}
	if messages > 0 {
		l.Read = func(ctx context.Context, path string, parts int64, n int) ([]json.RawMessage, error) {
			return g.readMessages(ctx, path, parts, false, n)
		}
	}
	return l
}

// check validates p and returns the row limit (session.DefaultListLimit
// when unset, capped at session.MaxListLimit) and the messages per row.
func (p ListParams) check() (limit, messages int, err error) {
	limit = session.DefaultListLimit
	if p.Limit != nil {
		if *p.Limit < 1 {
			return 0, 0, invalidf("params.limit: must be >= 1, got %d", *p.Limit)
		}
		limit = min(*p.Limit, session.MaxListLimit)
	}
	for i, k := range p.Kinds {
		if !oneOf(k, kinds) {
			return 0, 0, invalidf("params.kinds[%d]: must be one of %s, got %q", i, strings.Join(kinds, ", "), k)
		}
	}
	if p.ActiveMinutes != nil && *p.ActiveMinutes < 0 {
		return 0, 0, invalidf("params.activeMinutes: must be >= 0, got %d", *p.ActiveMinutes)
	}
	if p.MessageLimit != nil {
		if *p.MessageLimit < 0 || *p.MessageLimit > maxRowMessages {
			return 0, 0, invalidf("params.messageLimit: must be 0-%d, got %d", maxRowMessages, *p.MessageLimit)
		}
		messages = *p.MessageLimit
	}
	return limit, messages, nil
}

// uuidShape matches a sessionId, so that chat.history's sessionKey also
// accepts one (as the seed's sessions_history does).
var uuidShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// chatHistory returns a session's transcript messages, the message
// objects of its "message" lines in the transcript's format
// (transcript.Message: role, content blocks, timestamp, usage, ...):
// {sessionKey, sessionId, messages}. The session is sessionId (Lookup), else sessionKey (default
// "main"; a sessionId passed as sessionKey is looked up too). limit
// (default 50, at most 500) keeps the last messages; toolResult messages
// only with includeTools.
//
// Store calls: 1 Get (or 1 Lookup), then, unless the session has no
// transcript part yet, part reads from the newest back, 8 at a time,
// until limit messages are found (one part per turn: 1-2 windows for the
// default limit). Transcripts without Part read every part.
func (g *gateway) chatHistory(ctx context.Context, params json.RawMessage) (any, error) {
	var p HistoryParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	limit := defaultHistory
	if p.Limit != nil {
		if *p.Limit < 1 {
			return nil, invalidf("params.limit: must be >= 1, got %d", *p.Limit)
		}
		limit = min(*p.Limit, maxHistory)
	}
	cfg, key, e, err := g.transcriptSession(ctx, p.SessionKey, p.SessionID)
	if err != nil {
		return nil, err
	}
	msgs := []json.RawMessage{}
	if e.TranscriptSeq > 0 {
		if msgs, err = g.readMessages(ctx, session.TranscriptPath(key, e), e.TranscriptSeq, p.IncludeTools, limit); err != nil {
			return nil, err
		}
	}
	return HistoryResult{SessionKey: session.Display(key, cfg.Keys()), SessionID: e.SessionID, Messages: msgs}, nil
}

// findSession returns an existing session by sessionId, else by key
// (default "main", resolved under the default agent); a key shaped like a
// sessionId that names no session is looked up as one. Missing: NotFound.
// transcriptSession is the session a transcript method reads (by key or
// sessionId, as findSession) and the config in force; an error when the
// gateway has no session store or transcripts.
func (g *gateway) transcriptSession(ctx context.Context, key, sessionID string) (*config.Config, string, session.Entry, error) {
	if g.Sessions == nil {
		return nil, "", session.Entry{}, missing("Sessions")
	}
	if g.Transcripts == nil {
		return nil, "", session.Entry{}, missing("Transcripts")
	}
	cfg, err := g.config(ctx)
	if err != nil {
		return nil, "", session.Entry{}, err
	}
	key, e, err := g.findSession(ctx, cfg, key, sessionID)
	return cfg, key, e, err
}

func (g *gateway) findSession(ctx context.Context, cfg *config.Config, key, sessionID string) (string, session.Entry, error) {
	if sessionID = strings.TrimSpace(sessionID); sessionID != "" {
		if key != "" {
			return "", session.Entry{}, invalidf("params: give sessionKey or sessionId, not both")
		}
		k, e, err := g.Sessions.Lookup(ctx, sessionID)
		if fault.Is(err, fault.NotFound) {
			return "", session.Entry{}, fault.Wrap(fault.NotFound, err, "params.sessionId: no session has id %q", sessionID)
		}
		return k, e, err
	}
	raw := strings.TrimSpace(key)
	if raw == "" {
		raw = session.DefaultMainKey
	}
	k := session.Canonical(agentOr(cfg, ""), raw, "", cfg.Keys())
	e, err := g.Sessions.Get(ctx, k)
	if fault.Is(err, fault.NotFound) && uuidShape.MatchString(raw) {
		if k2, e2, err2 := g.Sessions.Lookup(ctx, raw); err2 == nil {
			return k2, e2, nil
		}
	}
	if fault.Is(err, fault.NotFound) {
		return "", session.Entry{}, fault.Wrap(fault.NotFound, err, "no session %q", raw)
	}
	return k, e, err
}

// sessionsResolve finds a session's key: {key, sessionId}. By sessionId
// (1 Lookup), or by label, matched trimmed and case-insensitively among
// the agent's newest session.MaxListLimit sessions (1 List); when several
// match, the most recently updated wins. Not found: 404.
func (g *gateway) sessionsResolve(ctx context.Context, params json.RawMessage) (any, error) {
	var p ResolveParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	id, label := strings.TrimSpace(p.SessionID), strings.TrimSpace(p.Label)
	switch {
	case id == "" && label == "":
		return nil, invalidf("params.sessionId: required (or params.label)")
	case id != "" && label != "":
		return nil, invalidf("params.label: give sessionId or label, not both")
	}
	if g.Sessions == nil {
		return nil, missing("Sessions")
	}
	cfg, err := g.config(ctx)
	if err != nil {
		return nil, err
	}
	if id != "" {
		key, e, err := g.Sessions.Lookup(ctx, id)
		if err != nil {
			if fault.Is(err, fault.NotFound) {
				return nil, fault.Wrap(fault.NotFound, err, "no session has id %q", id)
			}
			return nil, err
		}
		return ResolveResult{Key: session.Display(key, cfg.Keys()), SessionID: e.SessionID}, nil
	}
	agent := agentOr(cfg, p.AgentID)
	listed, err := g.Sessions.List(ctx, session.ListQuery{AgentID: agent, Limit: session.MaxListLimit})
	if err != nil {
		return nil, err
	}
	for _, l := range listed { // newest first
		if strings.EqualFold(strings.TrimSpace(l.Entry.Label), label) {
			return ResolveResult{Key: session.Display(l.Key, cfg.Keys()), SessionID: l.Entry.SessionID}, nil
		}
	}
	return nil, fault.New(fault.NotFound, "no session of agent %q has label %q", agent, label)
}

// Levels sessions.patch accepts ("" clears the field). The runner reads
// verboseLevel and reasoningLevel "on"; the other values are upstream's.
var (
	verboseLevels   = []string{"off", "on", "full"}
	reasoningLevels = []string{"off", "on", "stream"}
)

// sessionsPatch changes the per-session choices of an existing session:
// {key, entry} with the written entry. label (trimmed; "" clears);
// sendPolicy allow | deny | inherit ("" or inherit clears the override);
// model an alias or provider/model resolved with the config ("" clears
// the override); thinkingLevel, verboseLevel, reasoningLevel and queueMode
// from their value lists ("" clears). A missing session is 404; nothing is created.
//
// Store calls: 1 Update (1 Get when no field is given).
func (g *gateway) sessionsPatch(ctx context.Context, params json.RawMessage) (any, error) {
	var p PatchParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Key) == "" {
		return nil, invalidf("params.key: required")
	}
	cfg, err := g.config(ctx)
	if err != nil {
		return nil, err
	}
	set, err := patchOf(cfg, p)
	if err != nil {
		return nil, err
	}
	if g.Sessions == nil {
		return nil, missing("Sessions")
	}
	key := session.Canonical(agentOr(cfg, ""), p.Key, "", cfg.Keys())
	var e session.Entry
	if len(set) == 0 {
		e, err = g.Sessions.Get(ctx, key)
	} else {
		e, err = g.Sessions.Update(ctx, key, func(e *session.Entry) error {
			for _, f := range set {
				f(e)
			}
			return nil
		})
	}
	if err != nil {
		if fault.Is(err, fault.NotFound) {
			return nil, fault.Wrap(fault.NotFound, err, "no session %q", p.Key)
		}
		return nil, err
	}
	return PatchResult{Key: session.Display(key, cfg.Keys()), Entry: e}, nil
}

// patchOf validates p and returns the changes to apply, in field order.
func patchOf(cfg *config.Config, p PatchParams) ([]func(*session.Entry), error) {
	var set []func(*session.Entry)
	if p.Label != nil {
		label := strings.TrimSpace(*p.Label)
		if len(label) > maxLabel {
			return nil, invalidf("params.label: over %d bytes", maxLabel)
		}
		set = append(set, func(e *session.Entry) { e.Label = label })
	}
	if p.SendPolicy != nil {
		var v string
		switch s := strings.ToLower(strings.TrimSpace(*p.SendPolicy)); s {
		case session.SendAllow, session.SendDeny:
			v = s
		case "inherit", "":
		default:
			return nil, invalidf("params.sendPolicy: must be allow, deny or inherit, got %q", *p.SendPolicy)
		}
		set = append(set, func(e *session.Entry) { e.SendPolicy = v })
	}
	if p.Model != nil {
		var provider, name string
		if s := strings.TrimSpace(*p.Model); s != "" {
			ref, ok := cfg.ResolveModel(s)
			if !ok {
				return nil, invalidf("params.model: %q is neither an alias of agents.defaults.models nor provider/model", s)
			}
			provider, name = ref.Provider, ref.Name
		}
		set = append(set, func(e *session.Entry) { e.ProviderOverride, e.ModelOverride = provider, name })
	}
	for _, f := range []struct {
		name    string
		v       *string
		allowed []string
		dst     func(*session.Entry) *string
	}{
		{"thinkingLevel", p.ThinkingLevel, thinkingLevels, func(e *session.Entry) *string { return &e.ThinkingLevel }},
		{"verboseLevel", p.VerboseLevel, verboseLevels, func(e *session.Entry) *string { return &e.VerboseLevel }},
		{"reasoningLevel", p.ReasoningLevel, reasoningLevels, func(e *session.Entry) *string { return &e.ReasoningLevel }},
		{"queueMode", p.QueueMode, config.QueueModes, func(e *session.Entry) *string { return &e.QueueMode }},
	} {
		if f.v == nil {
			continue
		}
		v := strings.ToLower(strings.TrimSpace(*f.v))
		if v != "" && !oneOf(v, f.allowed) {
			return nil, invalidf("params.%s: must be one of %s (or \"\" to clear), got %q", f.name, strings.Join(f.allowed, ", "), *f.v)
		}
		set = append(set, func(e *session.Entry) { *f.dst(e) = v })
	}
	return set, nil
}

// TranscriptDeleter is the optional capability of Deps.Transcripts behind
// sessions.delete's deleteTranscript (transcript.Log has it).
type TranscriptDeleter interface {
	Delete(ctx context.Context, path string) error
}

// sessionsDelete deletes a session's entry and stored context:
// {key, deleted: true}, also when there was none (deleting is
// idempotent). The next message to the key starts a new session. With
// deleteTranscript the session's transcript goes first (then
// transcriptDeleted names it); otherwise it stays in the bucket. A store
// without session.Deleter (or a transcript store that cannot delete)
// answers 501.
//
// Store calls: 1 Delete; with deleteTranscript also 1 Get, 1 List and one
// object delete per transcript part.
func (g *gateway) sessionsDelete(ctx context.Context, params json.RawMessage) (any, error) {
	var p DeleteParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Key) == "" {
		return nil, invalidf("params.key: required")
	}
	d, ok := g.Sessions.(session.Deleter)
	if !ok {
		return nil, &statusError{http.StatusNotImplemented, fault.New(fault.Internal, "this session store cannot delete sessions")}
	}
	cfg, err := g.config(ctx)
	if err != nil {
		return nil, err
	}
	key := session.Canonical(agentOr(cfg, ""), p.Key, "", cfg.Keys())
	out := DeleteResult{Key: session.Display(key, cfg.Keys()), Deleted: true}
	if p.DeleteTranscript {
		td, ok := g.Transcripts.(TranscriptDeleter)
		if !ok {
			return nil, &statusError{http.StatusNotImplemented, fault.New(fault.Internal, "this transcript store cannot delete transcripts")}
		}
		// The entry names the transcript, so it goes first; a retry after
		// a failure finds the entry still there.
		e, err := g.Sessions.Get(ctx, key)
		switch {
		case err == nil:
			path := session.TranscriptPath(key, e)
			if err := td.Delete(ctx, path); err != nil {
				return nil, err
			}
			out.TranscriptDeleted = path
		case !fault.Is(err, fault.NotFound):
			return nil, err
		}
	}
	if err := d.Delete(ctx, key); err != nil {
		return nil, err
	}
	return out, nil
}

// status answers {ok: true, sessions: [the default agent's 5 newest
// rows], configVersion, store, deadLetters} (configVersion "" when no
// document is stored; deadLetters, the DLQs' depths, only when
// Deps.DeadLetters names them).
//
// Store calls: 1 List, 1 Config.Fetch and one GetQueueAttributes per
// dead-letter queue (a failed one is reported in its entry, not as the
// call's error).
func (g *gateway) status(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct{}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if g.Sessions == nil {
		return nil, missing("Sessions")
	}
	cfg, err := g.config(ctx)
	if err != nil {
		return nil, err
	}
	// The same listing as sessions.list without filters (only shorter), so
	// `zero status` and `zero sessions` never disagree.
	found, err := session.ListSessions(ctx, g.Sessions, g.listing(cfg, ListParams{}, statusRows, 0))
	if err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(found))
	for _, f := range found {
		rows = append(rows, rowOf(cfg, f.Key, f.Entry))
	}
	version := ""
	if g.Config != nil {
		_, v, err := g.Config.Fetch(ctx)
		switch {
		case err == nil:
			version = v
		case !fault.Is(err, fault.NotFound):
			return nil, err
		}
	}
	return StatusResult{OK: true, Sessions: rows, ConfigVersion: version, Store: g.Store, DeadLetters: g.deadLetters(ctx)}, nil
}
