package bedrock

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
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
	var mu sync.Mutex
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		b := body
		mu.Unlock()
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		w.Write(b)
	}))
	defer srv.Close()
	c := New(newRuntime(srv.URL, srv.Client()))
	f.Fuzz(func(t *testing.T, stream []byte) {
		mu.Lock()
		body = stream
		mu.Unlock()
		var text strings.Builder
		resp, err := c.Stream(context.Background(), model.Request{Model: "m", Messages: []model.Message{{Role: model.User, Content: "hi"}}},
			func(d string) { text.WriteString(d) })
		if err == nil && resp.Text != text.String() {
			t.Errorf("deltas made %q, the answer is %q", text.String(), resp.Text)
		}
	})
}
