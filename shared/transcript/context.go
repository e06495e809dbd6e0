package transcript

import (
	"encoding/json"
	"time"

	"github.com/zero-gateway/zero/shared/model"
)

// CompactionEntry is the position EntryID uses for a turn's compaction
// line, clear of the turn's message lines (0, 1, 2, ...).
const CompactionEntry = 1 << 20

// FromContext converts a model context message to the body of its
// transcript line, at ts (Unix milliseconds).
func FromContext(m model.Message, ts int64) *Message {
	out := &Message{Role: m.Role, Timestamp: ts, ToolCallID: m.ToolCallID, ToolName: m.ToolName, IsError: m.IsError}
	if m.Thinking != "" {
		out.Content = append(out.Content, Content{Type: "thinking", Thinking: m.Thinking})
	}
	if m.Content != "" || len(m.ToolCalls) == 0 {
		out.Content = append(out.Content, Content{Type: "text", Text: m.Content})
	}
	for _, c := range m.ToolCalls {
		args := json.RawMessage(c.Arguments)
		if !json.Valid(args) {
			// Kept, as a string, so the transcript stays valid JSON.
			args, _ = json.Marshal(c.Arguments)
		}
		out.Content = append(out.Content, Content{Type: "toolCall", ID: c.ID, Name: c.Name, Arguments: args})
	}
	return out
}

// ToContext converts a message line back to the model context message
// (adapters do not replay its thinking to the model).
func ToContext(l Line) model.Message {
	m := l.Message
	out := model.Message{Role: m.Role, Content: m.Text(), ToolCallID: m.ToolCallID, ToolName: m.ToolName, IsError: m.IsError, EntryID: l.ID}
	for _, c := range m.Content {
		if c.Type == "thinking" {
			out.Thinking += c.Thinking
		}
		if c.Type != "toolCall" {
			continue
		}
		args := string(c.Arguments)
		var s string
		if json.Unmarshal(c.Arguments, &s) == nil {
			args = s // invalid arguments were kept as a string
		}
		out.ToolCalls = append(out.ToolCalls, model.ToolCall{ID: c.ID, Name: c.Name, Arguments: args})
	}
	return out
}

// ContextRole reports whether a message line of role is replayed to the
// model: a user, assistant or tool result message.
func ContextRole(role string) bool {
	return role == model.User || role == model.Assistant || role == model.ToolResult
}

// NewHeader is the header of session sessionID's transcript, of agent
// agentID, at the timestamp ts.
func NewHeader(sessionID, agentID, ts string) Header {
	return Header{Type: "session", Version: 3, ID: sessionID, Timestamp: ts, Cwd: "agents/" + agentID + "/workspace"}
}

// Turn is what one turn's transcript part records.
type Turn struct {
	Seq        int64     // the part's seq: 1 starts with the header
	SessionID  string    // the session, for the header
	AgentID    string    // the session's agent, for the header
	Parent     string    // the id of the line before the part; "" for none
	SourceID   string    // the inbound message the turn answers
	Now        time.Time // when it is written
	Compaction *Line     // the turn's compaction line, nil for none
	Messages   []model.Message
	Model      model.Ref   // the model that answered
	Stop       string      // the run's stop reason
	Usage      model.Usage // summed over the run's model calls
}

// Lines builds the turn's part: the header on the first part, its
// compaction line, then one line per message, chained by parentId. The
// assistant's last message carries the run's stop reason and usage, its
// earlier ones model.StopToolUse. Pure: a retry builds the same lines.
func (t Turn) Lines() []any {
	ts := Timestamp(t.Now)
	var lines []any
	if t.Seq == 1 {
		lines = append(lines, NewHeader(t.SessionID, t.AgentID, ts))
	}
	var parent *string
	if t.Parent != "" {
		id := t.Parent
		parent = &id
	}
	if t.Compaction != nil {
		line := *t.Compaction
		line.ID, line.ParentID, line.Timestamp, line.SourceID = EntryID(t.SourceID, CompactionEntry), parent, ts, t.SourceID
		lines = append(lines, line)
		parent = &line.ID
	}
	lastAssistant := -1
	for i, msg := range t.Messages {
		if msg.Role == model.Assistant {
			lastAssistant = i
		}
	}
	for i, msg := range t.Messages {
		body := FromContext(msg, t.Now.UnixMilli())
		if msg.Role == model.Assistant {
			body.Provider, body.Model, body.StopReason = t.Model.Provider, t.Model.Name, model.StopToolUse
			if i == lastAssistant {
				u := t.Usage
				body.StopReason = t.Stop
				body.Usage = &Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, TotalTokens: u.Total}
			}
		}
		id := EntryID(t.SourceID, i)
		lines = append(lines, Line{Type: "message", ID: id, ParentID: parent, Timestamp: ts, SourceID: t.SourceID, Message: body})
		parent = &id
	}
	return lines
}
