package bedrock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/model/modeltest"
)

// TestConformance runs the model.Client suite on the Converse wire.
func TestConformance(t *testing.T) {
	modeltest.TestClient(t, converseAPI, func(t *testing.T, s modeltest.Server, retries int) model.Client {
		return New(bedrockruntime.New(newRuntime(s.URL, s.Client).Options(), func(o *bedrockruntime.Options) {
			o.RetryMaxAttempts = 1 + retries
		}))
	})
}

// converseAPI is the Converse side of the suite.
var converseAPI = modeltest.Vendor{
	CacheWrites: true,
	Answer: func(a modeltest.Answer) modeltest.Reply {
		var blocks []string
		if a.Text != "" {
			blocks = append(blocks, text(a.Text))
		}
		stop := "end_turn"
		for _, c := range a.ToolCalls {
			stop = "tool_use"
			blocks = append(blocks, toolUse(c.ID, c.Name, inputDocument(c.Arguments)))
		}
		usage := fmt.Sprintf(`{"inputTokens":%d,"outputTokens":%d,"cacheReadInputTokens":%d,"cacheWriteInputTokens":%d,"totalTokens":%d}`,
			a.Usage.Input, a.Usage.Output, a.Usage.CacheRead, a.Usage.CacheWrite, a.Usage.Total)
		r := converse(stop, usage, blocks...)
		return modeltest.Reply{Status: r.status, Body: r.body}
	},
	Stream: streamAnswer,
	Fail: func(f modeltest.Failure) modeltest.Reply {
		var r reply
		switch f {
		case modeltest.RateLimited:
			r = awsError(http.StatusTooManyRequests, "ThrottlingException", "Too many requests, please wait before trying again.")
		case modeltest.ServerError:
			r = awsError(http.StatusServiceUnavailable, "ServiceUnavailableException", "Bedrock is unable to process your request.")
		case modeltest.Unauthorized:
			// Bedrock answers bad credentials with a 403, not a 401.
			r = awsError(http.StatusForbidden, "UnrecognizedClientException", "The security token included in the request is invalid.")
		case modeltest.ContextOverflow:
			r = awsError(http.StatusBadRequest, "ValidationException", "Input is too long for requested model.")
		default:
			panic("unknown failure " + f)
		}
		h := http.Header{}
		for k, v := range r.header {
			h.Set(k, v)
		}
		return modeltest.Reply{Status: r.status, Header: h, Body: r.body}
	},
	Read: func(body []byte) (modeltest.Sent, error) {
		var req wireRequest
		if err := json.Unmarshal(body, &req); err != nil {
			return modeltest.Sent{}, err
		}
		var sent modeltest.Sent
		if req.ToolConfig != nil {
			for _, tool := range req.ToolConfig.Tools {
				sent.Tools = append(sent.Tools, tool.ToolSpec.Name)
			}
		}
		for _, m := range req.Messages {
			wire := modeltest.WireMessage{Role: m.Role}
			for _, b := range m.Content {
				switch {
				case b.Text != nil:
					wire.Text += *b.Text
				case b.ToolUse != nil:
					sent.Calls = append(sent.Calls, model.ToolCall{ID: b.ToolUse.ToolUseID, Name: b.ToolUse.Name, Arguments: string(b.ToolUse.Input)})
					wire.Calls = append(wire.Calls, b.ToolUse.ToolUseID)
				case b.ToolResult != nil:
					wire.Results = append(wire.Results, b.ToolResult.ToolUseID)
					var texts []string
					for _, c := range b.ToolResult.Content {
						if c.Text != nil {
							texts = append(texts, *c.Text)
						}
					}
					sent.Results = append(sent.Results, modeltest.Result{
						CallID: b.ToolResult.ToolUseID, Content: strings.Join(texts, ""), IsError: b.ToolResult.Status == "error",
					})
				}
			}
			sent.Wire = append(sent.Wire, wire)
		}
		return sent, nil
	},
	Refuse: func(u modeltest.Unpaired) modeltest.Reply {
		message := fmt.Sprintf("Expected toolResult blocks at messages.%d.content for the following Ids: %s", u.Message+1, strings.Join(u.IDs, ", "))
		if u.Orphan {
			message = fmt.Sprintf("The number of toolResult blocks at messages.%d.content exceeds the number of toolUse blocks of previous turn.", u.Message)
		}
		r := awsError(http.StatusBadRequest, "ValidationException", message)
		h := http.Header{}
		for k, v := range r.header {
			h.Set(k, v)
		}
		return modeltest.Reply{Status: r.status, Header: h, Body: r.body}
	},
}

// inputDocument is a toolUse block's input for arguments: the arguments
// when they are JSON, else the text as a JSON string (Bedrock itself
// always sends an object; the suite's bad arguments must still make a
// valid body).
func inputDocument(arguments string) string {
	if json.Valid([]byte(arguments)) {
		return arguments
	}
	s, _ := json.Marshal(arguments)
	return string(s)
}

