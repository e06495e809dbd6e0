package telegram

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/session"
)

const testBotID = "7000000001"

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseUpdateHandled: an update maps to its message and the chat it
// came from; the agent and the session key are the door's to pick (see
// shared/ingest), so they stay empty.
func TestParseUpdateHandled(t *testing.T) {
	direct := func(peer string) session.Route {
		return session.Route{Channel: "telegram", ChatType: inbound.Direct, PeerID: peer}
	}
	group := func(chat, thread string) session.Route {
		return session.Route{Channel: "telegram", ChatType: inbound.Group, PeerID: chat, ThreadID: thread}
	}
	tests := []struct {
		name    string
		fixture string
		want    ingest.Request
	}{
		{
			name:    "private chat is routed by its user",
			fixture: "private_text.json",
			want: ingest.Request{Route: direct("123456789"), Message: inbound.Message{
				ID: "telegram:7000000001:815000001", Channel: "telegram", ChatType: "direct", From: "telegram:123456789", To: "123456789",
				SenderName: "Ada Lovelace", Text: "Hello, ZERO <3 & friends", ReceivedAt: 1767225600000,
			}},
		},
		{
			name:    "private chat sender with only a username",
			fixture: "private_username_only.json",
			want: ingest.Request{Route: direct("555"), Message: inbound.Message{
				ID: "telegram:7000000001:815000002", Channel: "telegram", ChatType: "direct", From: "telegram:555", To: "555",
				SenderName: "@nameless", Text: "/start", ReceivedAt: 1767225601000,
			}},
		},
		{
			name:    "photo caption is the text",
			fixture: "private_photo_caption.json",
			want: ingest.Request{Route: direct("123456789"), Message: inbound.Message{
				ID: "telegram:7000000001:815000003", Channel: "telegram", ChatType: "direct", From: "telegram:123456789", To: "123456789",
				SenderName: "Ada", Text: "What is in this picture?", ReceivedAt: 1767225602000,
				Attachments: []inbound.Attachment{{Kind: "image", FileID: "AgACAgQAAxkBAAIBSmd", MimeType: "image/jpeg", Size: 45678}},
			}},
		},
		{
			name:    "photo without caption is a turn with no text",
			fixture: "private_photo_no_caption.json",
			want: ingest.Request{Route: direct("123456789"), Message: inbound.Message{
				ID: "telegram:7000000001:815000004", Channel: "telegram", ChatType: "direct", From: "telegram:123456789", To: "123456789",
				SenderName: "Ada", ReceivedAt: 1767225603000,
				Attachments: []inbound.Attachment{{Kind: "image", FileID: "AgACAgQAAxkBAAIBSmc", MimeType: "image/jpeg", Size: 1234}},
			}},
		},
		{
			name:    "photo: the largest size within MaxPhotoBytes",
			fixture: "private_photo_large.json",
			want: ingest.Request{Route: direct("123456789"), Message: inbound.Message{
				ID: "telegram:7000000001:815000011", Channel: "telegram", ChatType: "direct", From: "telegram:123456789", To: "123456789",
				SenderName: "Ada", ReceivedAt: 1767225610000,
				Attachments: []inbound.Attachment{{Kind: "image", FileID: "medium", MimeType: "image/jpeg", Size: 4000000}},
			}},
		},
		{
			name:    "image sent as a document",
			fixture: "private_document_png.json",
			want: ingest.Request{Route: direct("123456789"), Message: inbound.Message{
				ID: "telegram:7000000001:815000012", Channel: "telegram", ChatType: "direct", From: "telegram:123456789", To: "123456789",
				SenderName: "Ada", Text: "Read this chart", ReceivedAt: 1767225611000,
				Attachments: []inbound.Attachment{{Kind: "image", FileID: "BQACAgQAAxkBAAIBS2c", MimeType: "image/png", Size: 20480}},
			}},
		},
		{
			name:    "basic group keeps the negative chat id",
			fixture: "group_text.json",
			want: ingest.Request{Route: group("-4012345678", ""), Message: inbound.Message{
				ID: "telegram:7000000001:815000005", Channel: "telegram", ChatType: "group", From: "telegram:987654321", To: "-4012345678",
				GroupID: "-4012345678", Subject: "Compilers", SenderName: "Grace Hopper",
				Text: "@zero_bot what is a linker?", ReceivedAt: 1767225604000,
			}},
		},
		{
			name:    "supergroup",
			fixture: "supergroup_text.json",
			want: ingest.Request{Route: group("-1001234567890", ""), Message: inbound.Message{
				ID: "telegram:7000000001:815000006", Channel: "telegram", ChatType: "group", From: "telegram:987654321", To: "-1001234567890",
				GroupID: "-1001234567890", Subject: "ZERO users", SenderName: "Grace Hopper",
				Text: "Does ZERO run on Lambda?", ReceivedAt: 1767225605000,
			}},
		},
		{
			name:    "reply thread in a non-forum supergroup is not a topic",
			fixture: "supergroup_reply_thread.json",
			want: ingest.Request{Route: group("-1001234567890", ""), Message: inbound.Message{
				ID: "telegram:7000000001:815000007", Channel: "telegram", ChatType: "group", From: "telegram:987654321", To: "-1001234567890",
				GroupID: "-1001234567890", Subject: "ZERO users", SenderName: "Grace",
				Text: "Replying in a thread, not a forum topic", ReceivedAt: 1767225606000,
			}},
		},
		{
			name:    "forum topic is routed by its topic and replies to its thread",
			fixture: "forum_topic_text.json",
			want: ingest.Request{Route: group("-1009876543210", "42"), Message: inbound.Message{
				ID: "telegram:7000000001:815000008", Channel: "telegram", ChatType: "group", From: "telegram:987654321", To: "-1009876543210", ThreadID: "42",
				GroupID: "-1009876543210", Subject: "ZERO forum", SenderName: "Grace Hopper",
				Text: "A question in the Deploys topic", ReceivedAt: 1767225607000,
			}},
		},
		{
			name:    "forum general topic has no thread",
			fixture: "forum_general_text.json",
			want: ingest.Request{Route: group("-1009876543210", ""), Message: inbound.Message{
				ID: "telegram:7000000001:815000009", Channel: "telegram", ChatType: "group", From: "telegram:987654321", To: "-1009876543210",
				GroupID: "-1009876543210", Subject: "ZERO forum", SenderName: "Grace",
				Text: "Hi from the General topic", ReceivedAt: 1767225608000,
			}},
		},
		{
			name:    "channel post is sent by the channel",
			fixture: "channel_post_text.json",
			want: ingest.Request{Route: session.Route{Channel: "telegram", ChatType: inbound.Channel, PeerID: "-1001112223334"}, Message: inbound.Message{
				ID: "telegram:7000000001:815000010", Channel: "telegram", ChatType: "channel", From: "telegram:-1001112223334", To: "-1001112223334",
				GroupID: "-1001112223334", Subject: "ZERO news", SenderName: "ZERO news",
				Text: "Release notes", ReceivedAt: 1767225609000,
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := ParseUpdate(readFixture(t, tt.fixture), testBotID)
			if err != nil || !ok {
				t.Fatalf("ParseUpdate = ok %v, err %v; want a request", ok, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseUpdateUnhandled(t *testing.T) {
	tests := []struct {
		name     string
		fixture  string
		wantKind string
	}{
		{"edited message", "edited_message.json", "edited_message"},
		{"callback query", "callback_query.json", "callback_query"},
		{"my chat member", "my_chat_member.json", "my_chat_member"},
		{"document that is not an image, no caption", "private_document_pdf.json", "message"},
		{"new chat members", "new_chat_members.json", "message"},
		{"whitespace-only text", "whitespace_text.json", "message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := readFixture(t, tt.fixture)
			r, ok, err := ParseUpdate(body, testBotID)
			if err != nil || ok {
				t.Fatalf("ParseUpdate = ok %v, err %v; want ok=false, no error", ok, err)
			}
			if diff := cmp.Diff(ingest.Request{}, r); diff != "" {
				t.Errorf("unhandled update returned a request (-want +got):\n%s", diff)
			}
			u, err := decodeUpdate(body)
			if err != nil {
				t.Fatal(err)
			}
			if u.kind != tt.wantKind {
				t.Errorf("kind = %q, want %q", u.kind, tt.wantKind)
			}
		})
	}
}

// TestParseUpdateMigration: both halves of a group's upgrade to a
// supergroup become one message (same id) routed as the new chat, with the
// old chat as the route the door keys MigrateFrom on.
func TestParseUpdateMigration(t *testing.T) {
	want := ingest.Request{
		Route:       session.Route{Channel: "telegram", ChatType: inbound.Group, PeerID: "-1004012345678"},
		MigrateFrom: session.Route{Channel: "telegram", ChatType: inbound.Group, PeerID: "-4012345678"},
		Message: inbound.Message{
			ID: "telegram:" + testBotID + ":migrate:-4012345678:-1004012345678", Kind: inbound.KindMigrate,
			Channel: "telegram", ChatType: "group", To: "-1004012345678", GroupID: "-1004012345678",
			Subject: "Compilers", ReceivedAt: 1767225610000,
		},
	}
	from := []byte(`{"update_id": 815000014, "message": {"message_id": 1, "chat": {"id": -1004012345678, "title": "Compilers", "type": "supergroup"},
		"date": 1767225610, "migrate_from_chat_id": -4012345678}}`)
	for name, body := range map[string][]byte{"migrate_to_chat_id": readFixture(t, "migrate_to_chat_id.json"), "migrate_from_chat_id": from} {
		t.Run(name, func(t *testing.T) {
			r, ok, err := ParseUpdate(body, testBotID)
			if err != nil || !ok {
				t.Fatalf("ParseUpdate = ok %v, err %v", ok, err)
			}
			if diff := cmp.Diff(want, r); diff != "" {
				t.Fatalf("request (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseUpdateInvalid(t *testing.T) {
	tests := []struct {
		name    string
		fixture string
		body    string
	}{
		{name: "truncated JSON", fixture: "malformed.json"},
		{name: "missing update_id", fixture: "missing_update_id.json"},
		{name: "array instead of object", fixture: "array.json"},
		{name: "empty body", body: ""},
		{name: "JSON null", body: "null"},
		{name: "update_id is a string", body: `{"update_id":"1","message":{"text":"x","chat":{"id":1,"type":"private"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := []byte(tt.body)
			if tt.fixture != "" {
				body = readFixture(t, tt.fixture)
			}
			_, ok, err := ParseUpdate(body, testBotID)
			if !fault.Is(err, fault.Invalid) || ok {
				t.Fatalf("ParseUpdate = ok %v, err %v; want a fault.Invalid error", ok, err)
			}
		})
	}
}

func TestBotID(t *testing.T) {
	const secretPart = "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
	tests := []struct {
		name   string
		token  string
		wantID string
	}{
		{"valid token", "123456789:" + secretPart, "123456789"},
		{"empty", "", ""},
		{"no colon", "123456789" + secretPart, ""},
		{"no secret", "123456789:", ""},
		{"no id", ":" + secretPart, ""},
		{"id not numeric", "bot123:" + secretPart, ""},
		{"surrounding space", " 123456789:" + secretPart, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := BotID(tt.token)
			if tt.wantID != "" {
				if err != nil || id != tt.wantID {
					t.Fatalf("BotID = %q, %v; want %q", id, err, tt.wantID)
				}
				return
			}
			if !fault.Is(err, fault.Invalid) {
				t.Fatalf("BotID = %q, %v; want fault.Invalid", id, err)
			}
			if !strings.Contains(err.Error(), "TELEGRAM_BOT_TOKEN") {
				t.Errorf("error %q does not name TELEGRAM_BOT_TOKEN", err)
			}
			if strings.Contains(err.Error(), secretPart) {
				t.Errorf("error %q leaks the token", err)
			}
		})
	}
}

func TestPickPhoto(t *testing.T) {
	tests := []struct {
		name   string
		sizes  []photoSize
		want   string
		wantOK bool
	}{
		{name: "no sizes"},
		{name: "largest within the limit", sizes: []photoSize{
			{FileID: "s", FileSize: 10, Width: 9, Height: 9}, {FileID: "m", FileSize: 90, Width: 90, Height: 90}, {FileID: "l", FileSize: 900, Width: 900, Height: 900},
		}, want: "m", wantOK: true},
		{name: "every size over the limit: the largest", sizes: []photoSize{
			{FileID: "m", FileSize: 200, Width: 90, Height: 90}, {FileID: "l", FileSize: 900, Width: 900, Height: 900},
		}, want: "l", wantOK: true},
		{name: "sizes without file_size: the largest", sizes: []photoSize{
			{FileID: "l", Width: 900, Height: 900}, {FileID: "s", Width: 9, Height: 9},
		}, want: "l", wantOK: true},
		{name: "a size without a file id is skipped", sizes: []photoSize{{FileSize: 10, Width: 9, Height: 9}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := pickPhoto(tt.sizes, 100)
			if got.FileID != tt.want || ok != tt.wantOK {
				t.Errorf("pickPhoto = %q, %v; want %q, %v", got.FileID, ok, tt.want, tt.wantOK)
			}
		})
	}
}
