package anthropic

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

// TestImages: a user message's images go as base64 image blocks
// {type: image, source: {type: base64, media_type, data}} before its text.
func TestImages(t *testing.T) {
	type source struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	}
	type block struct {
		Type   string  `json:"type"`
		Text   string  `json:"text,omitempty"`
		Source *source `json:"source,omitempty"`
	}
	tests := []struct {
		name string
		msg  model.Message
		want []block
	}{
		{"image and text", model.Message{Role: model.User, Content: "What is this?", Images: []model.Image{{MediaType: "image/jpeg", Data: []byte("jpeg bytes")}}},
			[]block{{Type: "image", Source: &source{Type: "base64", MediaType: "image/jpeg", Data: "anBlZyBieXRlcw=="}}, {Type: "text", Text: "What is this?"}}},
		{"image alone", model.Message{Role: model.User, Images: []model.Image{{MediaType: "image/png", Data: []byte("p")}}},
			[]block{{Type: "image", Source: &source{Type: "base64", MediaType: "image/png", Data: "cA=="}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw []byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				raw, _ = io.ReadAll(r.Body)
				writeReply(w, answer("end_turn", usage{in: 1, out: 1}, textBlock("a cat")))
			}))
			defer srv.Close()
			c, err := New(Config{APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Complete(context.Background(), model.Request{Model: "claude-test", Messages: []model.Message{tt.msg}})
			if err != nil || resp.Text != "a cat" {
				t.Fatalf("Complete = %q, %v; want a cat", resp.Text, err)
			}
			var body struct {
				Messages []struct {
					Content []block `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(raw, &body); err != nil || len(body.Messages) != 1 {
				t.Fatalf("request %s: %v", raw, err)
			}
			if diff := cmp.Diff(tt.want, body.Messages[0].Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}
