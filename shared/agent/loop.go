// Package agent is ZERO's agent loop: ask the model, run the tool calls it
// makes under the hooks, feed the results back, until it answers in text or
// the iteration bound is reached; then shape the reply. It is core: the
// model and the tools come in through small interfaces, and it keeps no
// state between runs, so a retried turn simply runs again.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tool"
	"github.com/zero-gateway/zero/shared/tools/sessions"
)

// Defaults of Loop's bounds.
const (
	DefaultMaxIterations      = 8
	DefaultMaxToolResultBytes = 16 << 10
)

// SilentToken is the reply a model gives to say nothing ("NO_REPLY").
const SilentToken = "NO_REPLY"

// Tool is one tool the loop can run.
type Tool interface {
	// Spec is what the model is shown: name, description, argument schema.
	Spec() model.ToolSpec
	// Run executes a call whose arguments are a valid JSON object. An
	// error becomes an error result the model sees (fault.Message of it);
	// it does not end the run.
	Run(ctx context.Context, args json.RawMessage) (string, error)
}

// ToolCall is a tool call as the hooks see it.
type ToolCall struct {
	ID   string
	Name string
	Args json.RawMessage
}

// ToolResult is the outcome of one call.
type ToolResult struct {
	Text    string
	IsError bool
}

// Hooks are the loop's typed extension points. Each list runs in order.
type Hooks struct {
	// BeforeToolCall may rewrite the call's arguments, or refuse the call
	// by returning an error (the model sees it as the tool's error).
	BeforeToolCall []func(ctx context.Context, call *ToolCall) error
	// AfterToolCall sees (and may change) every result the model will get.
	AfterToolCall []func(ctx context.Context, call ToolCall, result *ToolResult)
	// ToolResultPersist transforms a result before it is recorded in the
	// transcript (and so in later context); the model of this run already
	// saw the untransformed result.
	ToolResultPersist []func(call ToolCall, result *ToolResult)
}

// Loop runs agent turns. Its fields are set once; Run is safe for
// concurrent use.
type Loop struct {
	Model model.Client
	// Tools is the set the policy allows and ZERO provides: it is shown to
	// the model, and a call to any other name is refused.
	Tools              []Tool
	Hooks              Hooks
	MaxIterations      int // model calls per run; 0 means DefaultMaxIterations
	MaxToolResultBytes int // longer results are cut; 0 means DefaultMaxToolResultBytes
	// Interrupt, when set, is asked between steps (before every model call
	// after the first) whether the run must stop; an error ends the run
	// with StopAborted and that error (ErrStopped for /stop).
	Interrupt func(ctx context.Context) error
	// Steer, when set, is asked at each tool boundary (before every model
	// call after the first, after Interrupt) for the messages that reached
	// the session during the run (queue mode steer). They join the run as
	// user messages before its next model call, and Output.Messages keeps
	// them in place. It reports no error: what it cannot read runs as its
	// own turn later.
	Steer func(ctx context.Context) []model.Message
}

// ErrStopped is the Interrupt error of a run stopped by the user (/stop).
var ErrStopped = errors.New("the run was stopped")

// Input is one run's input.
type Input struct {
	Model     string          // model name for the request
	System    string          // the assembled system prompt
	History   []model.Message // the context before this run
	Prompt    string          // the new user message
	Images    []model.Image   // go with Prompt, for a model that accepts images
	MaxTokens int
	// OnText, when set, gets each model call's text as it is produced
	// (model.CompleteStreaming: streamed where the client streams, else in
	// one piece once the call returns); call numbers the run's model calls
	// from 1. It is a draft: a call that fails afterwards, or that the
	// reply shaping silences (SilentToken), has streamed text all the same.
	OnText   func(call int, delta string)
	Thinking string // the reasoning level of every model call (model.Request.Thinking)
}

// Output is what a run produced.
type Output struct {
	// Messages are the run's new messages, in order: the user prompt,
	// then assistant messages and tool results. They are what the
	// transcript records (after ToolResultPersist) and the context keeps.
	Messages []model.Message
	// Reply is the text to deliver; "" when the model chose silence
	// (SilentToken) or produced nothing renderable.
	Reply string
	// Usage sums the run's model calls; Last is the last call's, whose
	// input+output is what the context holds now.
	Usage, Last model.Usage
	Stop        string // the last call's stop reason
	ToolErrors  int    // tool calls that ended in an error result
}

