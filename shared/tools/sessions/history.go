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

// historyResult is sessions_history's answer (upstream's shape): the
// transcript's messages, oldest first, safety-filtered (filterMessage).
// Truncated: anything was left out or cut; DroppedMessages: older
// messages were left out (or the last one replaced by historyOmitted) to
// fit one tool result; ContentTruncated: a text block was cut or a
// payload left out; ContentRedacted: credential-like text was masked;
// Bytes: the size of the messages array.
type historyResult struct {
	SessionKey       string            `json:"sessionKey"`
	SessionID        string            `json:"sessionId"`
	Messages         []json.RawMessage `json:"messages"`
	Truncated        bool              `json:"truncated"`
	DroppedMessages  bool              `json:"droppedMessages"`
	ContentTruncated bool              `json:"contentTruncated"`
	ContentRedacted  bool              `json:"contentRedacted"`
	Bytes            int               `json:"bytes"`
}

const historySchema = `{"type":"object","properties":{` +
	`"sessionKey":{"type":"string","description":"a session key as sessions_list shows it (\"main\" is this agent's direct chat) or a sessionId"},` +
	`"limit":{"type":"integer","minimum":1,"maximum":200,"description":"most messages, the last ones (default 50)"},` +
	`"includeTools":{"type":"boolean","description":"include tool results (default false)"}` +
	`},"required":["sessionKey"],"additionalProperties":false}`

// Spec implements tools.Tool.
func (HistoryTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: HistoryName,
		Description: "Read a session's transcript messages (the last ones), by session key or sessionId; tool calls and results only with includeTools. " +
			"The view is safety-filtered: thinking and tool-call scaffolding stripped, credential-like text masked, long blocks cut (flags truncated, droppedMessages, contentTruncated, contentRedacted).",
		Schema: json.RawMessage(historySchema),
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
	res, err := filteredHistory(msgs, a.IncludeTools, tools.ResultBudget-len(key)-len(e.SessionID)-160)
	if err != nil {
		return "", fmt.Errorf("read the transcript of %s: %w", key, err)
	}
	res.SessionKey, res.SessionID = session.ShownKey(s.view.agentID, key, s.view.keys), e.SessionID
	return tools.JSONResult(res)
}

// filteredHistory filters msgs (filterMessage) and keeps the newest that
// fit in budget bytes; when even the newest alone does not fit, it is
// replaced by historyOmitted.
func filteredHistory(msgs []json.RawMessage, includeTools bool, budget int) (historyResult, error) {
	var res historyResult
	shown := []json.RawMessage{}
	for _, raw := range msgs {
		m, keep, f, err := filterMessage(raw, includeTools)
		if err != nil {
			return historyResult{}, fmt.Errorf("a transcript message is not a JSON object: %w", err)
		}
		res.ContentTruncated = res.ContentTruncated || f.truncated
		res.ContentRedacted = res.ContentRedacted || f.redacted
		if keep {
			shown = append(shown, m)
		}
	}
	kept, dropped, err := tools.Fitted(shown, budget, true)
	if err != nil {
		return historyResult{}, err
	}
	if len(kept) == 1 && len(kept[0]) > budget {
		kept[0], _ = json.Marshal(map[string]string{"role": "assistant", "content": historyOmitted})
		dropped++
	}
	res.Messages, res.DroppedMessages = kept, dropped > 0
	res.Truncated = res.DroppedMessages || res.ContentTruncated
	b, err := json.Marshal(kept)
	res.Bytes = len(b)
	return res, err
}
