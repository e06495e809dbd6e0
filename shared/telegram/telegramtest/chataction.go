package telegramtest

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"
)

// ChatAction is one sendChatAction call as the fake received it, with
// when it arrived.
type ChatAction struct {
	ChatID          json.Number `json:"chat_id"`
	MessageThreadID int64       `json:"message_thread_id"`
	Action          string      `json:"action"`
	At              time.Time   `json:"-"`
}

// chatActions are the actions the Bot API accepts.
var chatActions = []string{"typing", "upload_photo", "record_video", "upload_video", "record_voice",
	"upload_voice", "upload_document", "choose_sticker", "find_location", "record_video_note", "upload_video_note"}

// serveChatAction answers sendChatAction as Telegram does: true, or 400
// for a missing chat_id ("chat_id is empty") or an action it does not
// know ("wrong parameter action in request").
func (s *Server) serveChatAction(w http.ResponseWriter, r *http.Request) {
	var a ChatAction
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	err := dec.Decode(&a)
	switch {
	case err != nil || a.ChatID == "":
		s.t.Errorf("fake Telegram: sendChatAction without chat_id (%v): %+v", err, a)
		http.Error(w, `{"ok":false,"error_code":400,"description":"Bad Request: chat_id is empty"}`, http.StatusBadRequest)
		return
	case !slices.Contains(chatActions, a.Action):
		s.t.Errorf("fake Telegram: sendChatAction with action %q", a.Action)
		http.Error(w, `{"ok":false,"error_code":400,"description":"Bad Request: wrong parameter action in request"}`, http.StatusBadRequest)
		return
	}
	a.At = time.Now()
	s.mu.Lock()
	s.actions = append(s.actions, a)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"ok":true,"result":true}`))
}

// ChatActions are the chat actions sent so far, in order.
func (s *Server) ChatActions() []ChatAction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ChatAction(nil), s.actions...)
}