// Run executes one agent run. A model error ends the run and is returned
// as is (the caller decides whether to retry: fault.Retryable), with the
// output so far.
func (l *Loop) Run(ctx context.Context, in Input) (Output, error) {
	out := Output{Messages: []model.Message{{Role: model.User, Content: in.Prompt, Images: in.Images}}}
	tools := map[string]Tool{}
	specs := make([]model.ToolSpec, 0, len(l.Tools))
	for _, t := range l.Tools {
		spec := t.Spec()
		tools[spec.Name] = t
		specs = append(specs, spec)
	}
	maxIter := l.MaxIterations
	if maxIter <= 0 {
		maxIter = DefaultMaxIterations
	}
	for iter := 1; ; iter++ {
		if err := ctx.Err(); err != nil {
			out.Stop = model.StopAborted
			return out, fault.Wrap(fault.Unavailable, err, "run aborted")
		}
		if iter > 1 {
			if err := l.toolBoundary(ctx, &out); err != nil {
				return out, err
			}
		}
		req := model.Request{
			Model: in.Model, System: in.System, Tools: specs, MaxTokens: in.MaxTokens, Thinking: in.Thinking,
			Messages: append(append([]model.Message(nil), in.History...), out.Messages...),
		}
		resp, err := model.CompleteStreaming(ctx, l.Model, req, textSink(in.OnText, iter))
		if err != nil {
			return out, err
		}
		out.Usage = add(out.Usage, resp.Usage)
		out.Last = resp.Usage
		out.Stop = resp.StopReason
		out.Messages = append(out.Messages, model.Message{Role: model.Assistant, Content: resp.Text, Thinking: resp.Thinking, ToolCalls: resp.ToolCalls})
		if len(resp.ToolCalls) == 0 {
			break
		}
		if iter >= maxIter {
			// The model still wants tools: stop rather than loop on. The
			// calls are answered (not run) so the next turn's request is
			// well formed; Reply says the run was cut short.
			for _, c := range resp.ToolCalls {
				out.Messages = append(out.Messages, model.Message{Role: model.ToolResult, ToolCallID: c.ID, ToolName: c.Name, IsError: true, Content: notRun})
			}
			break
		}
		for _, c := range resp.ToolCalls {
			result := l.call(ctx, tools, c)
			if result.IsError {
				out.ToolErrors++
			}
			out.Messages = append(out.Messages, model.Message{Role: model.ToolResult, ToolCallID: c.ID, ToolName: c.Name, IsError: result.IsError, Content: result.Text})
		}
		if Yielded(out.Messages[len(out.Messages)-len(resp.ToolCalls):]) {
			break
		}
	}
	out.Reply = Reply(out.Messages)
	return out, nil
}

// textSink is the sink of model call iter, nil without onText (no
// streaming at all: the client's plain Complete).
func textSink(onText func(int, string), iter int) model.TextSink {
	if onText == nil {
		return nil
	}
	return func(delta string) { onText(iter, delta) }
}

// ToolFailedPrefix begins the fallback reply Reply gives when nothing
// renderable is left and a tool failed.
const ToolFailedPrefix = "⚠️ A tool failed: "

// toolBoundary runs between a tool round and the next model call: the
// Interrupt check (an error ends the run, StopAborted), then Steer's
// messages joining the run.
func (l *Loop) toolBoundary(ctx context.Context, out *Output) error {
	if l.Interrupt != nil {
		if err := l.Interrupt(ctx); err != nil {
			out.Stop = model.StopAborted
			return err
		}
	}
	if l.Steer != nil {
		out.Messages = append(out.Messages, l.Steer(ctx)...)
	}
	return nil
}

// notRun answers the calls of a run stopped at its iteration bound.
const notRun = "not run: the run reached its limit of tool rounds"

// Reply derives the text to deliver from a run's messages, so a retried
// turn that adopts a recorded run replies exactly as the first attempt
// would have: the last assistant text, where SilentToken (the whole
// text, surrounding whitespace allowed) means no reply; after a yield
// (Yielded) that text as it is; a note when the run stopped at its
// iteration bound; and, when nothing renderable is left and a tool
// failed, a fallback naming the failure.
func Reply(msgs []model.Message) string {
	last := -1
	for i, m := range msgs {
		if m.Role == model.Assistant {
			last = i
		}
	}
	if last < 0 {
		return ""
	}
	t := strings.TrimSpace(msgs[last].Content)
	if last < len(msgs)-1 && Yielded(msgs[last+1:]) {
		if silent(t) {
			return ""
		}
		return t
	}
	if last < len(msgs)-1 {
		if t != "" && !silent(t) {
			t += "\n\n"
		} else {
			t = ""
		}
		return t + "(Stopped before finishing: too many rounds of tool calls.)"
	}
	if silent(t) {
		return ""
	}
	if t == "" {
		for i := len(msgs) - 1; i >= 0; i-- {
			if m := msgs[i]; m.Role == model.ToolResult && m.IsError {
				return ToolFailedPrefix + m.ToolName + ": " + m.Content
			}
		}
	}
	return t
}

