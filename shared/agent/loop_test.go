package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// script is a model that answers from a list and records each request.
type script struct {
	answers []model.Response
	seen    []model.Request
	err     error
}

func (s *script) Complete(_ context.Context, req model.Request) (model.Response, error) {
	s.seen = append(s.seen, req)
	if s.err != nil {
		return model.Response{}, s.err
	}
	if len(s.seen) > len(s.answers) {
		return model.Response{Text: "out of script"}, nil
	}
	return s.answers[len(s.seen)-1], nil
}

// echoTool answers with its "text" argument, or fails when asked to.
type echoTool struct{ calls int }

func (e *echoTool) Spec() model.ToolSpec {
	return model.ToolSpec{Name: "echo", Description: "repeats text", Schema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)}
}

func (e *echoTool) Run(_ context.Context, args json.RawMessage) (string, error) {
	e.calls++
	var a struct {
		Text string `json:"text"`
		Fail bool   `json:"fail"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return "", err
	}
	if a.Fail {
		return "", fault.New(fault.Unavailable, "echo is broken")
	}
	return "echoed " + a.Text, nil
}

func calls(cs ...model.ToolCall) model.Response {
	return model.Response{ToolCalls: cs, StopReason: model.StopToolUse, Usage: model.Usage{Input: 10, Output: 2, Total: 12}}
}

func text(t string) model.Response {
	return model.Response{Text: t, StopReason: model.StopEnd, Usage: model.Usage{Input: 20, Output: 3, Total: 23}}
}

func TestRunToolConversation(t *testing.T) {
	m := &script{answers: []model.Response{
		calls(model.ToolCall{ID: "c1", Name: "echo", Arguments: `{"text":"a"}`}, model.ToolCall{ID: "c2", Name: "echo", Arguments: `{"text":"b"}`}),
		text("done: a and b"),
	}}
	tool := &echoTool{}
	l := &Loop{Model: m, Tools: []Tool{tool}}
	out, err := l.Run(context.Background(), Input{Model: "x", System: "sys", History: []model.Message{{Role: model.User, Content: "before"}}, Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Reply != "done: a and b" || tool.calls != 2 || len(m.seen) != 2 {
		t.Fatalf("reply %q after %d tool calls and %d model calls", out.Reply, tool.calls, len(m.seen))
	}
	// The second request carries the history, the prompt, the assistant's
	// calls and both results in order with their ids.
	second := m.seen[1].Messages
	roles := []string{}
	for _, msg := range second {
		roles = append(roles, msg.Role)
	}
	if strings.Join(roles, ",") != "user,user,assistant,toolResult,toolResult" {
		t.Fatalf("second request roles %v", roles)
	}
	if second[3].ToolCallID != "c1" || second[3].Content != "echoed a" || second[4].ToolCallID != "c2" || second[4].Content != "echoed b" {
		t.Fatalf("tool results %+v %+v", second[3], second[4])
	}
	if len(m.seen[0].Tools) != 1 || m.seen[0].Tools[0].Name != "echo" || m.seen[0].System != "sys" {
		t.Fatalf("first request tools %+v system %q", m.seen[0].Tools, m.seen[0].System)
	}
	if len(out.Messages) != 5 || out.Usage.Input != 30 || out.Last.Input != 20 || out.Stop != model.StopEnd {
		t.Fatalf("output %+v", out)
	}
}

func TestRunToolErrors(t *testing.T) {
	tests := []struct {
		name      string
		call      model.ToolCall
		wantError string
	}{
		{"invalid JSON arguments", model.ToolCall{ID: "c", Name: "echo", Arguments: `{"text": "a"`}, "not a valid JSON object"},
		{"arguments not an object", model.ToolCall{ID: "c", Name: "echo", Arguments: `[1]`}, "not a valid JSON object"},
		{"tool not offered", model.ToolCall{ID: "c", Name: "web_fetch", Arguments: `{}`}, `tool "web_fetch" is not available`},
		{"tool unavailable in a serverless deployment", model.ToolCall{ID: "c", Name: "exec", Arguments: `{}`}, "exec is unavailable in this serverless deployment"},
		{"tool fails", model.ToolCall{ID: "c", Name: "echo", Arguments: `{"fail":true}`}, "echo is broken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &script{answers: []model.Response{calls(tt.call), text("")}}
			l := &Loop{Model: m, Tools: []Tool{&echoTool{}}}
			out, err := l.Run(context.Background(), Input{Prompt: "go"})
			if err != nil {
				t.Fatalf("a tool problem ended the run: %v", err)
			}
			res := m.seen[1].Messages[2]
			if res.Role != model.ToolResult || !res.IsError || !strings.Contains(res.Content, tt.wantError) {
				t.Fatalf("result %+v; want an error result containing %q", res, tt.wantError)
			}
			// Nothing renderable was left and a tool failed: the fallback.
			if !strings.HasPrefix(out.Reply, "⚠️ A tool failed") || out.ToolErrors != 1 {
				t.Fatalf("reply %q, tool errors %d; want the tool-error fallback", out.Reply, out.ToolErrors)
			}
		})
	}
}

func TestRunReplyShaping(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"plain", "hello", "hello"},
		{"silent token alone", "NO_REPLY", ""},
		{"silent token with surrounding whitespace", " \n NO_REPLY \t\n", ""},
		{"token followed by words is text", "NO_REPLY nothing to add", "NO_REPLY nothing to add"},
		{"token as a word's prefix is text", "NO_REPLYING", "NO_REPLYING"},
		{"token as the last word is text", "I will stay quiet. NO_REPLY", "I will stay quiet. NO_REPLY"},
		{"token with punctuation is text", "NO_REPLY.", "NO_REPLY."},
		{"token in another case is text", "no_reply", "no_reply"},
		{"token inside text is text", "say NO_REPLY to skip", "say NO_REPLY to skip"},
		{"whitespace trimmed", "  hi  \n", "hi"},
		{"empty without tool errors", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &Loop{Model: &script{answers: []model.Response{text(tt.text)}}}
			out, err := l.Run(context.Background(), Input{Prompt: "go"})
			if err != nil || out.Reply != tt.want {
				t.Fatalf("reply %q, %v; want %q", out.Reply, err, tt.want)
			}
		})
	}
}

func TestRunHooks(t *testing.T) {
	m := &script{answers: []model.Response{
		calls(model.ToolCall{ID: "c1", Name: "echo", Arguments: `{"text":"secret"}`}, model.ToolCall{ID: "c2", Name: "echo", Arguments: `{"text":"blocked"}`}),
		text("ok"),
	}}
	tool := &echoTool{}
	l := &Loop{Model: m, Tools: []Tool{tool}, Hooks: Hooks{
		BeforeToolCall: []func(context.Context, *ToolCall) error{func(_ context.Context, c *ToolCall) error {
			if strings.Contains(string(c.Args), "blocked") {
				return errors.New("refused by policy hook")
			}
			c.Args = json.RawMessage(`{"text":"rewritten"}`)
			return nil
		}},
		AfterToolCall: []func(context.Context, ToolCall, *ToolResult){func(_ context.Context, _ ToolCall, r *ToolResult) {
			r.Text += " (checked)"
		}},
		ToolResultPersist: []func(ToolCall, *ToolResult){func(_ ToolCall, r *ToolResult) {
			r.Text = strings.ReplaceAll(r.Text, "rewritten", "[redacted]")
		}},
	}}
	out, err := l.Run(context.Background(), Input{Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	seen := m.seen[1].Messages
	if tool.calls != 1 || seen[2].Content != "echoed rewritten (checked)" || !seen[3].IsError || !strings.Contains(seen[3].Content, "refused by policy hook") {
		t.Fatalf("model saw %+v after %d tool runs", seen[2:], tool.calls)
	}
	persisted := l.Persisted(out)
	if persisted[2].Content != "echoed [redacted] (checked)" || out.Messages[2].Content != "echoed rewritten (checked)" {
		t.Fatalf("persisted %q, run kept %q; want only the persisted copy transformed", persisted[2].Content, out.Messages[2].Content)
	}
}

func TestRunBounds(t *testing.T) {
	t.Run("iterations", func(t *testing.T) {
		loop := model.ToolCall{ID: "c", Name: "echo", Arguments: `{"text":"again"}`}
		m := &script{answers: []model.Response{calls(loop), calls(loop), calls(loop), calls(loop)}}
		l := &Loop{Model: m, Tools: []Tool{&echoTool{}}, MaxIterations: 3}
		out, err := l.Run(context.Background(), Input{Prompt: "go"})
		if err != nil || len(m.seen) != 3 || !strings.Contains(out.Reply, "too many rounds of tool calls") {
			t.Fatalf("%d model calls, reply %q, %v", len(m.seen), out.Reply, err)
		}
		last := out.Messages[len(out.Messages)-1]
		if last.Role != model.ToolResult || last.ToolCallID != "c" || !last.IsError {
			t.Fatalf("the last calls are left unanswered: %+v", last)
		}
	})
	t.Run("tool result size", func(t *testing.T) {
		big := strings.Repeat("é", 100)
		m := &script{answers: []model.Response{calls(model.ToolCall{ID: "c", Name: "echo", Arguments: `{"text":"` + big + `"}`}), text("ok")}}
		l := &Loop{Model: m, Tools: []Tool{&echoTool{}}, MaxToolResultBytes: 51}
		if _, err := l.Run(context.Background(), Input{Prompt: "go"}); err != nil {
			t.Fatal(err)
		}
		got := m.seen[1].Messages[2].Content
		head, _, _ := strings.Cut(got, "\n")
		if len(head) > 51 || !strings.Contains(got, "more bytes cut") || !strings.HasPrefix(head, "echoed é") || strings.ContainsRune(head, '\uFFFD') {
			t.Fatalf("trimmed result %q", got)
		}
	})
	t.Run("interrupt between steps", func(t *testing.T) {
		again := model.ToolCall{ID: "c", Name: "echo", Arguments: `{"text":"x"}`}
		m := &script{answers: []model.Response{calls(again), calls(again), text("never")}}
		asked := 0
		l := &Loop{Model: m, Tools: []Tool{&echoTool{}}, Interrupt: func(context.Context) error {
			asked++
			if asked == 2 {
				return ErrStopped
			}
			return nil
		}}
		out, err := l.Run(context.Background(), Input{Prompt: "go"})
		if !errors.Is(err, ErrStopped) || out.Stop != model.StopAborted || len(m.seen) != 2 {
			t.Fatalf("err %v stop %q after %d model calls; want stopped before the third", err, out.Stop, len(m.seen))
		}
		if last := out.Messages[len(out.Messages)-1]; last.Role != model.ToolResult {
			t.Fatalf("the partial run ends with %+v; want the last tool result kept", last)
		}
	})
	t.Run("model error ends the run", func(t *testing.T) {
		l := &Loop{Model: &script{err: fault.New(fault.RateLimited, "slow down")}}
		if _, err := l.Run(context.Background(), Input{Prompt: "go"}); !fault.Is(err, fault.RateLimited) {
			t.Fatalf("err %v; want the model's error", err)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		out, err := (&Loop{Model: &script{}}).Run(ctx, Input{Prompt: "go"})
		if err == nil || out.Stop != model.StopAborted {
			t.Fatalf("stop %q, err %v; want aborted", out.Stop, err)
		}
	})
}
