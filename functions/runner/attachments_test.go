package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/discord"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/telegram"
	"github.com/zero-gateway/zero/shared/turn"
	"github.com/zero-gateway/zero/shared/webchat"
)

func TestAttachmentsOf(t *testing.T) {
	tests := []struct {
		name    string
		senders map[string]turn.Sender
		want    []string
	}{
		{name: "telegram and discord fetch; webchat does not",
			senders: map[string]turn.Sender{"telegram": &telegram.RotatingClient{}, "discord": &discord.RotatingClient{}, webchat.Channel: webchat.Sender{}},
			want:    []string{"discord", "telegram"}},
		{name: "no telegram", senders: map[string]turn.Sender{webchat.Channel: webchat.Sender{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for ch := range attachmentsOf(tt.senders) {
				got = append(got, ch)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("attachment sources (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunnerDiscordImage: a Discord /ask with an image reaches a model
// that accepts images: the runner downloads it from the CDN (the fake at
// DISCORD_CDN_BASE_URL, same path and signed query), sends it to the model
// as a data URL, and answers the interaction.
func TestRunnerDiscordImage(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n fake png")
	const cdnPath = "/ephemeral-attachments/1/2/cat.png"
	var mu sync.Mutex
	var cdnGot, replies []string
	cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		cdnGot = append(cdnGot, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		_, _ = w.Write(png)
	}))
	defer cdn.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Content string }
		_ = json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		replies = append(replies, r.Method+" "+r.URL.Path+" "+body.Content)
		mu.Unlock()
		fmt.Fprint(w, `{"id":"900","channel_id":"123","content":"ok"}`)
	}))
	defer api.Close()
	var prompt json.RawMessage
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Messages []json.RawMessage }
		_ = json.NewDecoder(r.Body).Decode(&req)
		prompt = req.Messages[len(req.Messages)-1]
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"A cat."},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":4,"total_tokens":16}}`)
	}))
	defer llm.Close()
	_, deliver, _ := newRunner(t, "openai/gpt-4o", map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": llm.URL + "/v1",
		"DISCORD_APPLICATION_ID": "999", "DISCORD_API_BASE_URL": api.URL, "DISCORD_CDN_BASE_URL": cdn.URL})
	m := message(t, "what is this?")
	m.ID, m.Channel, m.AccountID, m.ChatType, m.From, m.To = "discord:999:"+m.ID, "discord", "999", inbound.Channel, "discord:555", "123"
	m.ReplyToken, m.ReceivedAt = "tok-abc", time.Now().UnixMilli()
	m.Attachments = []inbound.Attachment{{Kind: inbound.AttachmentImage, FileID: "2", MimeType: "image/png", Size: int64(len(png)),
		URL: "https://cdn.discordapp.com" + cdnPath + "?ex=1&is=2&hm=abc&"}}
	if resp := deliver(m, 1); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("turn failed: %+v", resp)
	}
	if diff := cmp.Diff([]string{"GET " + cdnPath + "?ex=1&is=2&hm=abc&"}, cdnGot); diff != "" {
		t.Errorf("CDN requests (-want +got):\n%s", diff)
	}
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	if !strings.Contains(string(prompt), dataURL) || !strings.Contains(string(prompt), "what is this?") {
		t.Errorf("the model's prompt %s; want the text and the image as a data URL", prompt)
	}
	if diff := cmp.Diff([]string{"PATCH /webhooks/999/tok-abc/messages/@original A cat."}, replies); diff != "" {
		t.Errorf("Discord replies (-want +got):\n%s", diff)
	}
}
