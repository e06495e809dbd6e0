package bedrock

import (
	"context"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/model/modeltest"
)

// FuzzStream feeds arbitrary event-stream bodies to Stream: it never
// panics, and an answer it accepts has the text its deltas made.
func FuzzStream(f *testing.F) {
	ok := streamAnswer(modeltest.Answer{Text: "It is sunny.", ToolCalls: []model.ToolCall{{ID: "c1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}})
	f.Add([]byte(strings.Join(ok.Parts, "")))
	f.Add([]byte(strings.Join(ok.Parts[:3], "")))
	f.Add([]byte{0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	// In memory, not through an httptest server: see modeltest.FixedAnswer.
	answer := &modeltest.FixedAnswer{ContentType: "application/vnd.amazon.eventstream"}
	c := New(newRuntime("http://model.test", answer.Client()))
	f.Fuzz(func(t *testing.T, stream []byte) {
		answer.Body = stream
		var text strings.Builder
		resp, err := c.Stream(context.Background(), model.Request{Model: "m", Messages: []model.Message{{Role: model.User, Content: "hi"}}},
			func(d string) { text.WriteString(d) })
		if err == nil && resp.Text != text.String() {
			t.Errorf("deltas made %q, the answer is %q", text.String(), resp.Text)
		}
	})
}
