// Package transcript writes and reads session transcripts in the upstream
// JSONL format (a header line, then one entry per line), laid out on an
// object store that cannot append.
//
// Layout: the logical transcript agents/<agentId>/sessions/<sessionId>.jsonl
// is stored as immutable parts, one per turn, under
// agents/<agentId>/sessions/<sessionId>.jsonl.d/<seq>.jsonl (seq zero-padded
// to 10 digits, starting at 1). A turn writes only its own new lines; the
// reader concatenates the parts in order, which yields the one JSONL stream.
package transcript

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"
)

// Header is the first line of a transcript.
type Header struct {
	Type      string `json:"type"` // "session"
	Version   int    `json:"version"`
	ID        string `json:"id"` // the sessionId
	Timestamp string `json:"timestamp"`
	Cwd       string `json:"cwd"`
}

// Line is one transcript entry after the header.
type Line struct {
	Type      string   `json:"type"` // "message", "compaction", ...
	ID        string   `json:"id"`
	ParentID  *string  `json:"parentId"`
	Timestamp string   `json:"timestamp"`
	Message   *Message `json:"message,omitempty"`
	// SourceID is ZERO's addition: the inbound message ID that produced the
	// line, so a retried turn recognises the part it already wrote.
	SourceID string `json:"sourceId,omitempty"`

	// Type "compaction": the summary that replaces the conversation
	// before FirstKeptEntryID in the model's context.
	Summary          string `json:"summary,omitempty"`
	FirstKeptEntryID string `json:"firstKeptEntryId,omitempty"`
	TokensBefore     int64  `json:"tokensBefore,omitempty"`
}

// Content is one block of a message: "text" (Text), "thinking" (Thinking)
// or, in assistant messages, "toolCall" (ID, Name, Arguments).
type Content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Thinking string `json:"thinking,omitempty"`
	ID       string `json:"id,omitempty"`
	Name     string `json:"name,omitempty"`
	// Arguments is the call's arguments object; arguments the model sent
	// as invalid JSON are kept as a JSON string of the raw text.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Usage mirrors the upstream assistant usage block.
type Usage struct {
	Input       int64 `json:"input"`
	Output      int64 `json:"output"`
	CacheRead   int64 `json:"cacheRead"`
	CacheWrite  int64 `json:"cacheWrite"`
	TotalTokens int64 `json:"totalTokens"`
}

// Message is the body of a "message" line.
type Message struct {
	Role       string    `json:"role"` // user | assistant | toolResult
	Content    []Content `json:"content"`
	Provider   string    `json:"provider,omitempty"`
	Model      string    `json:"model,omitempty"`
	StopReason string    `json:"stopReason,omitempty"`
	Usage      *Usage    `json:"usage,omitempty"`
	// toolResult messages: the call answered.
	ToolCallID string `json:"toolCallId,omitempty"`
	ToolName   string `json:"toolName,omitempty"`
	IsError    bool   `json:"isError,omitempty"`
	Timestamp  int64  `json:"timestamp"`
}

// UnmarshalJSON accepts upstream user messages whose content is a plain string.
func (m *Message) UnmarshalJSON(b []byte) error {
	type plain Message
	var raw struct {
		plain
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = Message(raw.plain)
	m.Content = nil
	if len(raw.Content) == 0 || string(raw.Content) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw.Content, &s); err == nil {
		m.Content = []Content{{Type: "text", Text: s}}
		return nil
	}
	return json.Unmarshal(raw.Content, &m.Content)
}

// Text joins the message's text blocks.
func (m Message) Text() string {
	out := ""
	for _, c := range m.Content {
		if c.Type == "text" {
			out += c.Text
		}
	}
	return out
}

// EntryID derives a line id (8 hex chars, as upstream) from the inbound
// message id and the line's position in the turn, so a retried turn
// produces byte-identical lines.
func EntryID(sourceID string, n int) string {
	sum := sha256.Sum256([]byte(sourceID + "#" + strconv.Itoa(n)))
	return hex.EncodeToString(sum[:4])
}

// Timestamp formats t as the transcript's ISO-8601 timestamp.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
