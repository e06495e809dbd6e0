// Package tooltest runs a tool the way an agent run does, and holds the
// fakes of the tools' backends (the config document, the memory index,
// the web, a messenger, an image model) and the session tools' expected
// results, for the tool families' tests and the engine's (shared/turn).
package tooltest

import (
	"context"
	"testing"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools"
)

// Call makes one call of tl with args (a JSON object) through the agent
// loop and returns the tool result the model reads: an error is the
// result's text with IsError set, a long result is cut as the loop cuts
// it. It fails t when the loop does not produce the result.
func Call(t *testing.T, tl tools.Tool, args string) model.Message {
	t.Helper()
	call := model.ToolCall{ID: "call-1", Name: tl.Spec().Name, Arguments: args}
	llm := &oneCall{call: call}
	out, err := (&agent.Loop{Model: llm, Tools: []agent.Tool{tl}}).Run(context.Background(), agent.Input{Model: "m", Prompt: "go"})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, m := range out.Messages {
		if m.Role == model.ToolResult && m.ToolCallID == call.ID {
			return m
		}
	}
	t.Fatalf("no tool result in %+v", out.Messages)
	return model.Message{}
}

// oneCall is a model that makes one tool call, then answers "ok".
type oneCall struct {
	call  model.ToolCall
	calls int
}

func (o *oneCall) Complete(context.Context, model.Request) (model.Response, error) {
	o.calls++
	if o.calls == 1 {
		return model.Response{StopReason: model.StopToolUse, ToolCalls: []model.ToolCall{o.call}}, nil
	}
	return model.Response{Text: "ok", StopReason: model.StopEnd}, nil
}
