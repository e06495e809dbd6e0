package compaction_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/compaction"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/transcript"
)

// conversation is three user turns, the first with a tool call and its
// result, each message with an entry id.
func conversation() []model.Message {
	return []model.Message{
		{Role: model.User, Content: "one", EntryID: "u1"},
		{Role: model.Assistant, ToolCalls: []model.ToolCall{{ID: "c1", Name: "read", Arguments: `{"path":"a"}`}}, EntryID: "a1"},
		{Role: model.ToolResult, ToolName: "read", ToolCallID: "c1", Content: "file a", EntryID: "r1"},
		{Role: model.Assistant, Content: "done one", EntryID: "a2"},
		{Role: model.User, Content: "two", EntryID: "u2"},
		{Role: model.Assistant, ToolCalls: []model.ToolCall{{ID: "c2", Name: "read", Arguments: `{"path":"b"}`}}, EntryID: "a3"},
		{Role: model.ToolResult, ToolName: "read", ToolCallID: "c2", Content: "file b", EntryID: "r2"},
		{Role: model.User, Content: "three", EntryID: "u3"},
	}
}

func TestKeptFrom(t *testing.T) {
	tests := []struct {
		name    string
		history []model.Message
		want    int
	}{
		{"the last two user turns are kept", conversation(), 4},
		{"one turn: nothing to compact", conversation()[:4], 0},
		{"empty", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compaction.KeptFrom(tt.history); got != tt.want {
				t.Errorf("KeptFrom = %d; want %d", got, tt.want)
			}
		})
	}
}

// TestNewAndAdopt: a compaction's context is the summary then the kept
// messages, and one read back from its line is the same.
func TestNewAndAdopt(t *testing.T) {
	h := conversation()
	c := compaction.New(h, 4, "they read a", 99)
	if c.Line.Type != "compaction" || c.Line.FirstKeptEntryID != "u2" || c.Line.TokensBefore != 99 || c.Dropped != 4 {
		t.Fatalf("line %+v dropped %d", c.Line, c.Dropped)
	}
	want := append([]model.Message{{Role: model.User, Content: "Summary of the earlier conversation:\nthey read a"}}, h[4:]...)
	if diff := cmp.Diff(want, c.History); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	line := c.Line
	line.ID, line.SourceID = "m1:c", "m1"
	adopted := compaction.Adopt([]transcript.Line{{Type: "message"}, line}, "m1", h)
	if adopted == nil || adopted.Dropped != 4 || len(adopted.History) != 5 || adopted.History[0].EntryID != "m1:c" {
		t.Errorf("adopted %+v", adopted)
	}
	if compaction.Adopt([]transcript.Line{line}, "m2", h) != nil {
		t.Error("adopted another message's compaction")
	}
	if got := compaction.Apply(h[:2], line); len(got) != 1 {
		t.Errorf("Apply past the kept message = %d messages; want the summary alone", len(got))
	}
}

// TestPrune: tool results before the last user turn are stubbed in the
// request; the history passed in is never changed.
func TestPrune(t *testing.T) {
	h := conversation()
	got := compaction.Prune(h)
	for i, m := range got {
		pruned := m.Content == "[old tool result pruned from the context]"
		if pruned != (m.Role == model.ToolResult) {
			t.Errorf("message %d (%s) pruned %v", i, m.Role, pruned)
		}
	}
	if h[2].Content != "file a" {
		t.Error("Prune changed its input")
	}
	if short := h[:4]; &compaction.Prune(short)[0] != &short[0] {
		t.Error("one turn: want the history itself")
	}
}

func TestEstimateTokens(t *testing.T) {
	msgs := []model.Message{{Content: strings.Repeat("x", 40)}, {ToolCalls: []model.ToolCall{{Name: "read", Arguments: strings.Repeat("y", 4)}}}}
	if got := compaction.EstimateTokens(msgs); got != 12 {
		t.Errorf("EstimateTokens = %d; want 12 (48 characters)", got)
	}
}

// summariser answers "the summary" and keeps the request.
type summariser struct{ req model.Request }

func (s *summariser) Complete(_ context.Context, r model.Request) (model.Response, error) {
	s.req = r
	return model.Response{Text: "  the summary \n"}, nil
}

// TestSummarize: one call on the model, the older messages as text with
// their tool calls and results, /compact's instructions after them.
func TestSummarize(t *testing.T) {
	s := &summariser{}
	got, err := compaction.Summarize(context.Background(), s, model.Ref{Provider: "zero", Name: "echo"}, conversation()[:4], " keep the file names ")
	if err != nil || got != "the summary" {
		t.Fatalf("Summarize = %q, %v", got, err)
	}
	prompt := s.req.Messages[0].Content
	for _, want := range []string{"user: one\n", `[assistant calls read with {"path":"a"}]`, "[result of read]: file a", "follow these instructions: keep the file names"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	if s.req.Model != "echo" || s.req.System == "" {
		t.Errorf("request %+v", s.req)
	}
}
