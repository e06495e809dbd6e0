package compaction_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/compaction"
	"github.com/zero-gateway/zero/shared/model"
)

func TestContextOf(t *testing.T) {
	const head = `{"type":"session","version":3,"id":"s1"}`
	user := func(id, text string) string {
		return `{"type":"message","id":"` + id + `","parentId":null,"timestamp":"t","message":{"role":"user","content":"` + text + `","timestamp":1}}`
	}
	call := `{"type":"message","id":"c1","parentId":"u1","timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"k1","name":"web_search","arguments":{"q":"x"}}],"stopReason":"toolUse","timestamp":2}}`
	result := `{"type":"message","id":"r1","parentId":"c1","timestamp":"t","message":{"role":"toolResult","toolCallId":"k1","toolName":"web_search","content":[{"type":"text","text":"found"}],"isError":false,"timestamp":3}}`
	compactionLine := `{"type":"compaction","id":"p1","parentId":"r1","timestamp":"t","summary":"S","firstKeptEntryId":"c1","tokensBefore":9}`
	custom := `{"type":"custom","id":"x1","parentId":"p1","timestamp":"t","customType":"note","data":{}}`
	tests := []struct {
		name  string
		lines []string
		want  []model.Message
	}{
		{name: "empty", lines: nil, want: nil},
		{
			name:  "tool call and result",
			lines: []string{head, user("u1", "hi"), call, result},
			want: []model.Message{
				{Role: model.User, Content: "hi", EntryID: "u1"},
				{Role: model.Assistant, ToolCalls: []model.ToolCall{{ID: "k1", Name: "web_search", Arguments: `{"q":"x"}`}}, EntryID: "c1"},
				{Role: model.ToolResult, Content: "found", ToolCallID: "k1", ToolName: "web_search", EntryID: "r1"},
			},
		},
		{
			name:  "from the last compaction, custom lines not replayed",
			lines: []string{head, user("u1", "hi"), call, result, compactionLine, custom, user("u2", "more")},
			want: []model.Message{
				{Role: model.User, Content: "Summary of the earlier conversation:\nS", EntryID: "p1"},
				{Role: model.Assistant, ToolCalls: []model.ToolCall{{ID: "k1", Name: "web_search", Arguments: `{"q":"x"}`}}, EntryID: "c1"},
				{Role: model.ToolResult, Content: "found", ToolCallID: "k1", ToolName: "web_search", EntryID: "r1"},
				{Role: model.User, Content: "more", EntryID: "u2"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compaction.ContextOf([]byte(strings.Join(tt.lines, "\n")))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("context (-want +got):\n%s", diff)
			}
		})
	}
}
