package compaction_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/compaction"
	"github.com/zero-gateway/zero/shared/model"
)

func TestShorten(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		limit    int
		wantSame bool
	}{
		{"within the limit: unchanged", strings.Repeat("a", 100), 100, true},
		{"ascii over the limit", strings.Repeat("a", 10_000), 1_000, false},
		{"multi-byte runes are not split", strings.Repeat("é€😀", 3_000), 1_000, false},
		{"limit below the marker keeps only the marker", strings.Repeat("b", 500), 10, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compaction.Shorten(tt.text, tt.limit)
			if tt.wantSame {
				if got != tt.text {
					t.Fatalf("Shorten changed text within its limit")
				}
				return
			}
			if !strings.Contains(got, "bytes cut here") {
				t.Errorf("no visible marker in %.80q", got)
			}
			if !utf8.ValidString(got) {
				t.Errorf("shortened text is not valid UTF-8")
			}
			if len(got) >= len(tt.text) {
				t.Errorf("shortened to %d bytes from %d", len(got), len(tt.text))
			}
			if tt.limit > 200 && len(got) > tt.limit {
				t.Errorf("shortened to %d bytes; limit %d", len(got), tt.limit)
			}
		})
	}
}

func FuzzShorten(f *testing.F) {
	f.Add("hello world", 5)
	f.Add(strings.Repeat("é", 100), 37)
	f.Fuzz(func(t *testing.T, text string, limit int) {
		if limit < 0 || limit > 1<<20 {
			return
		}
		got := compaction.Shorten(text, limit)
		if len(text) <= limit && got != text {
			t.Fatalf("text within the limit changed")
		}
		if len(text) > limit && !strings.Contains(got, "bytes cut here") {
			t.Fatalf("shortened text has no marker")
		}
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Fatalf("valid UTF-8 became invalid")
		}
	})
}

// TestFitWindow: a message too large for the window is shortened in
// place, never removed; the others and the input are untouched.
func TestFitWindow(t *testing.T) {
	big := strings.Repeat("x", 3_000)
	msgs := []model.Message{
		{Role: model.User, Content: "small"},
		{Role: model.Assistant, ToolCalls: []model.ToolCall{{ID: "c1", Name: "read", Arguments: "{}"}}},
		{Role: model.ToolResult, ToolCallID: "c1", ToolName: "read", Content: big},
		{Role: model.Assistant, Content: "done"},
	}
	got := compaction.FitWindow(msgs, 500) // 500 tokens: 1,000 bytes a message
	if len(got) != len(msgs) {
		t.Fatalf("FitWindow returned %d messages; want %d", len(got), len(msgs))
	}
	if msgs[2].Content != big {
		t.Errorf("FitWindow changed its input")
	}
	if !strings.Contains(got[2].Content, "bytes cut here") || len(got[2].Content) > 1_000 {
		t.Errorf("tool result = %d bytes, marker %v; want shortened with a marker", len(got[2].Content), strings.Contains(got[2].Content, "bytes cut here"))
	}
	want := append([]model.Message(nil), msgs...)
	want[2].Content = got[2].Content
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("other messages changed (-want +got):\n%s", diff)
	}
	if same := compaction.FitWindow(msgs[:2], 500); &same[0] != &msgs[0] {
		t.Errorf("FitWindow copied a context with nothing to shorten")
	}
}
