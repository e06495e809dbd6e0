// Package bedrock adapts ZERO's model.Client to Amazon Bedrock's Converse
// API through aws-sdk-go-v2 (service/bedrockruntime).
//
// Like shared/openai it is split in small steps: buildInput (model.Request
// -> ConverseInput), mapOutput (ConverseOutput -> model.Response) and
// classify (SDK error -> fault), the only place errors are classified.
//
// Converse is stricter than Chat Completions, and the adapter absorbs the
// differences so callers can pass any well-formed history:
//   - roles must alternate, so adjacent messages of the same role (a
//     toolResult run, or a user message after tool results) are merged into
//     one message; the results of one assistant turn therefore travel
//     together in the next user message, as Converse requires;
//   - blank text blocks are rejected, so they are left out (a message left
//     with no block is dropped) and an empty tool result is sent as a
//     placeholder;
//   - a toolUse must be answered by a toolResult in the very next user
//     message, and a toolResult must answer one, so the history's tool
//     pairing is repaired first (model.PairedMessages);
//   - toolUse and toolResult blocks are rejected unless toolConfig is set, so
//     a request without tools (a summary of a conversation that used tools)
//     carries past tool calls and results as text.
package bedrock

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	smithydocument "github.com/aws/smithy-go/document"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// emptyResult stands in for a tool result with no text: Converse rejects a
// blank text block, and a result block without content says less to the
// model than an explicit "nothing".
const emptyResult = "(no output)"

// Client is a model.Client for the Bedrock Converse API. Safe for
// concurrent use.
type Client struct {
	runtime *bedrockruntime.Client
}

var _ model.Client = (*Client)(nil)

// New returns a Client that calls Converse through runtime. The caller
// builds runtime from the shared AWS config (shared/awsconfig), which
// decides region, credentials and the SDK's own retries of throttling and
// 5xx answers; the identity needs bedrock:InvokeModel on the model.
func New(runtime *bedrockruntime.Client) *Client {
	return &Client{runtime: runtime}
}

// Complete implements model.Client with one Converse call whose modelId is
// req.Model: a foundation model id, an inference profile id, or an ARN.
// Errors are classified with fault; a request the model refuses as too long
// also matches model.ErrContextOverflow with errors.Is.
func (c *Client) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	in, err := buildInput(req)
	if err != nil {
		return model.Response{}, err
	}
	out, err := c.runtime.Converse(ctx, in)
	if err != nil {
		return model.Response{}, classify(err, req.Model)
	}
	return mapOutput(out)
}

// buildInput translates a model.Request into a ConverseInput. It fails with
// fault.Invalid, before anything is sent, when the model is missing, a role
// is unknown, a tool call or tool result has no id, a tool schema is not a
// JSON object, or no message is left.
//
// The messages go out with their tool pairing repaired
// (model.PairedMessages): Converse refuses a toolUse not answered by a
// toolResult in the next user message, and a toolResult that answers no
// toolUse of the turn before. A valid history is sent as given.
func buildInput(req model.Request) (*bedrockruntime.ConverseInput, error) {
	if strings.TrimSpace(req.Model) == "" {
		return nil, fault.New(fault.Invalid, "no model id given for the Bedrock provider")
	}
	history, err := model.PairedMessages("bedrock", req)
	if err != nil {
		return nil, err
	}
	in := &bedrockruntime.ConverseInput{ModelId: aws.String(req.Model)}
	if strings.TrimSpace(req.System) != "" {
		in.System = []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: req.System}}
	}

	withTools := len(req.Tools) > 0
	for i, m := range history {
		if len(m.Images) > 0 {
			return nil, fault.New(fault.Invalid, "message %d has images, which ZERO's Bedrock adapter does not send (set agents.defaults.imageModel to an openai/ or anthropic/ model)", i)
		}
		role, blocks, ok := messageBlocks(m, withTools)
		if !ok {
			return nil, fault.New(fault.Invalid, "message %d has unsupported role %q", i, m.Role)
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(in.Messages); n > 0 && in.Messages[n-1].Role == role {
			in.Messages[n-1].Content = append(in.Messages[n-1].Content, blocks...)
			continue
		}
		in.Messages = append(in.Messages, types.Message{Role: role, Content: blocks})
	}
	if len(in.Messages) == 0 {
		return nil, fault.New(fault.Invalid, "the request to Bedrock has no message with content")
	}

	if withTools {
		tools := make([]types.Tool, 0, len(req.Tools))
		for _, t := range req.Tools {
			spec, err := toolSpec(t)
			if err != nil {
				return nil, err
			}
			tools = append(tools, &types.ToolMemberToolSpec{Value: spec})
		}
		in.ToolConfig = &types.ToolConfiguration{Tools: tools}
	}
	if req.MaxTokens > 0 {
		in.InferenceConfig = &types.InferenceConfiguration{MaxTokens: aws.Int32(int32(min(req.MaxTokens, math.MaxInt32)))}
	}
	applyThinking(in, req)
	return in, nil
}

