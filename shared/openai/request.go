package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// limitField names the request field that carries model.Request.MaxTokens.
type limitField int

const (
	// maxTokens is "max_tokens": deprecated by OpenAI but the one field
	// every compatible server reads (Ollama ignores max_completion_tokens,
	// so the limit would silently not apply there).
	maxTokens limitField = iota
	// maxCompletionTokens is "max_completion_tokens": OpenAI's reasoning
	// models (o-series, gpt-5) reject max_tokens with a 400.
	maxCompletionTokens
)

// limitFieldFor picks max_completion_tokens for api.openai.com and
// max_tokens for every other server. Sending both is not safe: OpenAI's
// reasoning models reject any request that carries max_tokens, and a strict
// older server may reject the field it does not know.
func limitFieldFor(isOpenAI bool) limitField {
	if isOpenAI {
		return maxCompletionTokens
	}
	return maxTokens
}

// toolErrorPrefix starts the content of a tool message that answers a failed
// call: the Chat Completions wire has no error flag on tool messages, so the
// model learns of the failure from the text.
const toolErrorPrefix = "Error: "

// buildParams translates a model.Request into Chat Completions parameters:
// the system prompt first (when set), then the messages in order, the tools
// as function tools, MaxTokens (when > 0) in the field limit names and the
// thinking level as reasoning_effort for a reasoning model (see
// reasoningEffort). It
// fails with fault.Invalid, before anything is sent, on a missing model
// name, an unknown role, a tool call or tool result without an id, or a tool
// schema that is not a JSON object.
//
// The messages go out with their tool pairing repaired
// (model.PairedMessages): the API refuses an assistant message with
// tool_calls that is not followed at once by one tool message per call,
// and a tool message that answers no such call. A valid history is sent
// as given.
func buildParams(req model.Request, limit limitField) (sdk.ChatCompletionNewParams, error) {
	if strings.TrimSpace(req.Model) == "" {
		return sdk.ChatCompletionNewParams{}, fault.New(fault.Invalid, "no model name given for the OpenAI provider")
	}
	history, err := model.PairedMessages("openai", req)
	if err != nil {
		return sdk.ChatCompletionNewParams{}, err
	}
	msgs := make([]sdk.ChatCompletionMessageParamUnion, 0, len(history)+1)
	if req.System != "" {
		msgs = append(msgs, sdk.SystemMessage(req.System))
	}
	for i, m := range history {
		p, err := messageParam(m)
		if err != nil {
			return sdk.ChatCompletionNewParams{}, fault.New(fault.Invalid, "message %d: %v", i, err)
		}
		msgs = append(msgs, p)
	}
	params := sdk.ChatCompletionNewParams{Model: req.Model, Messages: msgs}

	for _, t := range req.Tools {
		p, err := toolParam(t)
		if err != nil {
			return sdk.ChatCompletionNewParams{}, fault.New(fault.Invalid, "tool %q: %v", t.Name, err)
		}
		params.Tools = append(params.Tools, p)
	}

	params.ReasoningEffort = reasoningEffort(req.Model, req.Thinking)
	if req.MaxTokens > 0 {
		switch limit {
		case maxCompletionTokens:
			params.MaxCompletionTokens = param.NewOpt(int64(req.MaxTokens))
		default:
			params.MaxTokens = param.NewOpt(int64(req.MaxTokens))
		}
	}
	return params, nil
}

// messageParam translates one context message:
//   - user: a user message;
//   - assistant: an assistant message; with tool calls, their
//     tool_calls[{id, type: function, function: {name, arguments}}], the
//     arguments as the exact text the model produced (valid JSON or not),
//     and content only when non-empty;
//   - toolResult: a tool message {tool_call_id, content}, the content
//     prefixed with toolErrorPrefix when IsError. ToolName is not sent: the
//     wire identifies the call by id only.
func messageParam(m model.Message) (sdk.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case model.User:
		if len(m.Images) > 0 {
			return userWithImages(m), nil
		}
		return sdk.UserMessage(m.Content), nil
	case model.Assistant:
		if len(m.ToolCalls) == 0 {
			return sdk.AssistantMessage(m.Content), nil
		}
		a := sdk.ChatCompletionAssistantMessageParam{
			ToolCalls: make([]sdk.ChatCompletionMessageToolCallUnionParam, 0, len(m.ToolCalls)),
		}
		if m.Content != "" {
			a.Content.OfString = param.NewOpt(m.Content)
		}
		for j, tc := range m.ToolCalls {
			if tc.ID == "" {
				return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("tool call %d (%s) has no id", j, tc.Name)
			}
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID: tc.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{
						Name:      tc.Name,
						Arguments: tc.Arguments,
					},
				},
			})
		}
		return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	case model.ToolResult:
		if m.ToolCallID == "" {
			return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("tool result for %q has no tool call id", m.ToolName)
		}
		content := m.Content
		if m.IsError {
			content = toolErrorPrefix + content
		}
		return sdk.ToolMessage(content, m.ToolCallID), nil
	}
	return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("unsupported role %q", m.Role)
}

// toolParam translates a tool spec into a function tool
// {type: function, function: {name, description, parameters}}. The schema's
// top-level values are sent byte for byte (as raw JSON), so numbers and
// nested objects reach the server exactly as written.
func toolParam(t model.ToolSpec) (sdk.ChatCompletionToolUnionParam, error) {
	schema, err := parameters(t.Schema)
	if err != nil {
		return sdk.ChatCompletionToolUnionParam{}, err
	}
	fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
	if t.Description != "" {
		fn.Description = param.NewOpt(t.Description)
	}
	return sdk.ChatCompletionFunctionTool(fn), nil
}

// parameters turns a JSON Schema into the SDK's parameters map. An empty or
// null schema becomes an object schema without properties: OpenAI allows
// omitting "parameters", but some compatible servers require the field.
func parameters(schema json.RawMessage) (shared.FunctionParameters, error) {
	trimmed := bytes.TrimSpace(schema)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return shared.FunctionParameters{"type": "object", "properties": map[string]any{}}, nil
	}
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&fields); err != nil {
		return nil, fmt.Errorf("schema is not a JSON object: %w", err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return nil, errors.New("schema is not a JSON object: trailing data")
	}
	out := make(shared.FunctionParameters, len(fields))
	for k, v := range fields {
		out[k] = v
	}
	return out, nil
}

// reasoningEffort is the reasoning_effort of a call to model at a thinking
// level: "" (the field left out) for off and for a model that is not a
// reasoning model, which OpenAI refuses the field for ("Unsupported
// parameter"). Reasoning models are the o-series (o1, o3, o4-mini, ...)
// and the gpt-5 family, by the name after any router prefix
// ("openai/o3" on OpenRouter). minimal is low on the o-series, which
// refuse it, and xhigh is high (only some gpt-5 models take xhigh).
func reasoningEffort(modelName, level string) shared.ReasoningEffort {
	if !model.ThinkingOn(level) {
		return ""
	}
	name := strings.ToLower(modelName)
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	gpt5 := strings.HasPrefix(name, "gpt-5")
	oSeries := len(name) >= 2 && name[0] == 'o' && name[1] >= '1' && name[1] <= '9'
	if !gpt5 && !oSeries {
		return ""
	}
	switch strings.ToLower(strings.TrimSpace(level)) {
	case model.ThinkingMinimal:
		if gpt5 {
			return shared.ReasoningEffortMinimal
		}
		return shared.ReasoningEffortLow
	case model.ThinkingLow:
		return shared.ReasoningEffortLow
	case model.ThinkingMedium:
		return shared.ReasoningEffortMedium
	}
	return shared.ReasoningEffortHigh
}
