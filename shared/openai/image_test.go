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
)

// TestImages: a user message with images goes as content parts, each
// image an image_url part with a base64 data URL, then the text; a user
// message without images stays a plain string.
func TestImages(t *testing.T) {
	png := []byte("\x89PNG fake")
	type part struct {
		Type     string `json:"type"`
		Text     string `json:"text,omitempty"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url,omitempty"`
	}
	tests := []struct {
		name string
		msg  model.Message
		want any // the wire content of the message
	}{
		{"image and text", model.Message{Role: model.User, Content: "What is this?", Images: []model.Image{{MediaType: "image/png", Data: png}}},
			[]part{{Type: "image_url", ImageURL: &struct {
				URL string `json:"url"`
			}{URL: "data:image/png;base64,iVBORyBmYWtl"}}, {Type: "text", Text: "What is this?"}}},
		{"no images: a string", model.Message{Role: model.User, Content: "hi"}, "hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw []byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				raw, _ = io.ReadAll(r.Body)
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(completion("a cat", "stop", 1, 1, 2).body))
			}))
			defer srv.Close()
			c, err := New(Config{APIKey: testKey, BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Complete(context.Background(), model.Request{Model: "gpt-4o", Messages: []model.Message{tt.msg}})
			if err != nil || resp.Text != "a cat" {
				t.Fatalf("Complete = %q, %v; want a cat", resp.Text, err)
			}
			var body struct {
				Messages []struct {
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(raw, &body); err != nil || len(body.Messages) != 1 {
				t.Fatalf("request %s: %v", raw, err)
			}
			wantJSON, _ := json.Marshal(tt.want)
			var want, got any
			_ = json.Unmarshal(wantJSON, &want)
			_ = json.Unmarshal(body.Messages[0].Content, &got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}
