// Package telegram is ZERO's Telegram Bot API adapter.
//
// Inbound: ParseUpdate maps a webhook Update to an ingest.Request (the
// message and the chat it came from), and NewWebhook is the HTTP handler
// that authenticates Telegram (X-Telegram-Bot-Api-Secret-Token), parses
// the update, hands it to the ingest door (which routes, admits, marks
// /stop and queues it) and maps the door's outcome to its answer. Updates
// ZERO does not handle are acknowledged, never queued, so Telegram stops
// redelivering them.
//
// Outbound: Client sends replies with sendMessage in HTML parse mode, split
// into pieces Telegram accepts. It waits out a 429's retry_after within the
// caller's deadline, never resends a sendMessage whose outcome is unknown,
// and retries a message Telegram cannot parse once as plain text. Files:
// GetFile and Download fetch a message's photo (FetchAttachment, the
// runner's turn.AttachmentSource).
//
// Errors are classified with package fault; no error or log line carries the
// bot token or the webhook secret.
package telegram

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/session"
)

// Channel is the channel name ZERO uses for Telegram in messages and keys.
const Channel = "telegram"

// update is the part of a Telegram Update ZERO reads.
type update struct {
	UpdateID    *int64   `json:"update_id"`
	Message     *message `json:"message"`
	ChannelPost *message `json:"channel_post"`

	kind string // "message", "channel_post", "edited_message", ...
}

type message struct {
	MessageThreadID int64  `json:"message_thread_id"`
	IsTopicMessage  bool   `json:"is_topic_message"`
	From            *user  `json:"from"`
	SenderChat      *chat  `json:"sender_chat"`
	Date            int64  `json:"date"`
	Chat            chat   `json:"chat"`
	Text            string `json:"text"`
	Caption         string `json:"caption"`
	// Photo is one picture in several sizes, smallest first; Document
	// may be a picture sent uncompressed.
	Photo    []photoSize   `json:"photo"`
	Document *documentFile `json:"document"`
	// A group upgraded to a supergroup: the old chat gets a service
	// message naming the new id, the new chat one naming the old.
	MigrateToChatID   int64 `json:"migrate_to_chat_id"`
	MigrateFromChatID int64 `json:"migrate_from_chat_id"`
}

type photoSize struct {
	FileID   string `json:"file_id"`
	Width    int64  `json:"width"`
	Height   int64  `json:"height"`
	FileSize int64  `json:"file_size"` // optional
}

type documentFile struct {
	FileID   string `json:"file_id"`
	MimeType string `json:"mime_type"`
	FileSize int64  `json:"file_size"`
}

