package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/zero-gateway/zero/shared/model"
)

// yieldTool answers like sessions_yield: yielded, or refused.
type yieldTool struct{ refuse bool }

func (yieldTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "sessions_yield", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (y yieldTool) Run(context.Context, json.RawMessage) (string, error) {
	if y.refuse {
		return "", errNothingToWait
	}
	return `{"status":"yielded","message":"Turn yielded."}`, nil
}

var errNothingToWait = jsonErr("no sub-agent of this session is running")

type jsonErr string

func (e jsonErr) Error() string { return string(e) }

// TestRunYield: a round with a successful sessions_yield ends the run
// without another model call; its reply is the round's text, and a
// recorded run replies the same (Reply). A refused yield does not end it.
func TestRunYield(t *testing.T) {
	yield := model.ToolCall{ID: "y1", Name: "sessions_yield", Arguments: `{}`}
	for _, tc := range []struct {
		name       string
		refuse     bool
		round      model.Response
		wantCalls  int
		wantReply  string
		wantLength int
	}{
		{name: "yield ends the run silently", round: calls(yield), wantCalls: 1, wantReply: "", wantLength: 3},
		{name: "the round's text is the reply", round: model.Response{Text: "started two helpers", ToolCalls: []model.ToolCall{yield}}, wantCalls: 1, wantReply: "started two helpers", wantLength: 3},
		{name: "NO_REPLY stays silent", round: model.Response{Text: "NO_REPLY", ToolCalls: []model.ToolCall{yield}}, wantCalls: 1, wantReply: "", wantLength: 3},
		{name: "a refused yield goes on", refuse: true, round: calls(yield), wantCalls: 2, wantReply: "answering now", wantLength: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &script{answers: []model.Response{tc.round, text("answering now")}}
			l := &Loop{Model: m, Tools: []Tool{yieldTool{refuse: tc.refuse}}}
			out, err := l.Run(context.Background(), Input{Model: "x", Prompt: "go"})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.seen) != tc.wantCalls || out.Reply != tc.wantReply || len(out.Messages) != tc.wantLength {
				t.Fatalf("%d model calls, reply %q, %d messages; want %d, %q, %d", len(m.seen), out.Reply, len(out.Messages), tc.wantCalls, tc.wantReply, tc.wantLength)
			}
			if got := Reply(out.Messages); got != out.Reply {
				t.Errorf("Reply of the recorded run = %q, want %q", got, out.Reply)
			}
		})
	}
}
