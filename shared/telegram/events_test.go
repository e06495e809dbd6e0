package telegram_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/httpapi"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/telegram"
)

// The sample events in /events are documentation and `zero dev` input; these
// tests keep them valid.

func readEvent(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSampleEvents(t *testing.T) {
	tests := []struct {
		file         string
		wantKey      string
		wantChatType string
		wantTo       string
		wantThreadID string
		wantMigrate  string // the old key a migration moves from
		wantImage    string // the file id of the attached picture
	}{
		{"telegram-private-text.json", "agent:main:main", inbound.Direct, "123456789", "", "", ""},
		{"telegram-group-text.json", "agent:main:telegram:group:-1001234567890", inbound.Group, "-1001234567890", "", "", ""},
		{"telegram-forum-topic-text.json", "agent:main:telegram:group:-1009876543210:topic:42", inbound.Group, "-1009876543210", "42", "", ""},
		{"telegram-private-status.json", "agent:main:main", inbound.Direct, "123456789", "", "", ""},
		// A group upgraded to a supergroup: queued under the new chat's key.
		{"telegram-group-migrate.json", "agent:main:telegram:group:-1001234567890", inbound.Group, "-1001234567890", "", "agent:main:telegram:group:-4001234567", ""},
		// A photo without a caption: a turn with the largest size attached.
		{"telegram-private-photo.json", "agent:main:main", inbound.Direct, "123456789", "", "", "AgACAgQAAxkBAAMEZ0photo1280"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			m := queuedSample(t, tt.file)
			if m.SessionKey != tt.wantKey || m.ChatType != tt.wantChatType || m.To != tt.wantTo || m.ThreadID != tt.wantThreadID {
				t.Errorf("got key %q chat type %q to %q thread %q; want %q %q %q %q",
					m.SessionKey, m.ChatType, m.To, m.ThreadID, tt.wantKey, tt.wantChatType, tt.wantTo, tt.wantThreadID)
			}
			if m.MigrateFrom != tt.wantMigrate || (tt.wantMigrate != "") != (m.Kind == inbound.KindMigrate) {
				t.Errorf("kind %q from %q; want a migration from %q", m.Kind, m.MigrateFrom, tt.wantMigrate)
			}
			want := []inbound.Attachment(nil)
			if tt.wantImage != "" {
				want = []inbound.Attachment{{Kind: inbound.AttachmentImage, FileID: tt.wantImage, MimeType: "image/jpeg", Size: 187045}}
			}
			if diff := cmp.Diff(want, m.Attachments); diff != "" {
				t.Errorf("attachments (-want +got):\n%s", diff)
			}
			if err := m.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

// queuedSample is the message the door queues for the sample update in
// file, with everyone admitted.
func queuedSample(t *testing.T, file string) inbound.Message {
	t.Helper()
	r, ok, err := telegram.ParseUpdate(readEvent(t, file), "7000000001")
	if err != nil || !ok {
		t.Fatalf("ParseUpdate = ok %v, err %v", ok, err)
	}
	out, err := ingest.NewDoor(ingest.Deps{Settings: openSettings{}, Queue: &memQueue{}}).Accept(context.Background(), r)
	q, ok := out.(ingest.Queued)
	if err != nil || !ok {
		t.Fatalf("Accept = %#v, %v; want it queued", out, err)
	}
	return q.Message
}

type memQueue struct {
	mu   sync.Mutex
	msgs []inbound.Message
}

func (q *memQueue) Enqueue(_ context.Context, m inbound.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.msgs = append(q.msgs, m)
	return nil
}

// TestSampleAPIGatewayEvent runs the API Gateway sample through the Lambda
// adapter and the webhook, as the deployed function does.
func TestSampleAPIGatewayEvent(t *testing.T) {
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(readEvent(t, "telegram-webhook-apigw.json"), &ev); err != nil {
		t.Fatal(err)
	}
	want := queuedSample(t, "telegram-private-text.json")

	tests := []struct {
		name       string
		secret     string
		wantStatus int
		wantQueued int
	}{
		{"matching secret queues the update", "dev-secret", 200, 1},
		{"other secret is refused", "prod-secret", 401, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			queue := &memQueue{}
			handler := httpapi.Handler(telegram.NewWebhook(telegram.WebhookConfig{
				Secret: tt.secret, BotID: "7000000001", Log: slog.New(slog.DiscardHandler),
				Door: ingest.NewDoor(ingest.Deps{Settings: openSettings{}, Queue: queue}),
			}))
			resp, err := handler(context.Background(), ev)
			if err != nil {
				t.Fatalf("handler error: %v", err)
			}
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, resp.Body, tt.wantStatus)
			}
			if len(queue.msgs) != tt.wantQueued {
				t.Fatalf("queued %d, want %d", len(queue.msgs), tt.wantQueued)
			}
			if tt.wantQueued > 0 && !cmp.Equal(queue.msgs[0], want) {
				t.Errorf("queued\n %+v\nwant (the private sample)\n %+v", queue.msgs[0], want)
			}
		})
	}
}

// openSettings admits everyone on Telegram.
type openSettings struct{}

func (openSettings) Current(context.Context) (*config.Config, error) {
	return config.Parse([]byte(`{channels: {telegram: {allowFrom: ["*"]}}}`))
}