// Yielded reports whether results (one round's tool results) hold a
// successful sessions_yield: the run ends after that round without
// another model call, and its reply is the round's assistant text, if
// any (the session waits for its sub-agents, whose results arrive as its
// next message).
func Yielded(results []model.Message) bool {
	for _, m := range results {
		if m.Role == model.ToolResult && m.ToolName == sessions.YieldName && !m.IsError && sessions.Yielded(m.Content) {
			return true
		}
	}
	return false
}

// call runs one tool call through the hooks. Nothing here fails the run:
// every problem is an error result the model can react to.
func (l *Loop) call(ctx context.Context, tools map[string]Tool, c model.ToolCall) ToolResult {
	t, ok := tools[c.Name]
	if !ok {
		if answer, unavailable := tool.Unavailable(c.Name); unavailable {
			return ToolResult{IsError: true, Text: answer}
		}
		return ToolResult{IsError: true, Text: fmt.Sprintf("tool %q is not available in this session", c.Name)}
	}
	args := json.RawMessage(strings.TrimSpace(c.Arguments))
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return ToolResult{IsError: true, Text: "the arguments are not a valid JSON object: " + err.Error()}
	}
	call := ToolCall{ID: c.ID, Name: c.Name, Args: args}
	for _, h := range l.Hooks.BeforeToolCall {
		if err := h(ctx, &call); err != nil {
			return ToolResult{IsError: true, Text: errorText(err)}
		}
	}
	var result ToolResult
	text, err := t.Run(ctx, call.Args)
	if err != nil {
		result = ToolResult{IsError: true, Text: errorText(err)}
	} else {
		result = ToolResult{Text: text}
	}
	result.Text = l.trim(result.Text)
	for _, h := range l.Hooks.AfterToolCall {
		h(ctx, call, &result)
	}
	return result
}

// errorText is what the model is told of a failed call: a classified
// error's clean message, else the error itself (tools and hooks return
// plain errors written for the model).
func errorText(err error) string {
	var f *fault.Error
	if errors.As(err, &f) {
		return fault.Message(err)
	}
	return err.Error()
}

// Persisted returns the run's messages as the transcript records them:
// tool results pass through the ToolResultPersist hooks.
func (l *Loop) Persisted(out Output) []model.Message {
	if len(l.Hooks.ToolResultPersist) == 0 {
		return out.Messages
	}
	msgs := append([]model.Message(nil), out.Messages...)
	for i, m := range msgs {
		if m.Role != model.ToolResult {
			continue
		}
		call := ToolCall{ID: m.ToolCallID, Name: m.ToolName}
		r := ToolResult{Text: m.Content, IsError: m.IsError}
		for _, h := range l.Hooks.ToolResultPersist {
			h(call, &r)
		}
		msgs[i].Content, msgs[i].IsError = r.Text, r.IsError
	}
	return msgs
}

// trim cuts a tool result to MaxToolResultBytes on a rune boundary and says
// so, since a huge result would crowd the context out.
func (l *Loop) trim(s string) string {
	limit := l.MaxToolResultBytes
	if limit <= 0 {
		limit = DefaultMaxToolResultBytes
	}
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[… %d more bytes cut]", len(s)-cut)
}

// silent reports whether a reply is the silent token: exactly SilentToken,
// surrounding whitespace allowed. The token inside or around other words
// ("NO_REPLY needed", "NO_REPLYING", "done. NO_REPLY") is text, so a
// reply that mentions it is never swallowed.
func silent(t string) bool { return strings.TrimSpace(t) == SilentToken }

func add(a, b model.Usage) model.Usage {
	return model.Usage{
		Input: a.Input + b.Input, Output: a.Output + b.Output,
		CacheRead: a.CacheRead + b.CacheRead, CacheWrite: a.CacheWrite + b.CacheWrite,
		Total: a.Total + b.Total,
	}
}
