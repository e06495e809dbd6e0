package modeltest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/model"
)

// Reasoning is what one request carries for its thinking level, in
// neutral terms; the zero value is a request without reasoning fields.
type Reasoning struct {
	// Budget is the reasoning token budget (Anthropic's thinking
	// {type: enabled, budget_tokens}, Bedrock's the same in
	// additionalModelRequestFields); MaxTokens the request's output limit
	// beside it (0 when the request carries none).
	Budget    int
	MaxTokens int
	// Effort is OpenAI's reasoning_effort.
	Effort string
}

// ThinkingCase is one request of the thinking suite: Level at Model, with
// a history that continues a tool round (the last assistant message made
// a tool call, its result follows) or not, and the Reasoning its wire
// must carry.
type ThinkingCase struct {
	Name      string
	Model     string
	Level     string
	MaxTokens int
	ToolRound bool
	Want      Reasoning
}

// ThinkingVendor is a provider's side of the thinking suite.
type ThinkingVendor struct {
	// Vendor writes the answer the fake gives an accepted request.
	Vendor Vendor
	// Read decodes the reasoning fields of a request body.
	Read func(body []byte) (Reasoning, error)
	// Refuse is the provider's own check of those fields: the refusal
	// (its status and words) of a request (its URL path and body) the real
	// API refuses, such as a budget not below max_tokens or a reasoning
	// field for a model that takes none; refused false for one it accepts.
	Refuse func(path string, body []byte) (r Reply, refused bool)
}

// TestThinking sends each case through the adapter to a fake that refuses
// what the provider refuses and checks the reasoning fields on the wire:
// a thinking level must reach the provider in its own field, and only in
// a request the provider accepts.
func TestThinking(t *testing.T, v ThinkingVendor, cases []ThinkingCase, newClient func(t *testing.T, s Server, retries int) model.Client) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			var (
				mu   sync.Mutex
				sent [][]byte
			)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				sent = append(sent, body)
				mu.Unlock()
				if refusal, refused := v.Refuse(r.URL.Path, body); refused {
					write(w, refusal, nil)
					return
				}
				write(w, v.Vendor.Answer(Answer{Text: "thought it through", Usage: model.Usage{Input: 10, Output: 5, Total: 15}}), nil)
			}))
			t.Cleanup(srv.Close)
			client := newClient(t, Server{URL: srv.URL, Client: srv.Client()}, 0)

			resp, err := client.Complete(context.Background(), thinkingRequest(tc))
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Text != "thought it through" {
				t.Errorf("Text = %q, want the fake's answer", resp.Text)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(sent) != 1 {
				t.Fatalf("the fake got %d requests, want 1", len(sent))
			}
			got, err := v.Read(sent[0])
			if err != nil {
				t.Fatalf("reading the request: %v\n%s", err, sent[0])
			}
			if diff := cmp.Diff(tc.Want, got); diff != "" {
				t.Errorf("reasoning on the wire (-want +got):\n%s\n%s", diff, sent[0])
			}
		})
	}
}

// thinkingRequest is tc's request: a question, or a question, a tool call
// and its result when tc continues a tool round.
func thinkingRequest(tc ThinkingCase) model.Request {
	req := model.Request{Model: tc.Model, Thinking: tc.Level, MaxTokens: tc.MaxTokens, Tools: []model.ToolSpec{weatherTool},
		Messages: []model.Message{{Role: model.User, Content: "What is the weather in Lisbon?"}}}
	if tc.ToolRound {
		call := model.ToolCall{ID: "call_1", Name: weatherTool.Name, Arguments: `{"city":"Lisbon"}`}
		req.Messages = append(req.Messages,
			model.Message{Role: model.Assistant, ToolCalls: []model.ToolCall{call}},
			model.Message{Role: model.ToolResult, ToolCallID: call.ID, ToolName: call.Name, Content: "sunny, 24°C"})
	}
	return req
}
