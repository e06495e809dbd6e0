package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// emptyInput is the input sent for a tool call whose Arguments are not a
// JSON object. The loop has already answered such a call with a tool error,
// so the model sees its mistake in the result; the API only needs a valid
// object here to accept the history.
var emptyInput = json.RawMessage(`{}`)

// emptySchema is the input_schema of a tool without a schema: the API
// requires the field and an object type.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// buildParams translates a model.Request into Messages parameters: the
// system prompt as the top-level system text, the tools as custom tools
// {name, description, input_schema}, max_tokens (the request's, else
// defaultMax) and the context folded into turns (see messageParams).
// A thinking level goes out as thinking {type: enabled, budget_tokens}
// (see thinkingParam), its budget added to max_tokens.
//
// It fails with fault.Invalid, before anything is sent, on a missing model
// name, an unknown role, a tool call or tool result without an id, a tool
// schema that is not a JSON object, a context with nothing to send, or a
// max_tokens the SDK refuses to send without streaming.
//
// The context goes out with its tool pairing repaired
// (model.PairedMessages): the API refuses a tool_use block not answered by
// a tool_result in the very next user message, and a tool_result that
// answers no tool_use of the message before. A valid history is sent as
// given.
func buildParams(req model.Request, defaultMax int64) (sdk.MessageNewParams, error) {
	if strings.TrimSpace(req.Model) == "" {
		return sdk.MessageNewParams{}, fault.New(fault.Invalid, "no model name given for the Anthropic provider")
	}
	maxTokens := defaultMax
	if req.MaxTokens > 0 {
		maxTokens = int64(req.MaxTokens)
	}
	thinking := thinkingParam(req, maxTokens)
	if budget := thinking.GetBudgetTokens(); budget != nil {
		// The budget is part of max_tokens and must stay below it: the
		// answer keeps its own limit on top of the reasoning.
		maxTokens += *budget
	}
	// The SDK refuses, client-side, a non-streaming call that may run past
	// ten minutes (large max_tokens). Checking here turns that into a clear
	// Invalid error instead of an unclassified transport failure.
	if _, err := sdk.CalculateNonStreamingTimeout(int(maxTokens), req.Model, nil); err != nil {
		return sdk.MessageNewParams{}, fault.Wrap(fault.Invalid, err,
			"max tokens %d is too large for a non-streaming call to %s; lower it", maxTokens, req.Model)
	}

	history, err := model.PairedMessages("anthropic", req)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	msgs, err := messageParams(history)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	params := sdk.MessageNewParams{Model: req.Model, MaxTokens: maxTokens, Messages: msgs, Thinking: thinking}
	if strings.TrimSpace(req.System) != "" {
		params.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	for _, t := range req.Tools {
		p, err := toolParam(t)
		if err != nil {
			return sdk.MessageNewParams{}, fault.New(fault.Invalid, "tool %q: %v", t.Name, err)
		}
		params.Tools = append(params.Tools, p)
	}
	return params, nil
}

// turn is one wire message being assembled. Tool results are kept apart
// from the other blocks because the API wants them first in a user message.
type turn struct {
	role    string // "user" or "assistant"
	results []sdk.ContentBlockParamUnion
	blocks  []sdk.ContentBlockParamUnion
}

func (t turn) empty() bool { return len(t.results) == 0 && len(t.blocks) == 0 }

// messageParams folds the context into the alternating user/assistant turns
// the API requires:
//   - a user message is a user turn with one text block;
//   - an assistant message is an assistant turn: its text, then one
//     tool_use block {id, name, input} per tool call, in order;
//   - a toolResult message is a tool_result block {tool_use_id, content,
//     is_error} in a user turn.
//
// Adjacent turns of the same role are merged, so consecutive tool results
// become ONE user message right after the assistant message that asked for
// them, and a user message that follows them joins it as a text block after
// the results. Blank text is left out (the API rejects empty text blocks)
// and a message left with nothing to send is dropped before merging, so its
// neighbours still alternate.
func messageParams(msgs []model.Message) ([]sdk.MessageParam, error) {
	turns := make([]turn, 0, len(msgs))
	for i, m := range msgs {
		t, err := turnOf(m)
		if err != nil {
			return nil, fault.New(fault.Invalid, "message %d: %v", i, err)
		}
		if t.empty() {
			continue
		}
		if n := len(turns); n > 0 && turns[n-1].role == t.role {
			turns[n-1].results = append(turns[n-1].results, t.results...)
			turns[n-1].blocks = append(turns[n-1].blocks, t.blocks...)
			continue
		}
		turns = append(turns, t)
	}
	if len(turns) == 0 {
		return nil, fault.New(fault.Invalid, "the context has no message with content to send to the model")
	}
	out := make([]sdk.MessageParam, 0, len(turns))
	for _, t := range turns {
		content := slices.Concat(t.results, t.blocks)
		if t.role == "user" {
			out = append(out, sdk.NewUserMessage(content...))
		} else {
			out = append(out, sdk.NewAssistantMessage(content...))
		}
	}
	return out, nil
}

// turnOf translates one context message into a (possibly empty) turn.
func turnOf(m model.Message) (turn, error) {
	switch m.Role {
	case model.User:
		t := turn{role: "user"}
		for _, img := range m.Images {
			t.blocks = append(t.blocks, sdk.NewImageBlockBase64(img.MediaType, base64.StdEncoding.EncodeToString(img.Data)))
		}
		if strings.TrimSpace(m.Content) != "" {
			t.blocks = append(t.blocks, sdk.NewTextBlock(m.Content))
		}
		return t, nil
	case model.Assistant:
		t := turn{role: "assistant"}
		if strings.TrimSpace(m.Content) != "" {
			t.blocks = append(t.blocks, sdk.NewTextBlock(m.Content))
		}
		for j, tc := range m.ToolCalls {
			if tc.ID == "" {
				return turn{}, fmt.Errorf("tool call %d (%s) has no id", j, tc.Name)
			}
			t.blocks = append(t.blocks, sdk.NewToolUseBlock(wireID(tc.ID), toolInput(tc.Arguments), tc.Name))
		}
		return t, nil
	case model.ToolResult:
		if m.ToolCallID == "" {
			return turn{}, fmt.Errorf("tool result for %q has no tool call id", m.ToolName)
		}
		result := sdk.ToolResultBlockParam{ToolUseID: wireID(m.ToolCallID), IsError: sdk.Bool(m.IsError)}
		// A result without output is sent without content: an empty text
		// block would be rejected.
		if strings.TrimSpace(m.Content) != "" {
			result.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: m.Content}}}
		}
		return turn{role: "user", results: []sdk.ContentBlockParamUnion{{OfToolResult: &result}}}, nil
	}
	return turn{}, fmt.Errorf("unsupported role %q", m.Role)
}

