package turn_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/transcript"
)

// used answers with text and reports a context of total tokens.
func used(text string, total int64) model.Response {
	return model.Response{Text: text, StopReason: model.StopEnd, Usage: model.Usage{Input: total - 5, Output: 5, Total: total}}
}

// part reads transcript part seq of the main session.
func (r *rig) part(t *testing.T, seq int64) []transcript.Line {
	t.Helper()
	e := r.entry(t, "agent:main:main")
	lines, err := r.proc.Transcript.Part(context.Background(), transcript.Path("main", e.SessionID, ""), seq)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func roles(msgs []model.Message) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Role+":"+m.Content)
	}
	return strings.Join(out, " | ")
}

func TestAutoCompaction(t *testing.T) {
	r := newRig()
	r.settings.set(`{agents: {defaults: {contextTokens: 200, compaction: {reserveTokens: 50}}}, channels: {telegram: {allowFrom: ["*"]}}}`)
	llm := &scriptModel{summary: "the user said t1", answers: []model.Response{used("a1", 60), used("a2", 120), used("a3", 190), used("a4", 80)}}
	r.proc.Models["zero"] = llm
	for i := 1; i <= 4; i++ {
		r.handle(t, msg(i, fmt.Sprintf("t%d", i)))
	}
	if len(llm.summaries) != 1 {
		t.Fatalf("%d compactions; want one, before turn 4 (190 of 200 tokens used, 50 reserved)", len(llm.summaries))
	}
	if got := llm.summaries[0].Messages[0].Content; !strings.Contains(got, "user: t1") || strings.Contains(got, "t2") {
		t.Fatalf("summariser saw %q; want only turn 1", got)
	}
	want := "user:Summary of the earlier conversation:\nthe user said t1 | user:t2 | assistant:a2 | user:t3 | assistant:a3 | user:t4"
	if got := roles(llm.seen[3].Messages); got != want {
		t.Fatalf("turn 4 context\n got %s\nwant %s", got, want)
	}
	lines := r.part(t, 4)
	c := lines[0]
	if c.Type != "compaction" || c.Summary != "the user said t1" || c.TokensBefore != 190 || c.FirstKeptEntryID != transcript.EntryID("telegram:42:2", 0) {
		t.Fatalf("compaction line %+v", c)
	}
	if lines[1].ParentID == nil || *lines[1].ParentID != c.ID {
		t.Fatal("the turn's user line is not chained to the compaction line")
	}
	e := r.entry(t, "agent:main:main")
	if e.CompactionCount != 1 {
		t.Fatalf("compactionCount %d; want 1", e.CompactionCount)
	}
	// A later turn whose cached context is gone rebuilds it from the
	// transcript, from the compaction onward.
	r.proc.Store = hideContext{r.crash}
	llm.answers = append(llm.answers, used("a5", 100))
	r.handle(t, msg(5, "t5"))
	want = "user:Summary of the earlier conversation:\nthe user said t1 | user:t2 | assistant:a2 | user:t3 | assistant:a3 | user:t4 | assistant:a4 | user:t5"
	if got := roles(llm.seen[4].Messages); got != want {
		t.Fatalf("rebuilt context\n got %s\nwant %s", got, want)
	}
}

func TestOverflowCompactsAndRetries(t *testing.T) {
	r := newRig()
	llm := &scriptModel{summary: "earlier: t1", answers: []model.Response{used("a1", 10), used("a2", 10), used("a3", 10), used("a4", 10)}}
	r.proc.Models["zero"] = llm
	for i := 1; i <= 3; i++ {
		r.handle(t, msg(i, fmt.Sprintf("t%d", i)))
	}
	llm.fail = []error{fault.Wrap(fault.Invalid, fmt.Errorf("%w: prompt is too long", model.ErrContextOverflow), "too long")}
	r.handle(t, msg(4, "t4"))
	if len(llm.summaries) != 1 || r.lastSent(t) != "a4" {
		t.Fatalf("%d compactions, reply %q; want one compaction and the retried answer", len(llm.summaries), r.lastSent(t))
	}
	if got := roles(llm.seen[3].Messages); !strings.HasPrefix(got, "user:Summary of the earlier conversation:\nearlier: t1 | user:t2") {
		t.Fatalf("retried context %s", got)
	}
}

