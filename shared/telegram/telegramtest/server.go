// Package telegramtest is a fake Telegram Bot API for tests: it accepts
// sendMessage and sendChatAction on the bot token's path only, refuses what Telegram refuses
// (a wrong path or token, a missing chat_id or text, text over 4,096
// characters), records each message, and can fail or refuse chosen ones
// once. Every package that needs a Bot API in its tests uses this one.
package telegramtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// SendMessage is one sendMessage call as the fake received it.
type SendMessage struct {
	ChatID    json.Number `json:"chat_id"`
	Text      string      `json:"text"`
	ParseMode string      `json:"parse_mode"`
}

// Server is the fake Bot API. Safe for concurrent use.
type Server struct {
	*httptest.Server
	t     testing.TB
	token string

	mu      sync.Mutex
	sent    []SendMessage
	actions []ChatAction
	// FailOnce, when set, answers 500 once to each sendMessage whose text
	// contains it (a Telegram outage at that moment).
	FailOnce string
	// RefuseOnce, when set, answers 400 "chat not found" once to each
	// sendMessage whose text contains it (a refusal for good).
	RefuseOnce string
	failed     map[string]bool
}

// New starts a fake for the bot token and stops it when the test ends.
func New(t testing.TB, token string) *Server {
	s := &Server{t: t, token: token}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.Path == "/bot"+s.token+"/sendChatAction" {
		s.serveChatAction(w, r)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/bot"+s.token+"/sendMessage" {
		s.t.Errorf("fake Telegram: unexpected %s %s", r.Method, r.URL.Path)
		http.Error(w, `{"ok":false,"error_code":404,"description":"Not Found"}`, http.StatusNotFound)
		return
	}
	var m SendMessage
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m.ChatID == "" || m.Text == "" || len([]rune(m.Text)) > 4096 {
		s.t.Errorf("fake Telegram: bad sendMessage body (%v): %+v", err, m)
		http.Error(w, `{"ok":false,"error_code":400,"description":"Bad Request"}`, http.StatusBadRequest)
		return
	}
	if status, body, fail := s.injected(m.Text); fail {
		http.Error(w, body, status)
		return
	}
	s.mu.Lock()
	s.sent = append(s.sent, m)
	n := len(s.sent)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"ok":true,"result":{"message_id":%d,"date":1767225600,"chat":{"id":%s,"type":"private"},"text":%q}}`, n, m.ChatID, m.Text)
}

// injected is the failure FailOnce or RefuseOnce asks for text, once.
func (s *Server) injected(text string) (status int, body string, fail bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range []struct {
		match, body string
		status      int
	}{
		{s.FailOnce, `{"ok":false,"error_code":500,"description":"Internal Server Error"}`, http.StatusInternalServerError},
		{s.RefuseOnce, `{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}`, http.StatusBadRequest},
	} {
		if f.match != "" && strings.Contains(text, f.match) && !s.failed[text] {
			if s.failed == nil {
				s.failed = map[string]bool{}
			}
			s.failed[text] = true
			return f.status, f.body, true
		}
	}
	return 0, "", false
}

// SetFailOnce and SetRefuseOnce change the injected failures while the
// fake serves.
func (s *Server) SetFailOnce(match string)   { s.mu.Lock(); s.FailOnce = match; s.mu.Unlock() }
func (s *Server) SetRefuseOnce(match string) { s.mu.Lock(); s.RefuseOnce = match; s.mu.Unlock() }

// Messages are the messages sent so far, in order.
func (s *Server) Messages() []SendMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SendMessage(nil), s.sent...)
}

// Texts are the texts sent so far, in order.
func (s *Server) Texts() []string {
	var out []string
	for _, m := range s.Messages() {
		out = append(out, m.Text)
	}
	return out
}

// WaitSent waits up to a minute until n messages were sent.
func (s *Server) WaitSent(t testing.TB, n int) []SendMessage {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if got := s.Messages(); len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("fake Telegram got %d sendMessage calls; want %d", len(s.Messages()), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
