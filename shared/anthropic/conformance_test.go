package anthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/model/modeltest"
)

// TestConformance runs the model.Client suite on the Messages wire.
func TestConformance(t *testing.T) {
	modeltest.TestClient(t, messagesAPI, func(t *testing.T, s modeltest.Server, retries int) model.Client {
		c, err := New(Config{APIKey: testKey, BaseURL: s.URL, HTTPClient: s.Client, MaxRetries: retries})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		return c
	})
}

// messagesAPI is the Messages API side of the suite.
var messagesAPI = modeltest.Vendor{
	CacheWrites: true,
	Answer: func(a modeltest.Answer) modeltest.Reply {
		var blocks []string
		if a.Text != "" {
			blocks = append(blocks, textBlock(a.Text))
		}
		stop := "end_turn"
		for _, c := range a.ToolCalls {
			stop = "tool_use"
			blocks = append(blocks, toolUseBlock(c.ID, c.Name, inputJSON(c.Arguments)))
		}
		r := answer(stop, usage{in: int(a.Usage.Input), out: int(a.Usage.Output),
			cacheRead: int(a.Usage.CacheRead), cacheWrite: int(a.Usage.CacheWrite)}, blocks...)
		return modeltest.Reply{Status: r.status, Header: header(r.header), Body: r.body}
	},
	Stream: streamAnswer,
	Fail: func(f modeltest.Failure) modeltest.Reply {
		var r reply
		switch f {
		case modeltest.RateLimited:
			r = apiError(http.StatusTooManyRequests, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")
		case modeltest.ServerError:
			r = apiError(http.StatusInternalServerError, "api_error", "Internal server error")
		case modeltest.Unauthorized:
			r = apiError(http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
		case modeltest.ContextOverflow:
			r = apiError(http.StatusBadRequest, "invalid_request_error", "prompt is too long: 212345 tokens > 200000 maximum")
		default:
			panic("unknown failure " + f)
		}
		return modeltest.Reply{Status: r.status, Header: header(r.header), Body: r.body}
	},
	Read: func(body []byte) (modeltest.Sent, error) {
		var req wireRequest
		if err := json.Unmarshal(body, &req); err != nil {
			return modeltest.Sent{}, err
		}
		var sent modeltest.Sent
		for _, tool := range req.Tools {
			sent.Tools = append(sent.Tools, tool.Name)
		}
		for _, m := range req.Messages {
			wire := modeltest.WireMessage{Role: m.Role}
			for _, b := range m.Content {
				switch b.Type {
				case "text":
					wire.Text += b.Text
				case "tool_use":
					sent.Calls = append(sent.Calls, model.ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
					wire.Calls = append(wire.Calls, b.ID)
				case "tool_result":
					wire.Results = append(wire.Results, b.ToolUseID)
					var text []string
					for _, c := range b.Content {
						text = append(text, c.Text)
					}
					sent.Results = append(sent.Results, modeltest.Result{
						CallID: b.ToolUseID, Content: strings.Join(text, ""), IsError: b.IsError != nil && *b.IsError,
					})
				}
			}
			sent.Wire = append(sent.Wire, wire)
		}
		return sent, nil
	},
	Refuse: func(u modeltest.Unpaired) modeltest.Reply {
		ids := strings.Join(u.IDs, ", ")
		message := fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. "+
			"Each `tool_use` block must have a corresponding `tool_result` block in the next message.", u.Message, ids)
		if u.Orphan {
			message = fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. "+
				"Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", u.Message, u.Result, ids)
		}
		r := apiError(http.StatusBadRequest, "invalid_request_error", message)
		return modeltest.Reply{Status: r.status, Header: header(r.header), Body: r.body}
	},
}

// inputJSON is a tool_use block's input for arguments: the arguments when
// they are JSON, else the text as a JSON string (the API itself always
// sends an object; the suite's bad arguments must still make a valid body).
func inputJSON(arguments string) string {
	if json.Valid([]byte(arguments)) {
		return arguments
	}
	s, _ := json.Marshal(arguments)
	return string(s)
}

func header(h map[string]string) http.Header {
	out := http.Header{}
	for k, v := range h {
		out.Set(k, v)
	}
	return out
}

// TestFakeRefusesBrokenPairing pins the conformance fake to the real API:
// a hand-written request whose tool pairing is broken gets the Messages
// API's own 400, and a sound one is let through.
func TestFakeRefusesBrokenPairing(t *testing.T) {
	const (
		user    = `{"role":"user","content":[{"type":"text","text":"Weather?"}]}`
		calls   = `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_x","name":"get_weather","input":{}}]}`
		answerX = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":[{"type":"text","text":"18°C"}]}]}`
		done    = `{"role":"assistant","content":[{"type":"text","text":"18°C."}]}`
	)
	missing := `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1: ` + "`tool_use`" +
		` ids were found without ` + "`tool_result`" + ` blocks immediately after: toolu_x. Each ` + "`tool_use`" +
		` block must have a corresponding ` + "`tool_result`" + ` block in the next message."},"request_id":"req_err"}`
	orphan := func(at string) string {
		return `{"type":"error","error":{"type":"invalid_request_error","message":"messages.` + at + `: unexpected ` + "`tool_use_id`" +
			` found in ` + "`tool_result`" + ` blocks: toolu_x. Each ` + "`tool_result`" + ` block must have a corresponding ` + "`tool_use`" +
			` block in the previous message."},"request_id":"req_err"}`
	}
	tests := []struct {
		name     string
		messages []string
		want     refusal
	}{
		{"a sound pairing", []string{user, calls, answerX, done, user}, refusal{}},
		{"a call with no result", []string{user, calls, user}, refusal{true, http.StatusBadRequest, missing}},
		{"a call the conversation ends on", []string{user, calls}, refusal{true, http.StatusBadRequest, missing}},
		{"a result that answers no call", []string{answerX}, refusal{true, http.StatusBadRequest, orphan("0.content.0")}},
		{"a result a turn late", []string{user, calls, answerX, done, answerX}, refusal{true, http.StatusBadRequest, orphan("4.content.0")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"model":"claude-test","max_tokens":1024,"messages":[` + strings.Join(tc.messages, ",") + `]}`
			_, rep, refused, err := messagesAPI.Check([]byte(body))
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if diff := cmp.Diff(tc.want, refusal{refused, rep.Status, rep.Body}); diff != "" {
				t.Errorf("the fake's answer (-want +got):\n%s", diff)
			}
		})
	}
}

// refusal is how the conformance fake answered a request: Refused, with
// the HTTP status and body of its refusal.
type refusal struct {
	Refused bool
	Status  int
	Body    string
}

// streamAnswer writes a as the Messages API streams it ("stream": true):
// server-sent events message_start (with the input-side usage), a ping,
// each content block's start, deltas (text_delta pieces; input_json_delta
// pieces of a tool_use input) and stop, message_delta with the stop reason
// and the output tokens, then message_stop.
func streamAnswer(a modeltest.Answer) modeltest.Reply {
	event := func(name string, data map[string]any) string {
		data["type"] = name
		body, _ := json.Marshal(data)
		return "event: " + name + "\ndata: " + string(body) + "\n\n"
	}
	parts := []string{event("message_start", map[string]any{"message": map[string]any{
		"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": a.Usage.Input, "output_tokens": 1,
			"cache_read_input_tokens": a.Usage.CacheRead, "cache_creation_input_tokens": a.Usage.CacheWrite},
	}}), event("ping", map[string]any{})}
	index := 0
	block := func(start map[string]any, deltas []map[string]any) {
		parts = append(parts, event("content_block_start", map[string]any{"index": index, "content_block": start}))
		for _, d := range deltas {
			parts = append(parts, event("content_block_delta", map[string]any{"index": index, "delta": d}))
		}
		parts = append(parts, event("content_block_stop", map[string]any{"index": index}))
		index++
	}
	if a.Text != "" {
		var deltas []map[string]any
		for _, p := range modeltest.Pieces(a.Text, 4) {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": p})
		}
		block(map[string]any{"type": "text", "text": ""}, deltas)
	}
	stop := "end_turn"
	for _, c := range a.ToolCalls {
		stop = "tool_use"
		var deltas []map[string]any
		for _, p := range modeltest.Pieces(inputJSON(c.Arguments), 2) {
			deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": p})
		}
		block(map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}, deltas)
	}
	parts = append(parts,
		event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": a.Usage.Output}}),
		event("message_stop", map[string]any{}))
	return modeltest.Reply{Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}, "Request-Id": {"req_ok"}}, Parts: parts}
}
