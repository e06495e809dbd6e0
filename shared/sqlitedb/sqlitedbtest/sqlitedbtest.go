// Package sqlitedbtest writes upstream SQLite session stores for tests,
// as release 2026.9.6 lays them out (docs/migration.md): STRICT tables, a
// WAL journal, user_version 23, session_nodes rows keyed by session key
// with the current session id, transcript_events with seq 0 the header
// and every event of at least 1 KiB that compresses well stored as a zstd
// frame (event_json NULL, the decoded length in event_utf8_bytes), and one
// session_windows row per session.
package sqlitedbtest

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/zero-gateway/zero/shared/upstream/upstreamtest"
)

// Schema is the part of 2026.9.6's schema the import reads, with the
// columns around it.
const Schema = `
PRAGMA journal_mode=WAL;
PRAGMA user_version=23;
CREATE TABLE schema_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
INSERT INTO schema_meta VALUES ('release', '2026.9.6');
CREATE TABLE session_nodes (
  session_key TEXT PRIMARY KEY, current_session_id TEXT NOT NULL, entry_json TEXT NOT NULL,
  legacy_acp_migration_json TEXT, entry_valid INTEGER NOT NULL DEFAULT 1, updated_at INTEGER NOT NULL,
  status TEXT, created_at INTEGER NOT NULL, parent_session_key TEXT, spawned_by TEXT, label TEXT,
  display_name TEXT, archived_at INTEGER, last_activity_at INTEGER) STRICT;
CREATE TABLE transcript_events (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL,
  event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq)) STRICT;
CREATE TABLE session_windows (session_id TEXT PRIMARY KEY, chat_type TEXT, channel TEXT, model TEXT) STRICT;`

// Write creates the store at path (its folder too) holding sessions and
// returns it open, its WAL not checkpointed: an upstream gateway still
// running. Closing it (the test's cleanup does) checkpoints the WAL and
// removes it, as a stopped gateway leaves the store. Compressed reports
// how many events went in as zstd frames.
func Write(t testing.TB, path string, sessions []upstreamtest.Session) (db *sql.DB, compressed int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // one connection keeps the WAL open until Close
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(Schema); err != nil {
		t.Fatalf("create the store: %v", err)
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	now := time.Now().UnixMilli()
	for _, s := range sessions {
		entry, _ := json.Marshal(s.Entry)
		if _, err := db.Exec(`INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, created_at, display_name) VALUES (?, ?, ?, ?, ?, ?)`,
			s.Key, s.SessionID(), string(entry), s.Entry["updatedAt"], now, s.Entry["displayName"]); err != nil {
			t.Fatalf("insert %s: %v", s.Key, err)
		}
		if _, err := db.Exec(`INSERT INTO session_windows VALUES (?, ?, 'telegram', 'anthropic/claude-sonnet-4-5')`, s.SessionID(), s.ChatType); err != nil {
			t.Fatal(err)
		}
		for seq, ev := range s.Events {
			var text any = ev
			var frame []byte
			if z := enc.EncodeAll([]byte(ev), nil); seq > 0 && len(ev) >= 1024 && len(ev)-len(z) >= max(64, len(ev)/10) {
				text, frame = nil, z
				compressed++
			}
			if _, err := db.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes) VALUES (?, ?, ?, ?, ?, ?)`,
				s.SessionID(), seq, text, now, frame, len(ev)); err != nil {
				t.Fatalf("insert event %d of %s: %v", seq, s.Key, err)
			}
		}
	}
	return db, compressed
}
