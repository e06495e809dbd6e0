package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/session"
)

// Problem is one bad input item, reported and skipped: where it is (the
// file, its 1-based line when known, the session key when known) and why.
type Problem struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
	Key  string `json:"key,omitempty"`
	Err  string `json:"error"`
}

func (p Problem) String() string {
	at := p.Path
	if p.Line > 0 {
		at = fmt.Sprintf("%s:%d", at, p.Line)
	}
	if p.Key != "" {
		at += " (" + p.Key + ")"
	}
	return at + ": " + p.Err
}

// StoreEntry is one entry of a sessions.json store, as written there.
type StoreEntry struct {
	Key   string // as the file has it (not yet canonical)
	Line  int    // 1-based line of its key in the file; 0 when not found
	Entry session.Entry
}

// DecodeStore parses a sessions.json store (JSON5 tolerated, as upstream
// reads it) at path, keeping the file's order. A document that is not a
// JSON5 object is one Problem and no entries; an entry DecodeEntry refuses
// is a Problem (with its line) and is left out.
func DecodeStore(path string, data []byte) ([]StoreEntry, []Problem) {
	js, err := config.ToJSON(data)
	if err != nil {
		p := Problem{Path: path, Err: err.Error()}
		var se *config.SyntaxError
		if errors.As(err, &se) {
			p.Line, p.Err = se.Line, se.Msg
		}
		return nil, []Problem{p}
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, []Problem{{Path: path, Line: 1, Err: "the store is not a JSON object"}}
	}
	var out []StoreEntry
	var problems []Problem
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out, append(problems, Problem{Path: path, Err: err.Error()})
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return out, append(problems, Problem{Path: path, Key: key, Err: err.Error()})
		}
		line := lineOf(data, key)
		e, err := DecodeEntry(raw)
		if err != nil {
			problems = append(problems, Problem{Path: path, Line: line, Key: key, Err: err.Error()})
			continue
		}
		out = append(out, StoreEntry{Key: key, Line: line, Entry: e})
	}
	return out, problems
}

// lineOf is the 1-based line of the first occurrence of key as a quoted
// member name in src (best effort: JSON5 may leave it unquoted), else 0.
func lineOf(src []byte, key string) int {
	for _, q := range []string{`"` + key + `"`, `'` + key + `'`, key} {
		if i := bytes.Index(src, []byte(q)); i >= 0 {
			return bytes.Count(src[:i], []byte("\n")) + 1
		}
	}
	return 0
}

// WriteStore writes entries (session key → entry) as an upstream
// sessions.json: a JSON object with 2-space indentation, keys sorted,
// each entry as EncodeEntry makes it, and a final newline.
func WriteStore(w io.Writer, entries map[string]session.Entry) error {
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	doc := make(map[string]json.RawMessage, len(entries))
	for _, k := range keys {
		raw, err := EncodeEntry(entries[k])
		if err != nil {
			return err
		}
		doc[k] = raw
	}
	b, err := marshal(doc, "  ")
	if err != nil {
		return fmt.Errorf("encode sessions.json: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