// messageBlocks translates one context message into the Converse role and
// content blocks it contributes; false for an unknown role. withTools says
// whether tool blocks may be sent (see the package comment).
func messageBlocks(m model.Message, withTools bool) (types.ConversationRole, []types.ContentBlock, bool) {
	switch m.Role {
	case model.User:
		return types.ConversationRoleUser, textBlocks(m.Content), true

	case model.Assistant:
		blocks := textBlocks(m.Content)
		for _, call := range m.ToolCalls {
			if !withTools {
				blocks = append(blocks, &types.ContentBlockMemberText{
					Value: fmt.Sprintf("[called tool %s with %s]", call.Name, strings.TrimSpace(call.Arguments))})
				continue
			}
			blocks = append(blocks, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
				ToolUseId: aws.String(call.ID),
				Name:      aws.String(call.Name),
				Input:     document.NewLazyDocument(argumentsObject(call.Arguments)),
			}})
		}
		return types.ConversationRoleAssistant, blocks, true

	case model.ToolResult:
		content := m.Content
		if strings.TrimSpace(content) == "" {
			content = emptyResult
		}
		if !withTools {
			outcome := "returned"
			if m.IsError {
				outcome = "failed"
			}
			return types.ConversationRoleUser, []types.ContentBlock{&types.ContentBlockMemberText{
				Value: fmt.Sprintf("[tool %s %s]\n%s", m.ToolName, outcome, content)}}, true
		}
		status := types.ToolResultStatusSuccess
		if m.IsError {
			status = types.ToolResultStatusError
		}
		return types.ConversationRoleUser, []types.ContentBlock{&types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{
			ToolUseId: aws.String(m.ToolCallID),
			Content:   []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: content}},
			Status:    status,
		}}}, true
	}
	return "", nil, false
}

// textBlocks is one text block, or none for blank text (Converse rejects it).
func textBlocks(text string) []types.ContentBlock {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return []types.ContentBlock{&types.ContentBlockMemberText{Value: text}}
}

// toolSpec translates a tool. An empty description is left out (Converse
// rejects a blank one) and an empty schema means "no arguments".
func toolSpec(t model.ToolSpec) (types.ToolSpecification, error) {
	schema := map[string]any{"type": "object", "properties": map[string]any{}}
	if len(bytes.TrimSpace(t.Schema)) > 0 {
		obj, ok := jsonObject(t.Schema)
		if !ok {
			return types.ToolSpecification{}, fault.New(fault.Invalid, "tool %q: its schema is not a JSON object", t.Name)
		}
		schema = obj
	}
	spec := types.ToolSpecification{
		Name:        aws.String(t.Name),
		InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(schema)},
	}
	if strings.TrimSpace(t.Description) != "" {
		spec.Description = aws.String(t.Description)
	}
	return spec, nil
}

