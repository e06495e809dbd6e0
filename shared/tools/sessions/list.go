package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
)

// Limits of sessions_list.
const (
	// maxRowMessages bounds messageLimit: each row with messages costs a
	// transcript read.
	maxRowMessages = 20
	// maxActiveMinutes bounds activeMinutes (ten years).
	maxActiveMinutes = 10 * 365 * 24 * 60
)

// ListTool is sessions_list (the session tools page): the sessions of
// every agent the caller's view shows, newest first, as rows, by the one
// sessions query the gateway's sessions.list also runs
// (session.ListSessions).
type ListTool struct {
	store       Reader
	transcripts session.PartReader // nil: messageLimit cannot be served
	view        view
	now         func() time.Time
}

// NewListTool is sessions_list of run over store, reading messages from
// transcripts (nil: none).
func NewListTool(run tools.Run, store Reader, transcripts session.PartReader) ListTool {
	return ListTool{store: store, transcripts: transcripts, view: viewOf(run), now: run.Now}
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

// Spec implements tools.Tool.
func (ListTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: ListName,
		Description: "List sessions, newest first, as rows: key (\"main\" is this agent's direct chat), kind, channel, sessionId, " +
			"model, tokens, levels, delivery and transcriptPath; with messageLimit, their last messages.",
		Schema: json.RawMessage(listSchema),
	}
}

// Run lists the sessions and fits the rows into one tool result, the
// least recent left out first.
func (s ListTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a listArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be {kinds?: string[], limit?: number, activeMinutes?: number, messageLimit?: number}: %v", err)
	}
	l, scopeErr := s.listing(ctx, listQueryOf(a))
	found, err := session.ListSessions(ctx, s.store, l)
	if err == nil {
		err = *scopeErr
	}
	if err != nil {
		return "", err
	}
	rows := make([]session.Row, 0, len(found))
	for _, f := range found {
		r := s.view.row(f.Key, f.Entry)
		r.Messages = f.Messages
		rows = append(rows, r)
	}
	kept, dropped, err := tools.Fitted(rows, tools.ResultBudget, false)
	if err != nil {
		return "", err
	}
	return tools.JSONResult(listResult{Count: len(kept), Sessions: kept, Truncated: dropped > 0})
}

// listing is the sessions query of q: every agent's sessions, under
// global scope also "global" (the main session, which List never
// returns), filtered by the view in a spawned-only sandbox and by its
// scope (keep). The error it points to is set, after the query, to the
// first store failure of the scope's checks (a row is never left out
// silently).
func (s ListTool) listing(ctx context.Context, q listQuery) (session.Listing, *error) {
	l := session.Listing{Agents: s.view.agents(), Limit: q.limit, Kinds: q.kinds, Keys: s.view.keys, Messages: q.messages}
	if s.view.scope == config.SessionsVisibilitySelf || s.view.scope == config.SessionsVisibilityAgent {
		l.Agents = []string{s.view.agentID} // the others' could show nothing
	}
	if q.activeMinutes > 0 {
		l.ActiveSince = s.now().UnixMilli() - int64(q.activeMinutes)*60_000
	}
	if s.view.globalScope() {
		l.Reserved = []string{session.KeyGlobal}
	}
	var scopeErr error
	if s.view.spawnedOnly || s.view.scope != "" {
		l.Keep = func(key string, e session.Entry) bool { return s.keep(ctx, key, e, &scopeErr) }
	}
	if s.transcripts != nil {
		l.Read = func(ctx context.Context, path string, parts int64, n int) ([]json.RawMessage, error) {
			return session.LastMessages(ctx, s.transcripts, path, parts, false, n)
		}
	}
	return l, &scopeErr
}

// keep reports whether the view shows key's session (entry e); a store
// failure goes into *failed (the first one) and leaves the row out.
func (s ListTool) keep(ctx context.Context, key string, e session.Entry, failed *error) bool {
	if !s.view.visible(e) {
		return false
	}
	in, err := s.view.inScope(ctx, s.store, key, e)
	if err != nil && *failed == nil {
		*failed = err
	}
	return in
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

// stringList is a list-of-strings argument; a single string is a list of
// one. (Numbers are tools.Number, clamped with tools.Clamp.)
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = stringList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a list of strings, got %s", b)
	}
	*l = many
	return nil
}
