package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
)

// Default and bound of sessions_history's limit.
const (
	defaultHistoryLimit = 50
	maxHistoryLimit     = 200
)

// HistoryTool is sessions_history (the session tools page): a session's
// last transcript messages, by key or sessionId.
type HistoryTool struct {
	store       Reader
	transcripts session.PartReader // nil: a session with a transcript cannot be read
	view        view
}

// NewHistoryTool is sessions_history of run over store, reading
// transcripts (nil: none).
func NewHistoryTool(run tools.Run, store Reader, transcripts session.PartReader) HistoryTool {
	return HistoryTool{store: store, transcripts: transcripts, view: viewOf(run)}
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

// Spec implements tools.Tool.
func (HistoryTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name:        HistoryName,
		Description: "Read a session's transcript messages (the last ones), by session key or sessionId; tool results only with includeTools.",
		Schema:      json.RawMessage(historySchema),
	}
}

// Run reads the session's last messages and fits them into one tool
// result, the oldest left out first.
func (s HistoryTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a historyArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be {sessionKey: string, limit?: number, includeTools?: boolean}: %v", err)
	}
	key, e, err := s.view.find(ctx, s.store, strings.TrimSpace(a.SessionKey))
	if err != nil {
		return "", err
	}
	limit := tools.Clamp(a.Limit, defaultHistoryLimit, 1, maxHistoryLimit)
	msgs := []json.RawMessage{}
	if e.TranscriptSeq > 0 {
		if s.transcripts == nil {
			return "", errors.New("this deployment has no transcript store")
		}
		if msgs, err = session.LastMessages(ctx, s.transcripts, session.TranscriptPath(key, e), e.TranscriptSeq, a.IncludeTools, limit); err != nil {
			return "", fmt.Errorf("read the transcript of %s: %w", key, err)
		}
	}
	kept, dropped, err := tools.Fitted(msgs, tools.ResultBudget-len(key)-len(e.SessionID), true)
	if err != nil {
		return "", err
	}
	return tools.JSONResult(historyResult{SessionKey: session.ShownKey(s.view.agentID, key, s.view.keys), SessionID: e.SessionID, Messages: kept, Truncated: dropped > 0})
}