// argumentsObject is the document sent as a toolUse input. Converse wants a
// JSON object; arguments that are not one (the model produced invalid JSON,
// or a bare value) are sent as {} so the history stays sendable, while the
// tool result that answered them already told the model what went wrong.
func argumentsObject(arguments string) map[string]any {
	if obj, ok := jsonObject([]byte(arguments)); ok {
		return obj
	}
	return map[string]any{}
}

// jsonObject decodes exactly one JSON object, keeping numbers exact.
func jsonObject(text []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // trailing data after the object
	}
	return documentValue(obj).(map[string]any), true
}

// documentValue rewrites json.Number as smithy's document.Number, all the
// way down. The SDK's document encoder writes a json.Number (a string type)
// as a JSON string, which would turn {"days": 3} into {"days": "3"}.
func documentValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = documentValue(e)
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = documentValue(e)
		}
		return v
	case json.Number:
		return smithydocument.Number(v)
	}
	return v
}

// mapOutput translates a Converse answer. Text blocks (and reasoning blocks)
// are joined with a blank line, the way separate paragraphs read.
func mapOutput(out *bedrockruntime.ConverseOutput) (model.Response, error) {
	msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		return model.Response{}, fault.New(fault.Unavailable, "Bedrock returned no message (stop reason %q)", out.StopReason)
	}
	var text, thinking []string
	var calls []model.ToolCall
	for _, block := range msg.Value.Content {
		switch b := block.(type) {
		case *types.ContentBlockMemberText:
			if b.Value != "" {
				text = append(text, b.Value)
			}
		case *types.ContentBlockMemberReasoningContent:
			if r, ok := b.Value.(*types.ReasoningContentBlockMemberReasoningText); ok && aws.ToString(r.Value.Text) != "" {
				thinking = append(thinking, aws.ToString(r.Value.Text))
			}
		case *types.ContentBlockMemberToolUse:
			calls = append(calls, model.ToolCall{
				ID:        aws.ToString(b.Value.ToolUseId),
				Name:      aws.ToString(b.Value.Name),
				Arguments: inputJSON(b.Value.Input),
			})
		}
	}
	return model.Response{
		Text:       strings.Join(text, "\n\n"),
		Thinking:   strings.Join(thinking, "\n\n"),
		ToolCalls:  calls,
		StopReason: stopReason(out.StopReason),
		Usage:      mapUsage(out.Usage),
	}, nil
}

// inputJSON is the JSON text of a toolUse input; "{}" when there is none.
func inputJSON(input document.Interface) string {
	if input == nil {
		return "{}"
	}
	b, err := input.MarshalSmithyDocument()
	if err != nil || len(b) == 0 || string(b) == "null" {
		return "{}"
	}
	return string(b)
}

// stopReason maps Converse's stopReason to ZERO's. A guardrail or content
// filter ends the turn normally with whatever text Bedrock returned (its
// canned message); a malformed answer is an error; an unknown reason counts
// as a normal stop.
func stopReason(r types.StopReason) string {
	switch r {
	case types.StopReasonMaxTokens, types.StopReasonModelContextWindowExceeded:
		return model.StopLength
	case types.StopReasonToolUse:
		return model.StopToolUse
	case types.StopReasonMalformedModelOutput, types.StopReasonMalformedToolUse:
		return model.StopError
	}
	return model.StopEnd
}

// mapUsage maps token usage; Total is derived when Bedrock omits it.
func mapUsage(u *types.TokenUsage) model.Usage {
	if u == nil {
		return model.Usage{}
	}
	usage := model.Usage{
		Input:      int64(aws.ToInt32(u.InputTokens)),
		Output:     int64(aws.ToInt32(u.OutputTokens)),
		CacheRead:  int64(aws.ToInt32(u.CacheReadInputTokens)),
		CacheWrite: int64(aws.ToInt32(u.CacheWriteInputTokens)),
		Total:      int64(aws.ToInt32(u.TotalTokens)),
	}
	if usage.Total == 0 {
		usage.Total = usage.Input + usage.Output + usage.CacheRead + usage.CacheWrite
	}
	return usage
}
