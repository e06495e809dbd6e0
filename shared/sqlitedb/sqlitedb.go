// Package sqlitedb reads the upstream system's per-agent SQLite session
// store (agents/<agentId>/agent/openclaw-agent.sqlite, newer releases),
// read-only, with the pure-Go driver modernc.org/sqlite so the CLI stays a
// static CGO-free binary. It hands rows to shared/upstream, which decodes
// them as it decodes the JSONL layout.
//
// Schema, as the issue describes it (no public reference names the
// columns; these are this package's assumption, with fallbacks):
//
//	session_nodes(session_key TEXT, session_id TEXT, entry_json TEXT)
//	transcript_events(session_id TEXT, seq INTEGER, event_json TEXT)
//
// one row per session key (the current session id and the entry as JSON),
// one row per transcript line in seq order (the first one the header,
// version 4). Each column is found by the first of its candidate names the
// table has (see columns), so near variants (key, entry, line, data, ...)
// read too.
package sqlitedb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
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
	nodeID    = []string{"session_id", "sessionId", "current_session_id"}
	nodeEntry = []string{"entry_json", "entry", "data", "json", "value"}
	eventSess = []string{"session_id", "sessionId"}
	eventSeq  = []string{"seq", "idx", "line", "line_no", "position", "rowid"}
	eventLine = []string{"event_json", "event", "line_json", "data", "json", "value"}
)

// Read reads agentID's sessions from the store at path, read-only. A row
// whose entry cannot be decoded, a session without transcript events and
// a transcript with a bad event are Problems (path#table and the row's
// rowid or the event's seq as the line) and are left out; a file that is
// not such a store is an error.
func Read(ctx context.Context, path, agentID string) ([]upstream.Item, []upstream.Problem, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=ro&_pragma=query_only(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	nodes, err := columns(ctx, db, "session_nodes", nodeKey, nodeID, nodeEntry)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	events, err := columns(ctx, db, "transcript_events", eventSess, eventSeq, eventLine)
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

// withSessionID adds the row's session id to an entry that lacks one.
func withSessionID(entry []byte, id string) []byte {
	var fields map[string]json.RawMessage
	if id == "" || json.Unmarshal(entry, &fields) != nil || fields == nil {
		return entry
	}
	if _, ok := fields["sessionId"]; ok {
		return entry
	}
	fields["sessionId"], _ = json.Marshal(id)
	out, _ := json.Marshal(fields)
	return out
}

// transcriptOf reads and checks the transcript events of sessionID. A
// missing or bad transcript is a Problem; a failed query an error.
func transcriptOf(ctx context.Context, db *sql.DB, path string, cols []string, sessionID, key string) (upstream.Transcript, *upstream.Problem, error) {
	rows, err := db.QueryContext(ctx, fmt.Sprintf(`SELECT %q, %q FROM transcript_events WHERE %q = ? ORDER BY %q`, cols[1], cols[2], cols[0], cols[1]), sessionID)
	if err != nil {
		return upstream.Transcript{}, nil, fmt.Errorf("%s: read transcript_events: %w", path, err)
	}
	defer rows.Close()
	var seqs []int64
	var b strings.Builder
	for rows.Next() {
		var seq int64
		var line sql.NullString
		if err := rows.Scan(&seq, &line); err != nil {
			return upstream.Transcript{}, nil, fmt.Errorf("%s: read transcript_events: %w", path, err)
		}
		seqs = append(seqs, seq)
		b.WriteString(strings.ReplaceAll(line.String, "\n", " ") + "\n")
	}
	if err := rows.Err(); err != nil {
		return upstream.Transcript{}, nil, fmt.Errorf("%s: read transcript_events: %w", path, err)
	}
	where := &upstream.Problem{Path: path + "#transcript_events", Key: key}
	if len(seqs) == 0 {
		where.Err = "session " + sessionID + " has no transcript events"
		return upstream.Transcript{}, where, nil
	}
	t, err := upstream.ParseTranscript([]byte(b.String()))
	if le, ok := err.(*upstream.LineError); ok {
		where.Line, where.Err = int(seqs[min(le.Line, len(seqs))-1]), le.Msg
		return upstream.Transcript{}, where, nil
	}
	return t, nil, err
}

// columns returns, for each candidate list, the first name table has.
func columns(ctx context.Context, db *sql.DB, table string, want ...[]string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, fmt.Errorf("read the columns of %s: %w", table, err)
	}
	defer rows.Close()
	have := map[string]bool{"rowid": true}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("read the columns of %s: %w", table, err)
		}
		have[name] = true
	}
	if len(have) == 1 {
		return nil, fmt.Errorf("no table %s: not an upstream session store", table)
	}
	out := make([]string, len(want))
	for i, names := range want {
		for _, n := range names {
			if have[n] {
				out[i] = n
				break
			}
		}
		if out[i] == "" {
			return nil, fmt.Errorf("table %s has none of the columns %s", table, strings.Join(names, ", "))
		}
	}
	return out, nil
}