// toolInput is the input object of a tool_use block: Arguments verbatim
// when they are a JSON object, emptyInput otherwise (invalid JSON, another
// JSON value, or no arguments at all).
func toolInput(arguments string) json.RawMessage {
	trimmed := strings.TrimSpace(arguments)
	if strings.HasPrefix(trimmed, "{") && json.Valid([]byte(trimmed)) {
		return json.RawMessage(trimmed)
	}
	return emptyInput
}

// wireID makes a tool call id acceptable to the API, which allows only
// letters, digits, '_' and '-'. Ids from Anthropic pass unchanged; ids made
// by another provider earlier in the session ("functions.get:0") are mapped
// character by character, the same way for the tool_use block and its
// tool_result, so the pair still matches.
func wireID(id string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, id)
}

// toolParam translates a tool spec into a custom tool
// {name, description, input_schema}.
func toolParam(t model.ToolSpec) (sdk.ToolUnionParam, error) {
	schema, err := inputSchema(t.Schema)
	if err != nil {
		return sdk.ToolUnionParam{}, err
	}
	tool := sdk.ToolParam{Name: t.Name, InputSchema: schema}
	if t.Description != "" {
		tool.Description = sdk.String(t.Description)
	}
	return sdk.ToolUnionParam{OfTool: &tool}, nil
}

// inputSchema sends the tool's JSON Schema as written (the SDK's typed
// schema only knows properties and required, and would drop the rest:
// descriptions, enums, nested definitions). Only a missing "type" is filled
// in with "object", which the API requires; an empty or null schema becomes
// emptySchema.
func inputSchema(schema json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	trimmed := bytes.TrimSpace(schema)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return param.Override[sdk.ToolInputSchemaParam](emptySchema), nil
	}
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&fields); err != nil || fields == nil {
		return sdk.ToolInputSchemaParam{}, fmt.Errorf("schema is not a JSON object: %v", err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return sdk.ToolInputSchemaParam{}, errors.New("schema is not a JSON object: trailing data")
	}
	if _, ok := fields["type"]; ok {
		return param.Override[sdk.ToolInputSchemaParam](json.RawMessage(trimmed)), nil
	}
	fields["type"] = json.RawMessage(`"object"`)
	withType, err := json.Marshal(fields)
	if err != nil {
		return sdk.ToolInputSchemaParam{}, fmt.Errorf("schema: %v", err)
	}
	return param.Override[sdk.ToolInputSchemaParam](json.RawMessage(withType)), nil
}

// thinkingParam is the thinking config of req: enabled with the level's
// budget (model.ThinkingBudget), or omitted for off and for a call that
// continues a tool round. The API refuses thinking when the last assistant
// message's tool_use blocks are not preceded by its signed thinking block,
// which ZERO does not keep (model.EndsInToolRound), so the reasoning of a
// run happens at its first call and at each call after a text answer. The
// budget goes on top of maxTokens, shrunk (to no less than the API's 1024)
// where the total would be more than a non-streamed call may ask for
// (fitBudget); omitted when even 1024 does not fit.
func thinkingParam(req model.Request, maxTokens int64) sdk.ThinkingConfigParamUnion {
	budget := fitBudget(req.Model, maxTokens, int64(model.ThinkingBudget(req.Thinking)))
	if budget == 0 || model.EndsInToolRound(req.Messages) {
		return sdk.ThinkingConfigParamUnion{}
	}
	return sdk.ThinkingConfigParamOfEnabled(budget)
}

// minThinkingBudget is the least budget_tokens the API accepts.
const minThinkingBudget = 1024

// fitBudget is the largest budget, at most budget and at least
// minThinkingBudget, whose total with maxTokens the SDK lets a
// non-streamed call ask for (it refuses one that may run past ten
// minutes, or past the model's non-streaming limit); 0 when none fits or
// budget is 0.
func fitBudget(modelName string, maxTokens, budget int64) int64 {
	fits := func(b int64) bool {
		_, err := sdk.CalculateNonStreamingTimeout(int(maxTokens+b), modelName, nil)
		return err == nil
	}
	switch {
	case budget < minThinkingBudget || !fits(minThinkingBudget):
		return 0
	case fits(budget):
		return budget
	}
	lo, hi := int64(minThinkingBudget), budget // lo fits, hi does not
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
