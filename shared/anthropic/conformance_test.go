package anthropic

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

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
			for _, b := range m.Content {
				switch b.Type {
				case "tool_use":
					sent.Calls = append(sent.Calls, model.ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
				case "tool_result":
					var text []string
					for _, c := range b.Content {
						text = append(text, c.Text)
					}
					sent.Results = append(sent.Results, modeltest.Result{
						CallID: b.ToolUseID, Content: strings.Join(text, ""), IsError: b.IsError != nil && *b.IsError,
					})
				}
			}
		}
		return sent, nil
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
