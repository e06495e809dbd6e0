package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/model/modeltest"
)

// TestStreamAsksForUsageAndReadsAWholeAnswer: a streamed call sends
// "stream": true with stream_options.include_usage, and a compatible
// server that ignores "stream" and answers a whole completion is read as
// that completion, its text given to the sink in one piece.
func TestStreamAsksForUsageAndReadsAWholeAnswer(t *testing.T) {
	usage := model.Usage{Input: 10, Output: 5, Total: 15}
	tests := []struct {
		name  string
		reply modeltest.Reply
	}{
		{"an event stream", streamAnswer(modeltest.Answer{Text: "It is sunny in Paris.", Usage: usage})},
		{"a whole completion in place of a stream", chatCompletions.Answer(modeltest.Answer{Text: "It is sunny in Paris.", Usage: usage})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sent struct {
				Stream        bool `json:"stream"`
				StreamOptions struct {
					IncludeUsage bool `json:"include_usage"`
				} `json:"stream_options"`
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if err := json.Unmarshal(body, &sent); err != nil {
					t.Errorf("request body: %v", err)
				}
				for k, v := range tc.reply.Header {
					w.Header()[k] = v
				}
				if w.Header().Get("Content-Type") == "" {
					w.Header().Set("Content-Type", "application/json")
				}
				io.WriteString(w, tc.reply.Body)
				for _, p := range tc.reply.Parts {
					io.WriteString(w, p)
				}
			}))
			defer srv.Close()
			c, err := New(Config{APIKey: testKey, BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			var text string
			got, err := c.Stream(context.Background(), model.Request{Model: "m", Messages: []model.Message{{Role: model.User, Content: "hi"}}},
				func(d string) { text += d })
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			want := model.Response{Text: "It is sunny in Paris.", StopReason: model.StopEnd, Usage: usage}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			if text != want.Text {
				t.Errorf("sink got %q, want %q", text, want.Text)
			}
			if !sent.Stream || !sent.StreamOptions.IncludeUsage {
				t.Errorf("request stream=%v include_usage=%v, want both true", sent.Stream, sent.StreamOptions.IncludeUsage)
			}
		})
	}
}
