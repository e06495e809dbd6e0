package turn

import (
	"testing"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools/messaging"
)

// TestToolFallbackAfterMessageTool pins item 6 of the seeds' reply
// shaping: the tool-error fallback is not sent when the message tool
// already gave the user a visible reply in the session's own chat.
func TestToolFallbackAfterMessageTool(t *testing.T) {
	send := model.ToolCall{ID: "c1", Name: messaging.Name, Arguments: `{"action":"send","text":"Done, see above."}`}
	failing := model.ToolCall{ID: "c2", Name: "web_fetch", Arguments: `{}`}
	run := func(sendResult string, sendFailed bool) []model.Message {
		return []model.Message{
			{Role: model.User, Content: "do it"},
			{Role: model.Assistant, ToolCalls: []model.ToolCall{send, failing}},
			{Role: model.ToolResult, ToolCallID: "c1", ToolName: messaging.Name, Content: sendResult, IsError: sendFailed},
			{Role: model.ToolResult, ToolCallID: "c2", ToolName: "web_fetch", Content: "timeout", IsError: true},
			{Role: model.Assistant, Content: ""},
		}
	}
	tests := []struct {
		name string
		msgs []model.Message
		want bool
	}{
		{"the message tool replied in the own chat", run(`{"action":"send","ownChat":true,"did":"sent"}`, false), true},
		{"the message tool sent to another chat", run(`{"action":"send","ownChat":false,"did":"sent"}`, false), false},
		{"the message tool failed", run(`send failed`, true), false},
		{"no message tool at all", []model.Message{
			{Role: model.User, Content: "do it"},
			{Role: model.Assistant, ToolCalls: []model.ToolCall{failing}},
			{Role: model.ToolResult, ToolCallID: "c2", ToolName: "web_fetch", Content: "timeout", IsError: true},
			{Role: model.Assistant},
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reply := agent.Reply(tc.msgs)
			if got := fallbackAfterMessageTool(tc.msgs, reply); got != tc.want {
				t.Errorf("fallbackAfterMessageTool(reply %q) = %v, want %v", reply, got, tc.want)
			}
		})
	}
	if got := fallbackAfterMessageTool(run(`{"action":"send","ownChat":true}`, false), "Here is the answer."); got {
		t.Error("a model's own text was treated as the tool-error fallback")
	}
}
