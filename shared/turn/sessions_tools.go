package turn

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tool"
	"github.com/zero-gateway/zero/shared/tools"
)

// SessionReader is the Store capability behind sessions_list and
// sessions_history: read a session by key or sessionId and list an
// agent's sessions, each by one index query, never a scan (a
// session.Store has it; shared/dynamo and turntest.MemStore both are
// one). Without it, those two tools are not offered.
type SessionReader interface {
	Get(ctx context.Context, key string) (session.Entry, error)
	Lookup(ctx context.Context, sessionID string) (string, session.Entry, error)
	List(ctx context.Context, q session.ListQuery) ([]session.Listed, error)
}

// Limits of the session tools.
const (
	// maxRowMessages bounds sessions_list's messageLimit: each row with
	// messages costs a transcript read.
	maxRowMessages = 20
	// rowReads bounds the transcripts sessions_list reads at once.
	rowReads = 8
	// maxActiveMinutes bounds activeMinutes (ten years).
	maxActiveMinutes = 10 * 365 * 24 * 60
	// Default and bound of sessions_history's limit.
	defaultHistoryLimit = 50
	maxHistoryLimit     = 200
)

// sessionView is what one run's session tools may see: every agent's
// sessions, or, in a sandboxed session whose visibility is "spawned",
// only the sessions it spawned (entries whose spawnedBy is its key).
type sessionView struct {
	cfg         *config.Config
	keys        session.KeyConfig
	agentID     string // the caller's agent, normalised
	key         string // the caller's session key
	channel     string // the caller's channel, for legacy keys
	spawnedOnly bool
}

// newSessionView is the view of the run t of entry e, decided by the tool
// policy: a sandboxed run (its agent has agents.list[].sandbox) whose
// sessionToolsVisibility is "spawned" sees only what it spawned.
func newSessionView(t *turnState, e session.Entry, d tool.Decision) sessionView {
	return sessionView{
		cfg: t.cfg, keys: t.cfg.Keys(), agentID: agentOf(t.msg.SessionKey, e), key: t.msg.SessionKey,
		channel: t.msg.Channel, spawnedOnly: d.SessionVisibility == config.VisibilitySpawned,
	}
}

// visible reports whether the view shows the session of entry e.
func (v sessionView) visible(e session.Entry) bool {
	return !v.spawnedOnly || e.SpawnedBy == v.key
}

// row is the row of key's entry as this caller sees it: its own agent's
// main session (and "global") keyed "main".
func (v sessionView) row(key string, e session.Entry) session.Row {
	r := session.RowOf(key, e, v.keys)
	r.Key = session.ShownKey(v.agentID, key, v.keys)
	return r
}

// agents are the agents whose sessions sessions_list lists: those of
// agents.list, and the default agent (the only one without a list).
func (v sessionView) agents() []string {
	routing := v.cfg.Routing()
	ids := slices.Clone(routing.IDs)
	if !slices.Contains(ids, routing.Default) {
		ids = append(ids, routing.Default)
	}
	return ids
}

const sessionsListName = "sessions_list"

// sessionsListTool is sessions_list (the session tools page).
type sessionsListTool struct {
	p     *Processor
	store SessionReader
	view  sessionView
}

type listArgs struct {
	Kinds         stringList    `json:"kinds"`
	Limit         *tools.Number `json:"limit"`
	ActiveMinutes *tools.Number `json:"activeMinutes"`
	MessageLimit  *tools.Number `json:"messageLimit"`
}

// listQuery is sessions_list's arguments, clamped.
type listQuery struct {
	kinds         []string // nil: every kind
	limit         int      // 1..session.MaxListLimit, default session.DefaultListLimit
	activeMinutes int      // 0: any age; else 1..maxActiveMinutes
	messages      int      // 0..maxRowMessages
}

// listResult is sessions_list's answer. Truncated: rows were left out to
// keep the result within a tool result's size (ask again with a smaller
// limit or messageLimit).
type listResult struct {
	Count     int               `json:"count"`
	Sessions  []json.RawMessage `json:"sessions"`
	Truncated bool              `json:"truncated,omitempty"`
}

const listSchema = `{"type":"object","properties":{` +
	`"kinds":{"type":"array","items":{"type":"string","enum":["main","group","cron","hook","node","other"]},"description":"only sessions of these kinds"},` +
	`"limit":{"type":"integer","minimum":1,"maximum":200,"description":"most rows (default 50)"},` +
	`"activeMinutes":{"type":"integer","minimum":1,"description":"only sessions updated in the last N minutes"},` +
	`"messageLimit":{"type":"integer","minimum":0,"maximum":20,"description":"include each session's last N messages, tool results left out (default 0: none)"}` +
	`},"additionalProperties":false}`

func (s sessionsListTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: sessionsListName,
		Description: "List sessions, newest first, as rows: key (\"main\" is this agent's direct chat), kind, channel, sessionId, " +
			"model, tokens, levels, delivery and transcriptPath; with messageLimit, their last messages.",
		Schema: json.RawMessage(listSchema),
	}
}