// TestFakeRefusesBrokenPairing pins the conformance fake to the real API:
// a hand-written request whose tool pairing is broken gets Converse's own
// ValidationException, and a sound one is let through.
func TestFakeRefusesBrokenPairing(t *testing.T) {
	const (
		user    = `{"role":"user","content":[{"text":"Weather?"}]}`
		calls   = `{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_x","name":"get_weather","input":{}}}]}`
		answerX = `{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_x","content":[{"text":"18°C"}],"status":"success"}}]}`
		done    = `{"role":"assistant","content":[{"text":"18°C."}]}`
	)
	validation := func(message string) refusal {
		return refusal{Refused: true, Status: http.StatusBadRequest, Code: "ValidationException", Body: `{"message":"` + message + `"}`}
	}
	tests := []struct {
		name     string
		messages []string
		want     refusal
	}{
		{"a sound pairing", []string{user, calls, answerX, done, user}, refusal{}},
		{"a call with no result", []string{user, calls, user},
			validation("Expected toolResult blocks at messages.2.content for the following Ids: tooluse_x")},
		{"a result that answers no call", []string{user, done, answerX},
			validation("The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn.")},
		{"a second answer to a call", []string{user, calls, answerX, done, answerX},
			validation("The number of toolResult blocks at messages.4.content exceeds the number of toolUse blocks of previous turn.")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"messages":[` + strings.Join(tc.messages, ",") + `]}`
			_, rep, refused, err := converseAPI.Check([]byte(body))
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			code, _, _ := strings.Cut(rep.Header.Get("X-Amzn-ErrorType"), ":")
			if diff := cmp.Diff(tc.want, refusal{refused, rep.Status, code, rep.Body}); diff != "" {
				t.Errorf("the fake's answer (-want +got):\n%s", diff)
			}
		})
	}
}

// refusal is how the conformance fake answered a request: Refused, with
// the HTTP status, error code and body of its refusal.
type refusal struct {
	Refused bool
	Status  int
	Code    string
	Body    string
}

// streamAnswer writes a as ConverseStream answers: AWS event-stream
// messages (binary frames with :message-type event, :event-type and a
// JSON payload) messageStart, each content block's deltas (text pieces;
// a tool use's start with its id and name, then its input JSON as string
// pieces) and stop, messageStop with the stop reason, then metadata with
// the usage.
func streamAnswer(a modeltest.Answer) modeltest.Reply {
	enc := eventstream.NewEncoder()
	event := func(typ string, payload map[string]any) string {
		body, _ := json.Marshal(payload)
		var buf bytes.Buffer
		err := enc.Encode(&buf, eventstream.Message{Headers: eventstream.Headers{
			{Name: ":event-type", Value: eventstream.StringValue(typ)},
			{Name: ":content-type", Value: eventstream.StringValue("application/json")},
			{Name: ":message-type", Value: eventstream.StringValue("event")},
		}, Payload: body})
		if err != nil {
			panic(err)
		}
		return buf.String()
	}
	parts := []string{event("messageStart", map[string]any{"role": "assistant"})}
	index := 0
	if a.Text != "" {
		for _, p := range modeltest.Pieces(a.Text, 4) {
			parts = append(parts, event("contentBlockDelta", map[string]any{"contentBlockIndex": index, "delta": map[string]any{"text": p}}))
		}
		parts = append(parts, event("contentBlockStop", map[string]any{"contentBlockIndex": index}))
		index++
	}
	stop := "end_turn"
	for _, c := range a.ToolCalls {
		stop = "tool_use"
		input := inputDocument(c.Arguments)
		parts = append(parts, event("contentBlockStart", map[string]any{"contentBlockIndex": index,
			"start": map[string]any{"toolUse": map[string]any{"toolUseId": c.ID, "name": c.Name}}}))
		for _, p := range modeltest.Pieces(input, 2) {
			parts = append(parts, event("contentBlockDelta", map[string]any{"contentBlockIndex": index,
				"delta": map[string]any{"toolUse": map[string]any{"input": p}}}))
		}
		parts = append(parts, event("contentBlockStop", map[string]any{"contentBlockIndex": index}))
		index++
	}
	parts = append(parts,
		event("messageStop", map[string]any{"stopReason": stop}),
		event("metadata", map[string]any{"metrics": map[string]any{"latencyMs": 12}, "usage": map[string]any{
			"inputTokens": a.Usage.Input, "outputTokens": a.Usage.Output, "cacheReadInputTokens": a.Usage.CacheRead,
			"cacheWriteInputTokens": a.Usage.CacheWrite, "totalTokens": a.Usage.Total}}))
	return modeltest.Reply{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}}, Parts: parts}
}