func TestOverflowAfterCompactionTellsTheUser(t *testing.T) {
	r := newRig()
	overflow := fault.Wrap(fault.Invalid, model.ErrContextOverflow, "too long")
	llm := &scriptModel{summary: "s", answers: []model.Response{used("a1", 10), used("a2", 10)}}
	r.proc.Models["zero"] = llm
	r.handle(t, msg(1, "t1"))
	r.handle(t, msg(2, "t2"))
	llm.fail = []error{overflow, overflow}
	r.handle(t, msg(3, "t3"))
	if got := r.lastSent(t); !strings.Contains(got, "/new") {
		t.Fatalf("reply %q; want a notice suggesting /new", got)
	}
}

func TestCompactCommand(t *testing.T) {
	r := newRig()
	llm := &scriptModel{summary: "we talked about t1", answers: []model.Response{used("a1", 10), used("a2", 10), used("a3", 10), used("a4", 10)}}
	r.proc.Models["zero"] = llm
	r.handle(t, msg(1, "t1"))
	r.handle(t, msg(2, "/compact"))
	if got := r.lastSent(t); !strings.HasPrefix(got, "Nothing to compact yet") {
		t.Fatalf("reply %q; one turn is too little to compact", got)
	}
	r.handle(t, msg(3, "t3"))
	r.handle(t, msg(4, "t4"))
	r.crash.CommitBefore = 1
	m := msg(5, "/compact keep the names")
	if err := r.proc.Handle(context.Background(), m, 1); err == nil {
		t.Fatal("crash not injected")
	}
	if err := r.proc.Handle(context.Background(), m, 2); err != nil {
		t.Fatal(err)
	}
	if len(llm.summaries) != 1 || !strings.Contains(llm.summaries[0].Messages[0].Content, "keep the names") {
		t.Fatalf("summaries %+v; want one, with the instructions", llm.summaries)
	}
	if got := r.lastSent(t); !strings.HasPrefix(got, "Compacted: 2 earlier messages") {
		t.Fatalf("reply %q", got)
	}
	e := r.entry(t, "agent:main:main")
	if lines := r.part(t, e.TranscriptSeq); len(lines) != 1 || lines[0].Type != "compaction" || lines[0].SourceID != m.ID {
		t.Fatalf("the /compact part holds %+v; want its compaction line only", lines)
	}
	r.handle(t, msg(6, "t6"))
	if got := roles(llm.seen[len(llm.seen)-1].Messages); !strings.HasPrefix(got, "user:Summary of the earlier conversation:\nwe talked about t1 | user:t3") {
		t.Fatalf("context after /compact: %s", got)
	}
}

func TestOldToolResultsArePrunedFromRequests(t *testing.T) {
	r := newRig()
	llm := &scriptModel{answers: []model.Response{statusCall(), final("a1"), final("a2"), final("a3")}}
	r.proc.Models["zero"] = llm
	r.handle(t, msg(1, "t1"))
	r.handle(t, msg(2, "t2"))
	r.handle(t, msg(3, "t3"))
	// Turn 3's request: turn 1's tool result is older than the last two
	// user turns, so it is stubbed; the transcript keeps it whole.
	req := llm.seen[3].Messages
	if req[2].Role != model.ToolResult || req[2].Content != "[old tool result pruned from the context]" {
		t.Fatalf("old tool result in the request: %+v", req[2])
	}
	if lines := r.part(t, 1); !strings.Contains(lines[2].Message.Text(), "agent:main:main") {
		t.Fatalf("the transcript lost the tool result: %+v", lines[2].Message)
	}
	// Turn 2's request still had it: it was within the last two turns.
	if got := llm.seen[2].Messages[2].Content; !strings.Contains(got, "agent:main:main") {
		t.Fatalf("a recent tool result was pruned: %q", got)
	}
}

