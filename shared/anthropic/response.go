package anthropic

import (
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// refusalFallback is the text of a refusal that came with neither text nor
// an explanation, so the user is not answered with silence.
const refusalFallback = "The model declined to answer this request."

// mapResponse translates a Messages answer:
//   - text blocks, concatenated without separator (the API splits one
//     answer into several blocks, e.g. around citations) -> Text;
//   - thinking blocks, joined by a blank line -> Thinking; redacted
//     thinking is skipped;
//   - tool_use blocks -> ToolCalls, in order, Arguments being the input
//     object's JSON text;
//   - server-tool blocks (none are offered) are ignored.
//
// A refusal without text answers with the refusal's explanation.
func mapResponse(m *sdk.Message) (model.Response, error) {
	if m == nil {
		return model.Response{}, fault.New(fault.Unavailable, "the model provider returned no answer")
	}
	var text, thinking strings.Builder
	var calls []model.ToolCall
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "thinking":
			if thinking.Len() > 0 {
				thinking.WriteString("\n\n")
			}
			thinking.WriteString(b.Thinking)
		case "tool_use":
			args := strings.TrimSpace(string(b.Input))
			if args == "" || args == "null" {
				args = string(emptyInput)
			}
			calls = append(calls, model.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	resp := model.Response{
		Text:       text.String(),
		Thinking:   thinking.String(),
		ToolCalls:  calls,
		StopReason: stopReason(m.StopReason),
		Usage:      mapUsage(m.Usage),
	}
	if m.StopReason == sdk.StopReasonRefusal && strings.TrimSpace(resp.Text) == "" {
		resp.Text = strings.TrimSpace(m.StopDetails.Explanation)
		if resp.Text == "" {
			resp.Text = refusalFallback
		}
	}
	return resp, nil
}

// stopReason maps a Messages stop_reason to ZERO's stop reasons:
//   - end_turn, stop_sequence -> StopEnd;
//   - max_tokens, model_context_window_exceeded -> StopLength: the answer
//     was cut short (the request itself fit, so this is no overflow error);
//   - tool_use -> StopToolUse;
//   - refusal, pause_turn (server tools only, none offered) and anything
//     newer -> StopEnd, the text being the answer.
func stopReason(r sdk.StopReason) string {
	switch r {
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return model.StopLength
	case sdk.StopReasonToolUse:
		return model.StopToolUse
	}
	return model.StopEnd
}

// mapUsage maps token usage. Anthropic's input_tokens counts only the
// uncached part of the prompt; cache reads and cache writes are counted
// apart. Total is therefore input + output + cacheRead + cacheWrite: every
// token the call processed, which is also the size of the context after the
// answer (the upstream transcript computes totalTokens the same way).
func mapUsage(u sdk.Usage) model.Usage {
	return model.Usage{
		Input:      u.InputTokens,
		Output:     u.OutputTokens,
		CacheRead:  u.CacheReadInputTokens,
		CacheWrite: u.CacheCreationInputTokens,
		Total:      u.InputTokens + u.OutputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
	}
}
