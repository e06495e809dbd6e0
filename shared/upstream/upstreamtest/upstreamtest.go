// Package upstreamtest builds upstream session stores for tests, following
// what the upstream program's own stores hold (see docs/migration.md): the
// sessions of a Telegram assistant with two private chats, a group and a
// tool call, as release 2026.9.6 (SQLite; written by
// shared/sqlitedb/sqlitedbtest) and release 2026.1.30 (sessions.json and
// JSONL, written here) record them. Everything is generated; nothing is
// copied from a real store.
package upstreamtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Release is an upstream release whose store layout a test builds.
type Release string

const (
	Release20260906 Release = "2026.9.6"  // SQLite, direct keys, user content a string
	Release20260130 Release = "2026.1.30" // sessions.json + JSONL, dm keys, enveloped text parts
)

// Session is one session of a generated store.
type Session struct {
	Key    string         // as the store writes it
	Entry  map[string]any // the store's entry (sessionId, updatedAt, …)
	Events []string       // transcript lines, the header first; nil: no transcript
	// Messages are the texts of its user and assistant messages, in order:
	// what a reader of the imported session must find.
	Messages []string
	ChatType string // direct | group (session_windows.chat_type)
	Chat     int64  // the Telegram chat: the private sender's id, or the group's
}

// SessionID is s's session id.
func (s Session) SessionID() string { return s.Entry["sessionId"].(string) }

// Peer is a private-chat sender of the generated stores.
type Peer struct {
	ID   int64
	Name string
}

// people are the senders and group of release's store: 2026.9.6 has
// Alice 7001, Bob 7002 and group -1007003; 2026.1.30 the same people with
// ids 100 further (7101, 7102, -1007103), so both stores can be imported
// into one stack side by side.
func people(release Release) (alice, bob Peer, group int64) {
	off := int64(0)
	if release == Release20260130 {
		off = 100
	}
	return Peer{ID: 7001 + off, Name: "Alice"}, Peer{ID: 7002 + off, Name: "Bob"}, -1007003 - off
}

// sid is session n's id in release's store.
func sid(release Release, n int) string {
	prefix := "a9060000"
	if release == Release20260130 {
		prefix = "a1300000"
	}
	return fmt.Sprintf("%s-0000-4000-8000-%012d", prefix, n)
}

// LongText is the user message of 3 KiB in Alice's chat: long enough that
// release 2026.9.6 stores it zstd-compressed.
var LongText = "Here are my notes from the trip, please keep them: " + strings.Repeat("the old town, the tram up the hill, a cafe by the river; ", 56)

// Chats returns the sessions of agent main's store as release writes
// them, last active at now: Alice's private chat (a 3 KiB message, a tool
// call and its result, thinking and custom events between messages),
// Bob's private chat and a group; 2026.1.30's store adds the
// agent:main:main entry that only records the last route and has no
// transcript file.
func Chats(release Release, now time.Time) []Session {
	b := builder{release: release, now: now.Add(-10 * time.Minute)}
	alice, bob, group := people(release)
	out := []Session{
		b.private(alice, sid(release, 1),
			turn{user: "Hello! Remember that my cat is called Miso."},
			turn{assistant: "Nice to meet Miso's human. I will remember."},
			turn{user: LongText},
			turn{assistant: "Saved your trip notes.", tool: "memory_write"},
		),
		b.private(bob, sid(release, 2),
			turn{user: "What is 6 times 7?"},
			turn{assistant: "42."},
		),
		b.group(group, sid(release, 3),
			turn{user: "Carol: bot, say hi to the family"},
			turn{assistant: "Hi, family!"},
		),
	}
	if release == Release20260130 {
		to := fmt.Sprintf("telegram:%d", alice.ID)
		out = append(out, Session{Key: "agent:main:main", ChatType: "direct", Entry: map[string]any{
			"sessionId": sid(release, 4), "updatedAt": b.now.UnixMilli(),
			"lastChannel": "telegram", "lastTo": to, "deliveryContext": map[string]any{"channel": "telegram", "to": to},
			"sessionFile": "/home/old/.openclaw/agents/main/sessions/" + sid(release, 4) + ".jsonl",
		}})
	}
	return out
}

// WriteJSONL writes sessions as release 2026.1.30 keeps agentID's store
// under root: agents/<agentID>/sessions/sessions.json (sessionFile an
// absolute path on the old machine) and one <sessionId>.jsonl per session
// that has events.
func WriteJSONL(t testing.TB, root, agentID string, sessions []Session) {
	t.Helper()
	dir := filepath.Join(root, "agents", agentID, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	store := map[string]any{}
	for _, s := range sessions {
		store[s.Key] = s.Entry
		if s.Events == nil {
			continue
		}
		file := s.SessionID() + ".jsonl"
		s.Entry["sessionFile"] = "/home/old/.openclaw/agents/" + agentID + "/sessions/" + file
		if err := os.WriteFile(filepath.Join(dir, file), []byte(strings.Join(s.Events, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.MarshalIndent(store, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sessions.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}
