package upstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/zero-gateway/zero/shared/session"
)

// Item is one session read from an upstream store, ready to import.
type Item struct {
	AgentID    string
	Key        string        // the canonical session key (NewItem)
	Entry      session.Entry // its AgentID is AgentID
	Transcript Transcript
	// From says where the entry came from, for reports ("file:line").
	From string
	// Note is what the reader could not take but did not refuse the
	// session for (a transcript file that is missing), for the report;
	// "" when none.
	Note string
}

// NewItem makes the Item of an upstream entry stored under rawKey in
// agentID's store: the key made canonical as the upstream loader migrates
// it (session.Canonical: legacy bare group:/channel: keys become
// agent:<agentId>:<channel>:group:<id>, "main" the agent's main key), and
// a private chat's …:direct:<peer> (2026.9.6) ZERO's …:dm:<peer>, the key
// session.Key gives the same sender's next message under the dmScope the
// upstream program used.
func NewItem(agentID, rawKey string, e session.Entry, t Transcript, from string) Item {
	agentID = session.NormalizeAgentID(agentID)
	e.AgentID = agentID
	key := zeroKey(session.Canonical(agentID, rawKey, e.Channel, session.KeyConfig{}))
	return Item{AgentID: agentID, Key: key, Entry: e, Transcript: t, From: from}
}

// StorePath is where the JSONL layout keeps agentID's store under root.
func StorePath(root, agentID string) string {
	return filepath.Join(root, "agents", agentID, "sessions", "sessions.json")
}

// Agents lists the agent ids under root/agents (directories), sorted.
func Agents(root string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(root, "agents"))
	if err != nil {
		return nil, fmt.Errorf("list agents under %s: %w", root, err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// ReadDir reads agentID's sessions in the JSONL layout under root: its
// sessions.json and, per entry, the transcript its sessionFile names (an
// absolute path from the old host falls back to the same file name in the
// sessions folder) or else <sessionId>.jsonl (<sessionId>-topic-<thread>
// for a forum topic key) beside the store. An entry whose transcript file
// does not exist (2026.1.30 keeps an agent:main:main entry that only
// records the last route) is an Item with no transcript and a Note naming
// the missing file. A bad entry, an unreadable transcript and a
// transcript with a bad line are Problems (path and line) and are left
// out; a store that cannot be read is an error.
func ReadDir(root, agentID string) ([]Item, []Problem, error) {
	storePath := StorePath(root, agentID)
	data, err := os.ReadFile(storePath)
	if err != nil {
		return nil, nil, fmt.Errorf("read session store: %w", err)
	}
	entries, problems := DecodeStore(storePath, data)
	var items []Item
	for _, se := range entries {
		from := fmt.Sprintf("%s:%d", storePath, se.Line)
		item := NewItem(agentID, se.Key, se.Entry, Transcript{}, from)
		path := transcriptFile(filepath.Dir(storePath), item)
		raw, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			item.Note = "no transcript: " + path + " does not exist"
			items = append(items, item)
			continue
		}
		if err != nil {
			problems = append(problems, Problem{Path: storePath, Line: se.Line, Key: se.Key, Err: err.Error()})
			continue
		}
		t, err := ParseTranscript(raw)
		if err != nil {
			problems = append(problems, lineProblem(path, se.Key, err))
			continue
		}
		item.Transcript = t
		items = append(items, item)
	}
	return items, problems, nil
}

// lineProblem reports a transcript error at path, with its line.
func lineProblem(path, key string, err error) Problem {
	p := Problem{Path: path, Key: key, Err: err.Error()}
	var le *LineError
	if errors.As(err, &le) {
		p.Line, p.Err = le.Line, le.Msg
	}
	return p
}

// transcriptFile is the file holding item's transcript in dir.
func transcriptFile(dir string, item Item) string {
	var sf string
	if raw, ok := item.Entry.Extra["sessionFile"]; ok && json.Unmarshal(raw, &sf) == nil && sf != "" {
		if !filepath.IsAbs(sf) {
			return filepath.Join(dir, sf)
		}
		if _, err := os.Stat(sf); err == nil {
			return sf
		}
		return filepath.Join(dir, filepath.Base(sf))
	}
	return filepath.Join(dir, filepath.Base(session.TranscriptPath(item.Key, item.Entry)))
}
