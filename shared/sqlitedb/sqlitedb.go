// Package sqlitedb reads the upstream system's per-agent SQLite session
// store (agents/<agentId>/agent/openclaw-agent.sqlite, release 2026.9.6 and
// later), read-only, with the pure-Go driver modernc.org/sqlite so the CLI
// stays a static CGO-free binary. It hands rows to shared/upstream, which
// decodes them as it decodes the JSONL layout.
//
// The tables it reads (measured on stores the upstream program wrote;
// STRICT tables, WAL journal):
//
//	session_nodes(session_key TEXT PRIMARY KEY, current_session_id TEXT NOT NULL, entry_json TEXT NOT NULL, …)
//	transcript_events(session_id, seq, event_json TEXT NULL, event_zstd BLOB NULL, event_utf8_bytes, …)
//
// one row per session key (its current session id and the entry as JSON),
// one row per transcript event in seq order (seq 0 the header, version 4).
// An event is either event_json or a zstd frame in event_zstd whose decoded
// length is event_utf8_bytes (events.go). Each column is found by the first
// of its candidate names the table has (see columns), so the older assumed
// names (session_id, …) read too; event_zstd is optional.
//
// Nothing is written beside the store: a store whose WAL file holds
// changes is copied (database and WAL) into a temporary directory and read
// there; one without is opened immutable and read-only (open.go).
package sqlitedb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/zero-gateway/zero/shared/upstream"
)

// FileName is the store's file name in agents/<agentId>/agent/.
const FileName = "openclaw-agent.sqlite"

// Path is where agentID's store lives under root.
func Path(root, agentID string) string {
	return filepath.Join(root, "agents", agentID, "agent", FileName)
}

// candidate column names, the first the table has wins.
var (
	nodeKey   = []string{"session_key", "key", "sessionKey"}
	nodeID    = []string{"current_session_id", "session_id", "sessionId"}
	nodeEntry = []string{"entry_json", "entry", "data", "json", "value"}
	eventSess = []string{"session_id", "sessionId"}
	eventSeq  = []string{"seq", "idx", "line", "line_no", "position", "rowid"}
	eventLine = []string{"event_json", "event", "line_json", "data", "json", "value"}
	eventZstd = []string{"event_zstd", ""}       // "": the table has none
	eventSize = []string{"event_utf8_bytes", ""} // "": the table has none
)

// Read reads agentID's sessions from the store at path, writing nothing
// beside it. A row whose entry cannot be decoded, a session without
// transcript events and a transcript with an event that cannot be read
// (bad JSON, a zstd frame that does not decode or whose length is not its
// event_utf8_bytes, neither column set) are Problems (path#table and the
// row's rowid or the event's seq as the line) and are left out whole; a
// file that is not such a store is an error. The row's current session
// id is the session's id, whatever its entry_json says.
func Read(ctx context.Context, path, agentID string) ([]upstream.Item, []upstream.Problem, error) {
	db, done, err := open(path)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	nodes, err := columns(ctx, db, "session_nodes", nodeKey, nodeID, nodeEntry)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	events, err := columns(ctx, db, "transcript_events", eventSess, eventSeq, eventLine, eventZstd, eventSize)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	all, err := readNodes(ctx, db, nodes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	var items []upstream.Item
	var problems []upstream.Problem
	for _, n := range all {
		where := upstream.Problem{Path: path + "#session_nodes", Line: int(n.row), Key: n.key}
		e, err := upstream.DecodeEntry(withSessionID(n.entry, n.id))
		if err != nil {
			where.Err = err.Error()
			problems = append(problems, where)
			continue
		}
		t, p, err := transcriptOf(ctx, db, path, events, e.SessionID, n.key)
		if err != nil {
			return nil, nil, err
		}
		if p != nil {
			problems = append(problems, *p)
			continue
		}
		items = append(items, upstream.NewItem(agentID, n.key, e, t, fmt.Sprintf("%s#session_nodes:%d", path, n.row)))
	}
	return items, problems, nil
}

// node is one row of session_nodes.
type node struct {
	row     int64
	key, id string
	entry   []byte
}

// readNodes reads every row of session_nodes, in rowid order; cols are
// its key, session id and entry columns.
func readNodes(ctx context.Context, db *sql.DB, cols []string) ([]node, error) {
	rows, err := db.QueryContext(ctx, fmt.Sprintf(`SELECT rowid, %q, %q, %q FROM session_nodes ORDER BY rowid`, cols[0], cols[1], cols[2]))
	if err != nil {
		return nil, fmt.Errorf("read session_nodes: %w", err)
	}
	defer rows.Close()
	var all []node
	for rows.Next() {
		var n node
		var id, entry sql.NullString
		if err := rows.Scan(&n.row, &n.key, &id, &entry); err != nil {
			return nil, fmt.Errorf("read session_nodes: %w", err)
		}
		n.id, n.entry = id.String, []byte(entry.String)
		all = append(all, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read session_nodes: %w", err)
	}
	return all, nil
}

// withSessionID sets the entry's sessionId to the row's current session
// id (the transcript read is that session's); an entry that is not an
// object, or a row without an id, is returned as it is.
func withSessionID(entry []byte, id string) []byte {
	var fields map[string]json.RawMessage
	if id == "" || json.Unmarshal(entry, &fields) != nil || fields == nil {
		return entry
	}
	fields["sessionId"], _ = json.Marshal(id)
	out, _ := json.Marshal(fields)
	return out
}

// columns returns, for each candidate list, the first name table has; a
// list ending in "" is optional and gives "" when table has none of it.
func columns(ctx context.Context, db *sql.DB, table string, want ...[]string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, fmt.Errorf("read the columns of %s: %w", table, err)
	}
	defer rows.Close()
	have := map[string]bool{"rowid": true, "": true}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("read the columns of %s: %w", table, err)
		}
		have[name] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the columns of %s: %w", table, err)
	}
	if len(have) == 2 {
		return nil, fmt.Errorf("no table %s: not an upstream session store", table)
	}
	out := make([]string, len(want))
	for i, names := range want {
		found := false
		for _, n := range names {
			if have[n] {
				out[i], found = n, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("table %s has none of the columns %s", table, strings.Join(names, ", "))
		}
	}
	return out, nil
}
