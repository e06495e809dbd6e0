package turn

import (
	"encoding/json"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/transcript"
)

// toTranscript converts a context message to the upstream transcript
// message body.
func toTranscript(m model.Message, ts int64) *transcript.Message {
	out := &transcript.Message{Role: m.Role, Timestamp: ts, ToolCallID: m.ToolCallID, ToolName: m.ToolName, IsError: m.IsError}
	if m.Thinking != "" {
		out.Content = append(out.Content, transcript.Content{Type: "thinking", Thinking: m.Thinking})
	}
	if m.Content != "" || len(m.ToolCalls) == 0 {
		out.Content = append(out.Content, transcript.Content{Type: "text", Text: m.Content})
	}
	for _, c := range m.ToolCalls {
		args := json.RawMessage(c.Arguments)
		if !json.Valid(args) {
			// Kept, as a string, so the transcript stays valid JSON.
			args, _ = json.Marshal(c.Arguments)
		}
		out.Content = append(out.Content, transcript.Content{Type: "toolCall", ID: c.ID, Name: c.Name, Arguments: args})
	}
	return out
}

// fromTranscript converts a transcript message line back to the context
// message (adapters do not replay its thinking to the model).
func fromTranscript(l transcript.Line) model.Message {
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

// contextRoles are the roles replayed to the model.
func contextRole(role string) bool {
	return role == model.User || role == model.Assistant || role == model.ToolResult
}
