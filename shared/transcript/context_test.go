package transcript_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/transcript"
)

// TestContextRoundTrip: a context message survives its transcript line,
// thinking and tool calls included; arguments that are not JSON are kept
// as a JSON string and come back as they were.
func TestContextRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		msg  model.Message
	}{
		{"user text", model.Message{Role: model.User, Content: "hi"}},
		{"empty assistant text", model.Message{Role: model.Assistant}},
		{"thinking and a tool call", model.Message{Role: model.Assistant, Thinking: "hm", ToolCalls: []model.ToolCall{{ID: "k1", Name: "read", Arguments: `{"path":"a"}`}}}},
		{"invalid arguments", model.Message{Role: model.Assistant, Content: "x", ToolCalls: []model.ToolCall{{ID: "k2", Name: "read", Arguments: `{"path":`}}}},
		{"tool result", model.Message{Role: model.ToolResult, Content: "file a", ToolCallID: "k1", ToolName: "read", IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := transcript.FromContext(tt.msg, 42)
			raw, err := json.Marshal(body)
			if err != nil {
				t.Fatalf("the line body is not JSON: %v", err)
			}
			var back transcript.Message
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			want := tt.msg
			want.EntryID = "e1"
			got := transcript.ToContext(transcript.Line{Type: "message", ID: "e1", Message: &back})
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestContextRole(t *testing.T) {
	for role, want := range map[string]bool{model.User: true, model.Assistant: true, model.ToolResult: true, "bashExecution": false, "": false} {
		if got := transcript.ContextRole(role); got != want {
			t.Errorf("ContextRole(%q) = %v; want %v", role, got, want)
		}
	}
}

// TestTurnLines: the first part starts with the header; the compaction
// line comes first and the messages chain from it by parentId; the last
// assistant message carries the run's stop reason and usage, the earlier
// ones toolUse; ids derive from the source message.
func TestTurnLines(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	turn := transcript.Turn{
		Seq: 1, SessionID: "s1", AgentID: "main", SourceID: "m1", Now: now,
		Compaction: &transcript.Line{Type: "compaction", Summary: "S", FirstKeptEntryID: "u0"},
		Messages: []model.Message{
			{Role: model.User, Content: "hi"},
			{Role: model.Assistant, ToolCalls: []model.ToolCall{{ID: "k1", Name: "read", Arguments: "{}"}}},
			{Role: model.ToolResult, ToolCallID: "k1", ToolName: "read", Content: "a"},
			{Role: model.Assistant, Content: "done"},
		},
		Model: model.Ref{Provider: "zero", Name: "echo"}, Stop: model.StopEnd, Usage: model.Usage{Input: 3, Output: 2, Total: 5},
	}
	lines := turn.Lines()
	if len(lines) != 6 {
		t.Fatalf("%d lines; want header, compaction and 4 messages", len(lines))
	}
	ts := transcript.Timestamp(now)
	if diff := cmp.Diff(transcript.NewHeader("s1", "main", ts), lines[0]); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	comp := lines[1].(transcript.Line)
	if comp.ID != transcript.EntryID("m1", transcript.CompactionEntry) || comp.ParentID != nil || comp.SourceID != "m1" || comp.Summary != "S" {
		t.Errorf("compaction line = %+v", comp)
	}
	parent := comp.ID
	for i, l := range lines[2:] {
		line := l.(transcript.Line)
		if line.ID != transcript.EntryID("m1", i) || line.ParentID == nil || *line.ParentID != parent || line.Timestamp != ts {
			t.Errorf("line %d = %+v; want id %s after %s", i, line, transcript.EntryID("m1", i), parent)
		}
		parent = line.ID
	}
	first, last := lines[3].(transcript.Line).Message, lines[5].(transcript.Line).Message
	if first.StopReason != model.StopToolUse || first.Usage != nil || first.Model != "echo" {
		t.Errorf("the tool-calling assistant line = %+v; want toolUse without usage", first)
	}
	if last.StopReason != model.StopEnd || last.Usage == nil || last.Usage.TotalTokens != 5 || last.Provider != "zero" {
		t.Errorf("the last assistant line = %+v; want the run's stop and usage", last)
	}
	next := turn
	next.Seq, next.Parent, next.Compaction = 2, "p0", nil
	if l := next.Lines()[0].(transcript.Line); l.ParentID == nil || *l.ParentID != "p0" {
		t.Errorf("a later part's first line = %+v; want it chained to p0 without a header", l)
	}
}
