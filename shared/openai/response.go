package openai

import (
	"encoding/json"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// reasoningFields are the non-standard message fields in which compatible
// servers return reasoning text: "reasoning_content" (vLLM, DeepSeek,
// llama.cpp) and "reasoning" (OpenRouter, Ollama). OpenAI itself returns
// none on Chat Completions.
var reasoningFields = []string{"reasoning_content", "reasoning"}

// mapResponse translates the first choice and the usage of a completion:
// content (the refusal when there is no content) -> Text, reasoning text ->
// Thinking, tool_calls -> ToolCalls, finish_reason -> StopReason. It never
// fails on a tool call's arguments: they are passed on verbatim, invalid
// JSON included, for the loop to answer as a tool error.
func mapResponse(c *sdk.ChatCompletion) (model.Response, error) {
	if c == nil || len(c.Choices) == 0 {
		return model.Response{}, fault.New(fault.Unavailable, "the model provider returned no answer (no choices)")
	}
	choice := c.Choices[0]
	text := choice.Message.Content
	if text == "" {
		text = choice.Message.Refusal
	}
	calls := toolCalls(choice.Message.ToolCalls)
	stop := stopReason(choice.FinishReason)
	// Some compatible servers (older Ollama, some vLLM parsers) answer tool
	// calls with finish_reason "stop" or none: the calls decide, or the loop
	// would end the run with calls unanswered.
	if len(calls) > 0 && stop == model.StopEnd {
		stop = model.StopToolUse
	}
	return model.Response{
		Text:       text,
		Thinking:   reasoning(choice.Message),
		ToolCalls:  calls,
		StopReason: stop,
		Usage:      mapUsage(c.Usage),
	}, nil
}

// toolCalls maps the answer's tool calls in order; nil when there are none.
//
// A call without an id (some local servers omit it) gets "call_<index>", so
// its result can still be matched when it is sent back. Arguments is the
// function.arguments string verbatim; from a server that sends an object
// instead of a string, the SDK already decodes it as that object's JSON text.
func toolCalls(in []sdk.ChatCompletionMessageToolCallUnion) []model.ToolCall {
	if len(in) == 0 {
		return nil
	}
	out := make([]model.ToolCall, 0, len(in))
	for i, tc := range in {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		out = append(out, model.ToolCall{ID: id, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out
}

// reasoning returns the reasoning text a compatible server put beside the
// content, "" when there is none or it is not a string.
func reasoning(m sdk.ChatCompletionMessage) string {
	return reasoningIn(m.JSON.ExtraFields)
}

// reasoningIn is the first of reasoningFields among a message's or a
// delta's extra fields that holds a non-empty string.
func reasoningIn(extra map[string]respjson.Field) string {
	for _, name := range reasoningFields {
		f, ok := extra[name]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// stopReason maps a Chat Completions finish_reason to ZERO's stop reasons.
// content_filter counts as a normal stop: the text that was produced is the
// answer, and an error would fail the run over a provider's policy cut. An
// absent or unknown reason (some compatible servers send none) also counts
// as a normal stop.
func stopReason(finish string) string {
	switch finish {
	case "length":
		return model.StopLength
	case "tool_calls", "function_call":
		return model.StopToolUse
	}
	return model.StopEnd
}

// mapUsage maps token usage in the transcript's terms, where Input excludes
// cache reads (as Anthropic's input_tokens does): OpenAI counts cached tokens
// inside prompt_tokens, so Input = prompt_tokens - cached_tokens and
// CacheRead = cached_tokens, and Input + CacheRead + Output = Total. Total is
// total_tokens, derived when the server omits it. Chat Completions reports no
// cache writes.
func mapUsage(u sdk.CompletionUsage) model.Usage {
	cached := min(max(u.PromptTokensDetails.CachedTokens, 0), u.PromptTokens)
	total := u.TotalTokens
	if total == 0 {
		total = u.PromptTokens + u.CompletionTokens
	}
	return model.Usage{
		Input:     u.PromptTokens - cached,
		Output:    u.CompletionTokens,
		CacheRead: cached,
		Total:     total,
	}
}
