package anthropic

import (
	"context"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/model/modeltest"
)

// FuzzStream feeds arbitrary server-sent bodies to Stream: it never
// panics, and an answer it accepts has the text its deltas made.
func FuzzStream(f *testing.F) {
	ok := streamAnswer(modeltest.Answer{Text: "It is sunny.", ToolCalls: []model.ToolCall{{ID: "c1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}})
	f.Add(strings.Join(ok.Parts, ""))
	f.Add("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"content\":[]}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n")
	f.Add("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\"}}\n\n")
	f.Add("event: error\ndata: {\"error\":{\"message\":\"boom\"}}\n\n")
	// In memory, not through an httptest server: see modeltest.FixedAnswer.
	answer := &modeltest.FixedAnswer{ContentType: "text/event-stream"}
	c, err := New(Config{APIKey: testKey, BaseURL: "http://model.test", HTTPClient: answer.Client()})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, stream string) {
		answer.Body = []byte(stream)
		var text strings.Builder
		resp, err := c.Stream(context.Background(), model.Request{Model: "m", Messages: []model.Message{{Role: model.User, Content: "hi"}}},
			func(d string) { text.WriteString(d) })
		if err == nil && resp.Text != text.String() && resp.Text != "" && text.Len() > 0 {
			t.Errorf("deltas made %q, the answer is %q", text.String(), resp.Text)
		}
	})
}