func TestVerboseShowsToolSummaries(t *testing.T) {
	r := newRig()
	r.proc.Models["zero"] = &scriptModel{answers: []model.Response{final("a0"), statusCall(), final("done")}}
	r.handle(t, msg(1, "t1"))
	if _, err := r.store.Update(context.Background(), "agent:main:main", func(e *session.Entry) error { e.VerboseLevel = "on"; return nil }); err != nil {
		t.Fatal(err)
	}
	r.handle(t, msg(2, "t2"))
	if got := r.lastSent(t); got != "🔧 session_status ✓\n\ndone" {
		t.Fatalf("reply %q; want the tool summary before the answer", got)
	}
}

func TestReasoningShownOnRequest(t *testing.T) {
	r := newRig()
	answer := final("42")
	answer.Thinking = "six times seven"
	r.proc.Models["zero"] = &scriptModel{answers: []model.Response{final("a0"), answer}}
	r.handle(t, msg(1, "t1"))
	if _, err := r.store.Update(context.Background(), "agent:main:main", func(e *session.Entry) error { e.ReasoningLevel = "on"; return nil }); err != nil {
		t.Fatal(err)
	}
	r.handle(t, msg(2, "6*7?"))
	if got := r.lastSent(t); got != "💭 six times seven\n\n42" {
		t.Fatalf("reply %q; want the reasoning before the answer", got)
	}
	lines := r.part(t, 2)
	if c := lines[1].Message.Content; len(c) != 2 || c[0].Type != "thinking" || c[0].Thinking != "six times seven" {
		t.Fatalf("assistant line content %+v; want the thinking block recorded", c)
	}
}

// windowModel is a scriptModel whose provider reports a context window.
type windowModel struct {
	*scriptModel
	window int64
}

func (w windowModel) ContextWindow(string) (int64, bool) { return w.window, true }

// TestAutoCompactionWithoutContextTokens: with no
// agents.defaults.contextTokens, the window comes from the model (the
// provider's report, the known-models table, else the stated default), so
// a long session compacts before the model ever reports an overflow, and
// the entry's contextTokens is the window in use.
func TestAutoCompactionWithoutContextTokens(t *testing.T) {
	tests := []struct {
		name        string
		model       string // agents.defaults.model
		reported    int64  // the provider's reported window; 0: none
		used        int64  // the context the third turn leaves
		wantCompact bool
		wantWindow  int64
	}{
		{"gpt-4o nearly full", "openai/gpt-4o", 0, 110_000, true, 128_000},
		{"gpt-4o with room", "openai/gpt-4o", 0, 100_000, false, 128_000},
		{"gpt-4.1 has a million", "openai/gpt-4.1", 0, 110_000, false, 1_047_576},
		{"claude nearly full", "anthropic/claude-sonnet-4-5", 0, 185_000, true, 200_000},
		{"an unknown model: the default window", "ollama/qwen3", 0, 110_000, true, model.DefaultContextWindow},
		{"the provider's reported window", "ollama/qwen3", 40_000, 25_000, true, 40_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(`{agents: {defaults: {model: "` + tt.model + `"}}, channels: {telegram: {allowFrom: ["*"]}}}`)
			llm := &scriptModel{summary: "the user said t1", answers: []model.Response{used("a1", 1000), used("a2", 2000), used("a3", tt.used), used("a4", 3000)}}
			var client model.Client = llm
			if tt.reported > 0 {
				client = windowModel{llm, tt.reported}
			}
			ref, _ := model.ParseRef(tt.model)
			r.proc.Models[ref.Provider] = client
			for i := 1; i <= 4; i++ {
				r.handle(t, msg(i, fmt.Sprintf("t%d", i)))
			}
			if got := len(llm.summaries) == 1; got != tt.wantCompact {
				t.Fatalf("%d compactions; want compaction before turn 4: %v", len(llm.summaries), tt.wantCompact)
			}
			if got := strings.HasPrefix(roles(llm.seen[3].Messages), "user:Summary of the earlier conversation"); got != tt.wantCompact {
				t.Fatalf("turn 4 context %s; want it compacted: %v", roles(llm.seen[3].Messages), tt.wantCompact)
			}
			if e := r.entry(t, "agent:main:main"); e.ContextTokens != tt.wantWindow {
				t.Fatalf("contextTokens %d; want the window in use, %d", e.ContextTokens, tt.wantWindow)
			}
		})
	}
}