type user struct {
	ID        int64  `json:"id"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Username  string `json:"username"`
}

type chat struct {
	ID       int64  `json:"id"`
	Type     string `json:"type"` // private | group | supergroup | channel
	Title    string `json:"title"`
	Username string `json:"username"`
	IsForum  bool   `json:"is_forum"`
}

// ParseUpdate converts a webhook body into the request to hand to the
// ingest door for botID: the message and the chat it came from (its route);
// the door picks the agent and the session key. It returns ok=false (and
// no error) for an update ZERO does not handle: anything but a message or
// channel post with text, a caption or a picture (a photo, or a PNG, JPEG,
// GIF or WebP document: an Attachments entry, see attachmentsOf), or a
// group's migration to a supergroup (a KindMigrate message). A body that is not an Update
// (malformed JSON, no update_id) is a fault.Invalid error.
func ParseUpdate(body []byte, botID string) (ingest.Request, bool, error) {
	u, err := decodeUpdate(body)
	if err != nil {
		return ingest.Request{}, false, err
	}
	r, skip := u.toRequest(botID)
	return r, skip == "", nil
}

// decodeUpdate parses body and names the update's kind.
func decodeUpdate(body []byte) (update, error) {
	var u update
	if err := json.Unmarshal(body, &u); err != nil {
		return update{}, fault.Wrap(fault.Invalid, err, "telegram update: malformed JSON")
	}
	if u.UpdateID == nil {
		return update{}, fault.New(fault.Invalid, "telegram update: update_id is required")
	}
	switch {
	case u.Message != nil:
		u.kind = "message"
	case u.ChannelPost != nil:
		u.kind = "channel_post"
	default:
		u.kind = otherKind(body)
	}
	return u, nil
}

// otherKind names an update ZERO does not decode: its one field besides
// update_id. Only unhandled updates pay for this second decode.
func otherKind(body []byte) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return "unknown"
	}
	delete(fields, "update_id")
	if len(fields) == 0 {
		return "empty"
	}
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// toRequest maps the update to the door's request, or returns why the
// update is skipped.
func (u update) toRequest(botID string) (ingest.Request, string) {
	msg := u.Message
	if msg == nil {
		msg = u.ChannelPost
	}
	if msg == nil {
		return ingest.Request{}, "unhandled update type"
	}
	if msg.MigrateToChatID != 0 || msg.MigrateFromChatID != 0 {
		return migration(botID, msg), ""
	}
	text := msg.Text
	if text == "" {
		text = msg.Caption
	}
	attachments := attachmentsOf(msg)
	if strings.TrimSpace(text) == "" && len(attachments) == 0 {
		return ingest.Request{}, "no text, caption or picture"
	}
	chatID := strconv.FormatInt(msg.Chat.ID, 10)
	r := ingest.Request{
		Route: session.Route{Channel: Channel, PeerID: chatID},
		Message: inbound.Message{
			ID:          Channel + ":" + botID + ":" + strconv.FormatInt(*u.UpdateID, 10),
			Channel:     Channel,
			To:          chatID,
			Subject:     msg.Chat.Title,
			Text:        text,
			ReceivedAt:  msg.Date * 1000,
			Attachments: attachments,
		},
	}
	if skip := chatOf(msg, &r); skip != "" {
		return ingest.Request{}, skip
	}
	r.Message.From, r.Message.SenderName = senderOf(msg)
	return r, ""
}

// chatOf fills in the chat type, group and forum topic of r from msg, or
// returns why the chat is not handled.
func chatOf(msg *message, r *ingest.Request) string {
	m, route := &r.Message, &r.Route
	switch msg.Chat.Type {
	case "private":
		route.ChatType = inbound.Direct // keyed by the user, whose id is also the chat's
		if msg.From != nil {
			route.PeerID = strconv.FormatInt(msg.From.ID, 10)
		}
	case "group", "supergroup":
		route.ChatType = inbound.Group
	case "channel":
		route.ChatType = inbound.Channel
	default:
		return "unknown chat type " + strconv.Quote(msg.Chat.Type)
	}
	m.ChatType = route.ChatType
	if route.ChatType != inbound.Direct {
		m.GroupID = m.To
	}
	// message_thread_id is a topic only in forums (and bots' private-chat
	// topics); in other supergroups it marks a reply thread, which
	// sendMessage cannot target. Only forum topics get their own session.
	if msg.MessageThreadID != 0 && (msg.Chat.IsForum || msg.IsTopicMessage) {
		m.ThreadID = strconv.FormatInt(msg.MessageThreadID, 10)
		if msg.Chat.IsForum {
			route.ThreadID = m.ThreadID
		}
	}
	return ""
}

// senderOf is the sender's route id and display name: the user, or for a
// channel post (which has no from) the channel.
func senderOf(msg *message) (from, name string) {
	switch {
	case msg.From != nil:
		return Channel + ":" + strconv.FormatInt(msg.From.ID, 10),
			displayName(msg.From.FirstName, msg.From.LastName, msg.From.Username)
	case msg.SenderChat != nil:
		return Channel + ":" + strconv.FormatInt(msg.SenderChat.ID, 10),
			displayName(msg.SenderChat.Title, "", msg.SenderChat.Username)
	}
	return "", ""
}

// migration is the message that moves a group's session to its new
// supergroup id. Telegram reports the upgrade twice (migrate_to_chat_id in
// the old chat, migrate_from_chat_id in the new one); both become the same
// message id, so the second is a duplicate. It is routed as the new chat,
// so it is queued under the new chat's key, ahead of anything the new chat
// says next; the door keys MigrateFrom as the old chat.
func migration(botID string, msg *message) ingest.Request {
	from, to := msg.Chat.ID, msg.MigrateToChatID
	if msg.MigrateFromChatID != 0 {
		from, to = msg.MigrateFromChatID, msg.Chat.ID
	}
	oldID, newID := strconv.FormatInt(from, 10), strconv.FormatInt(to, 10)
	return ingest.Request{
		Route:       session.Route{Channel: Channel, ChatType: inbound.Group, PeerID: newID},
		MigrateFrom: session.Route{Channel: Channel, ChatType: inbound.Group, PeerID: oldID},
		Message: inbound.Message{
			ID:         Channel + ":" + botID + ":migrate:" + oldID + ":" + newID,
			Kind:       inbound.KindMigrate,
			Channel:    Channel,
			ChatType:   inbound.Group,
			To:         newID,
			GroupID:    newID,
			Subject:    msg.Chat.Title,
			ReceivedAt: msg.Date * 1000,
		},
	}
}

// displayName is "First Last", or "@username" when there is no name.
func displayName(first, last, username string) string {
	if name := strings.TrimSpace(first + " " + last); name != "" {
		return name
	}
	if username != "" {
		return "@" + username
	}
	return ""
}

// BotID returns the bot's numeric id, the part of token before ':'.
func BotID(token string) (string, error) {
	id, secret, ok := strings.Cut(token, ":")
	if !ok || id == "" || secret == "" || strings.Trim(id, "0123456789") != "" {
		return "", fault.New(fault.Invalid, "TELEGRAM_BOT_TOKEN is malformed: want <bot id>:<secret> from @BotFather")
	}
	return id, nil
}