func (s sessionsListTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a listArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be {kinds?: string[], limit?: number, activeMinutes?: number, messageLimit?: number}: %v", err)
	}
	q := listQueryOf(a)
	listed, err := s.list(ctx, q)
	if err != nil {
		return "", err
	}
	rows, err := s.rows(ctx, listed, q)
	if err != nil {
		return "", err
	}
	kept, dropped, err := tools.Fitted(rows, tools.ResultBudget, false)
	if err != nil {
		return "", err
	}
	return tools.JSONResult(listResult{Count: len(kept), Sessions: kept, Truncated: dropped > 0})
}

// listQueryOf clamps sessions_list's arguments. Unknown kinds are
// ignored; when none is known the list is not filtered by kind.
func listQueryOf(a listArgs) listQuery {
	q := listQuery{
		limit:    tools.Clamp(a.Limit, session.DefaultListLimit, 1, session.MaxListLimit),
		messages: tools.Clamp(a.MessageLimit, 0, 0, maxRowMessages),
	}
	if a.ActiveMinutes != nil {
		q.activeMinutes = tools.Clamp(a.ActiveMinutes, 0, 1, maxActiveMinutes)
	}
	for _, k := range a.Kinds {
		k = strings.ToLower(strings.TrimSpace(k))
		if slices.Contains(sessionKinds, k) && !slices.Contains(q.kinds, k) {
			q.kinds = append(q.kinds, k)
		}
	}
	return q
}

var sessionKinds = []string{session.KindMain, session.KindGroup, session.KindCron, session.KindHook, session.KindNode, session.KindOther}

// list reads the candidate sessions, newest first: one List (a byAgent
// index query) per agent, and under global scope one Get of "global" (the
// main session, which List never returns). When rows are filtered after
// the query (kinds, the sandbox), each agent is asked for
// session.MaxListLimit rows.
func (s sessionsListTool) list(ctx context.Context, q listQuery) ([]session.Listed, error) {
	per := q.limit
	if len(q.kinds) > 0 || s.view.spawnedOnly {
		per = session.MaxListLimit
	}
	var since int64
	if q.activeMinutes > 0 {
		since = s.p.Now().UnixMilli() - int64(q.activeMinutes)*60_000
	}
	var all []session.Listed
	for _, id := range s.view.agents() {
		listed, err := s.store.List(ctx, session.ListQuery{AgentID: id, ActiveSince: since, Limit: per})
		if err != nil {
			return nil, fmt.Errorf("list the sessions of agent %q: %w", id, err)
		}
		all = append(all, listed...)
	}
	if strings.EqualFold(s.view.keys.Scope, session.ScopeGlobal) {
		e, err := s.store.Get(ctx, session.KeyGlobal)
		switch {
		case err == nil && e.UpdatedAt >= since:
			all = append(all, session.Listed{Key: session.KeyGlobal, Entry: e})
		case err != nil && !fault.Is(err, fault.NotFound):
			return nil, fmt.Errorf("read the main session: %w", err)
		}
	}
	slices.SortStableFunc(all, func(a, b session.Listed) int {
		return cmp.Or(cmp.Compare(b.Entry.UpdatedAt, a.Entry.UpdatedAt), cmp.Compare(a.Key, b.Key))
	})
	return all, nil
}

// rows turns the listed sessions the view shows, of the kinds asked for,
// into at most q.limit rows, with their messages when asked for.
func (s sessionsListTool) rows(ctx context.Context, listed []session.Listed, q listQuery) ([]session.Row, error) {
	rows := []session.Row{}
	var entries []session.Entry
	for _, l := range listed {
		if session.Reserved(l.Key) && !(l.Key == session.KeyGlobal && strings.EqualFold(s.view.keys.Scope, session.ScopeGlobal)) {
			continue // "unknown" never, "global" only as the main session
		}
		r := s.view.row(l.Key, l.Entry)
		if !s.view.visible(l.Entry) || (len(q.kinds) > 0 && !slices.Contains(q.kinds, r.Kind)) {
			continue
		}
		rows, entries = append(rows, r), append(entries, l.Entry)
		if len(rows) == q.limit {
			break
		}
	}
	if q.messages > 0 {
		if err := s.addMessages(ctx, rows, entries, q.messages); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// addMessages fills each row's last n messages (tool results left out),
// reading up to rowReads transcripts at once. A session with no
// transcript part yet costs nothing.
func (s sessionsListTool) addMessages(ctx context.Context, rows []session.Row, entries []session.Entry, n int) error {
	if s.p.Transcript == nil {
		return errors.New("this deployment has no transcript store: messageLimit cannot be served")
	}
	var (
		wg    sync.WaitGroup
		errs  = make([]error, len(rows))
		slots = make(chan struct{}, rowReads)
	)
	for i := range rows {
		rows[i].Messages = []json.RawMessage{}
		if entries[i].TranscriptSeq == 0 {
			continue
		}
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			msgs, err := session.LastMessages(ctx, s.p.Transcript, rows[i].TranscriptPath, entries[i].TranscriptSeq, false, n)
			rows[i].Messages, errs[i] = msgs, err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("read the sessions' messages: %w", err)
	}
	return nil
}
