package sqlitedb

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/upstream"
)

// The schema this package assumes (see the package doc).
const schema = `
CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY, session_id TEXT NOT NULL, entry_json TEXT NOT NULL);
CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT NOT NULL, PRIMARY KEY (session_id, seq));`

type row struct {
	key, id, entry string
	events         []string
}

// build writes a store with rows at path.
func build(t *testing.T, path string, rows []row) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if _, err := db.Exec(`INSERT INTO session_nodes VALUES (?, ?, ?)`, r.key, r.id, r.entry); err != nil {
			t.Fatal(err)
		}
		for i, ev := range r.events {
			if _, err := db.Exec(`INSERT INTO transcript_events VALUES (?, ?, ?)`, r.id, i+1, ev); err != nil {
				t.Fatal(err)
			}
		}
	}
}

const header4 = `{"type":"session","version":4,"id":"s1","timestamp":"2026-09-06T00:00:00.000Z","cwd":"/w"}`
const msg = `{"type":"message","id":"a1","parentId":null,"timestamp":"2026-09-06T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`

func TestRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	build(t, path, []row{
		{key: "agent:main:main", id: "s1", entry: `{"sessionId":"s1","updatedAt":5,"lastProvider":"telegram","extraThing":true}`, events: []string{header4, msg}},
		{key: "group:-100", id: "s2", entry: `{"updatedAt":6,"provider":"telegram"}`, events: []string{strings.Replace(header4, "s1", "s2", 1)}},
		{key: "agent:main:dm:bad", id: "s3", entry: `not json`},
		{key: "agent:main:dm:none", id: "s4", entry: `{"sessionId":"s4","updatedAt":1}`},
		{key: "agent:main:dm:badline", id: "s5", entry: `{"sessionId":"s5","updatedAt":1}`, events: []string{header4, msg, `{"type":`}},
	})
	before, _ := os.ReadFile(path)
	items, problems, err := Read(context.Background(), path, "main")
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("Read changed the store file")
	}
	type got struct{ Key, SessionID, Channel, LastChannel, Extra, Stream string }
	var rows []got
	for _, it := range items {
		rows = append(rows, got{it.Key, it.Entry.SessionID, it.Entry.Channel, it.Entry.LastChannel, string(it.Entry.Extra["extraThing"]), string(it.Transcript.Stream)})
	}
	want := []got{
		{"agent:main:main", "s1", "", "telegram", "true", header4 + "\n" + msg + "\n"},
		{"agent:main:telegram:group:-100", "s2", "telegram", "", "", strings.Replace(header4, "s1", "s2", 1) + "\n"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	wantProblems := []upstream.Problem{
		{Path: path + "#session_nodes", Line: 3, Key: "agent:main:dm:bad", Err: "entry is not a JSON object"},
		{Path: path + "#transcript_events", Key: "agent:main:dm:none", Err: "session s4 has no transcript events"},
		{Path: path + "#transcript_events", Line: 3, Key: "agent:main:dm:badline", Err: "not a JSON object"},
	}
	contains := cmp.Comparer(func(a, b string) bool { return strings.Contains(a, b) || strings.Contains(b, a) })
	if diff := cmp.Diff(wantProblems, problems, contains); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestReadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if _, _, err := Read(context.Background(), path, "main"); err == nil {
		t.Fatal("Read of a missing file succeeded")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("Read created %s (stat: %v)", path, err)
	}
}

func TestReadNotAStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE other (x)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, _, err := Read(context.Background(), path, "main"); err == nil || !strings.Contains(err.Error(), "no table session_nodes") {
		t.Errorf("err = %v, want no table session_nodes", err)
	}
}
