package sqlitedb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/sqlitedb/sqlitedbtest"
	"github.com/zero-gateway/zero/shared/upstream/upstreamtest"
)

// listing is every file in dir with its size and modification time.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fmt.Sprintf("%d bytes, %s", info.Size(), info.ModTime().Format(time.RFC3339Nano))
	}
	return out
}

// TestReadRelease20260906: a store as 2026.9.6 writes it (STRICT tables,
// WAL, zstd rows, direct keys) reads whole, with the gateway still running
// (the WAL holds every row) and after it stopped, and nothing is written
// beside the store either way.
func TestReadRelease20260906(t *testing.T) {
	sessions := upstreamtest.Chats(upstreamtest.Release20260906, time.Now())
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	db, compressed := sqlitedbtest.Write(t, path, sessions)
	if compressed == 0 {
		t.Fatal("the fixture has no zstd rows")
	}
	type got struct {
		Key, SessionID, ChatType string
		Messages                 int
		Stream                   string
	}
	var want []got
	for i, s := range sessions {
		key := []string{"agent:main:telegram:dm:7001", "agent:main:telegram:dm:7002", "agent:main:telegram:group:-1007003"}[i]
		want = append(want, got{key, s.SessionID(), s.ChatType, []int{6, 2, 2}[i], strings.Join(s.Events, "\n") + "\n"})
	}
	for _, stage := range []string{"gateway running (WAL)", "gateway stopped"} {
		t.Run(stage, func(t *testing.T) {
			if stage == "gateway stopped" {
				db.Close()
			} else if _, err := os.Stat(path + "-wal"); err != nil {
				t.Fatalf("the running store has no WAL file: %v", err)
			}
			before := listing(t, dir)
			items, problems, err := Read(context.Background(), path, "main")
			if err != nil || len(problems) > 0 {
				t.Fatalf("Read: %v %v", err, problems)
			}
			if diff := cmp.Diff(before, listing(t, dir)); diff != "" {
				t.Errorf("Read wrote beside the store (-before +after):\n%s", diff)
			}
			var rows []got
			for _, it := range items {
				rows = append(rows, got{it.Key, it.Entry.SessionID, it.Entry.ChatType, it.Transcript.Messages, string(it.Transcript.Stream)})
			}
			if diff := cmp.Diff(want, rows); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadBadEvents: an event that cannot be read makes its session a
// Problem naming the seq; the other sessions read.
func TestReadBadEvents(t *testing.T) {
	alice, bob := "a9060000-0000-4000-8000-000000000001", "a9060000-0000-4000-8000-000000000002"
	tests := []struct {
		name    string
		damage  string
		key     string
		wantErr string
	}{
		{name: "zstd row shorter than event_utf8_bytes", key: "agent:main:telegram:direct:7001",
			damage:  `UPDATE transcript_events SET event_utf8_bytes = event_utf8_bytes + 1 WHERE event_zstd IS NOT NULL`,
			wantErr: "event_zstd decodes to"},
		{name: "zstd frame cut short", key: "agent:main:telegram:direct:7001",
			damage:  `UPDATE transcript_events SET event_zstd = substr(event_zstd, 1, 40) WHERE event_zstd IS NOT NULL`,
			wantErr: "event_zstd does not decode"},
		{name: "zstd row without its length", key: "agent:main:telegram:direct:7001",
			damage:  `UPDATE transcript_events SET event_utf8_bytes = NULL WHERE event_zstd IS NOT NULL`,
			wantErr: "without a usable event_utf8_bytes"},
		{name: "neither column", key: "agent:main:telegram:direct:7002",
			damage:  `UPDATE transcript_events SET event_json = NULL WHERE session_id = '` + bob + `' AND seq = 3`,
			wantErr: "seq 3: event has neither event_json nor event_zstd"},
		{name: "no events", key: "agent:main:telegram:direct:7001",
			damage:  `DELETE FROM transcript_events WHERE session_id = '` + alice + `'`,
			wantErr: "has no transcript events"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			db, _ := sqlitedbtest.Write(t, path, upstreamtest.Chats(upstreamtest.Release20260906, time.Now()))
			damage(t, db, tt.damage)
			items, problems, err := Read(context.Background(), path, "main")
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != 2 || len(problems) != 1 {
				t.Fatalf("%d items, problems %v; want 2 items and 1 problem", len(items), problems)
			}
			if p := problems[0]; p.Key != tt.key || !strings.Contains(p.Err, tt.wantErr) || p.Path != path+"#transcript_events" {
				t.Errorf("problem %+v, want %s: %q", p, tt.key, tt.wantErr)
			}
		})
	}
}

func damage(t *testing.T, db *sql.DB, stmt string) {
	t.Helper()
	res, err := db.Exec(stmt)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		t.Fatalf("%s changed no row", stmt)
	}
	db.Close()
}

// FuzzDecodeEvent: no event row, however malformed its columns, crashes
// the decoder; a row it accepts is one JSON object line.
func FuzzDecodeEvent(f *testing.F) {
	f.Add([]byte(`{"type":"message"}`), []byte(nil), int64(0), true)
	f.Add([]byte(nil), []byte{0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x00, 0x00, 0x00}, int64(0), false)
	f.Fuzz(func(t *testing.T, text, frame []byte, size int64, isText bool) {
		ev := event{json: sql.NullString{String: string(text), Valid: isText}, zstd: frame, size: sql.NullInt64{Int64: size, Valid: true}}
		line, err := decodeEvent(ev)
		if err == nil && strings.Contains(string(line), "\n") {
			t.Errorf("decoded line holds a newline: %q", line)
		}
	})
}

// BenchmarkRead reads a 2026.9.6 store of 300 sessions (100 copies of the
// fixture's three chats, a zstd row in each of Alice's) after its gateway
// stopped; it reports sessions read per second.
func BenchmarkRead(b *testing.B) {
	base := upstreamtest.Chats(upstreamtest.Release20260906, time.Now())
	var many []upstreamtest.Session
	for i := range 100 {
		for _, s := range base {
			c := s
			c.Key = fmt.Sprintf("%s%d", s.Key, i)
			c.Entry = map[string]any{}
			for k, v := range s.Entry {
				c.Entry[k] = v
			}
			c.Entry["sessionId"] = fmt.Sprintf("%s-%d", s.SessionID(), i)
			many = append(many, c)
		}
	}
	path := filepath.Join(b.TempDir(), FileName)
	db, _ := sqlitedbtest.Write(b, path, many)
	db.Close()
	b.ResetTimer()
	for range b.N {
		items, problems, err := Read(context.Background(), path, "main")
		if err != nil || len(problems) > 0 || len(items) != len(many) {
			b.Fatalf("Read: %d items, %v, %v", len(items), problems, err)
		}
	}
	b.ReportMetric(float64(len(many)*b.N)/b.Elapsed().Seconds(), "sessions/s")
}

// TestReadCurrentSessionID: the row's current_session_id names the
// session (and its transcript), not a stale sessionId in entry_json.
func TestReadCurrentSessionID(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	sessions := upstreamtest.Chats(upstreamtest.Release20260906, time.Now())
	db, _ := sqlitedbtest.Write(t, path, sessions)
	damage(t, db, `UPDATE session_nodes SET entry_json = json_set(entry_json, '$.sessionId', 'stale-0000') WHERE session_key = 'agent:main:telegram:direct:7002'`)
	items, problems, err := Read(context.Background(), path, "main")
	if err != nil || len(problems) > 0 || len(items) != 3 {
		t.Fatalf("Read: %d items, %v, %v", len(items), problems, err)
	}
	bob := items[1]
	if bob.Entry.SessionID != sessions[1].SessionID() || bob.Transcript.Messages != 2 {
		t.Errorf("session %q with %d messages, want %q with 2", bob.Entry.SessionID, bob.Transcript.Messages, sessions[1].SessionID())
	}
}
