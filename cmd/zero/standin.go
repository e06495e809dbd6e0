package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// telegramStandIn is a local stand-in for the Bot API that `zero dev` uses
// when no real bot is configured: it accepts sendMessage like Telegram does
// and prints each reply (sendChatAction, the typing, is accepted silently), so the whole pipeline is visible without a bot.
type telegramStandIn struct {
	URL    string
	server *http.Server
	mu     sync.Mutex
	nextID int
}

// startTelegramStandIn listens on a free loopback port and prints replies to out.
func startTelegramStandIn(out io.Writer) (*telegramStandIn, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("telegram stand-in: %w", err)
	}
	s := &telegramStandIn{URL: "http://" + l.Addr().String()}
	s.server = &http.Server{Handler: s.handler(out), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.server.Serve(l) }()
	return s, nil
}

func (s *telegramStandIn) handler(out io.Writer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sendChatAction") {
			fmt.Fprint(w, `{"ok":true,"result":true}`) // "typing" while a turn works: not printed
			return
		}
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/sendMessage") {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"ok":false,"error_code":404,"description":"Not Found: the local stand-in only speaks sendMessage and sendChatAction"}`)
			return
		}
		var msg struct {
			ChatID   json.RawMessage `json:"chat_id"`
			ThreadID int64           `json:"message_thread_id"`
			Text     string          `json:"text"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&msg); err != nil || len(msg.ChatID) == 0 || msg.Text == "" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"ok":false,"error_code":400,"description":"Bad Request: chat_id and text are required"}`)
			return
		}
		s.mu.Lock()
		s.nextID++
		id := s.nextID
		s.mu.Unlock()
		where := "chat " + string(msg.ChatID)
		if msg.ThreadID != 0 {
			where += fmt.Sprintf(" topic %d", msg.ThreadID)
		}
		fmt.Fprintf(out, "[telegram stand-in] reply to %s:\n%s\n", where, indent(msg.Text))
		fmt.Fprintf(w, `{"ok":true,"result":{"message_id":%d,"date":%d,"chat":{"id":%s},"text":%q}}`, id, time.Now().Unix(), msg.ChatID, msg.Text)
	})
}

// Close stops the stand-in.
func (s *telegramStandIn) Close() error { return s.server.Close() }

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }
