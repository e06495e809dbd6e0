// Package upstream reads and writes the upstream system's session stores
// and JSONL transcripts, for `zero import` and `zero export`: the
// sessions.json store (JSON5 tolerated, legacy fields migrated as the
// upstream loader does), its transcripts, and the plan that moves them into
// ZERO's session table and transcript bucket through the ports the runner
// uses. The SQLite store of newer upstream releases is read by the adapter
// shared/sqlitedb, which hands its rows to DecodeEntry and
// ParseTranscript here. Pure except for the directory reader (dir.go).
package upstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/zero-gateway/zero/shared/session"
)

// zeroOnly are the JSON names of session.Entry fields that are ZERO's own
// bookkeeping: never exported, and never taken from an imported entry
// (an input that has them keeps them as unknown fields).
var zeroOnly = map[string]bool{
	"agentId": true, "transcriptSeq": true, "lastEntryId": true,
	"archiveAt": true, "version": true, "upstreamExtra": true,
}

// dropOnExport are upstream fields an export leaves out because the export
// itself replaces them: sessionFile pointed at the old host's transcript;
// the exported transcript is at the path derived from the sessionId.
var dropOnExport = map[string]bool{"sessionFile": true}

// entryFields are the JSON names session.Entry decodes.
var entryFields = jsonNames(reflect.TypeFor[session.Entry]())

func jsonNames(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = true
		}
	}
	return out
}

// legacyRenames are the upstream loader's field migrations: an old name is
// moved to its new one unless the new one is already set.
var legacyRenames = [][2]string{{"provider", "channel"}, {"lastProvider", "lastChannel"}}

// DecodeEntry parses one upstream store entry: legacy fields are migrated
// (provider → channel, lastProvider → lastChannel), the fields ZERO knows
// are decoded into the entry and every other field (including a
// ZERO-only name such as version) is kept verbatim in Entry.Extra. An
// entry that is not a JSON object, has a field of the wrong type, or has
// no sessionId is an error.
func DecodeEntry(raw []byte) (session.Entry, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return session.Entry{}, fmt.Errorf("entry is not a JSON object")
	}
	for _, r := range legacyRenames {
		if v, ok := fields[r[0]]; ok {
			if _, set := fields[r[1]]; !set {
				fields[r[1]] = v
			}
			delete(fields, r[0])
		}
	}
	known := map[string]json.RawMessage{}
	extra := map[string]json.RawMessage{}
	for name, v := range fields {
		if entryFields[name] && !zeroOnly[name] {
			known[name] = v
		} else {
			extra[name] = v
		}
	}
	b, _ := json.Marshal(known)
	var e session.Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return session.Entry{}, fmt.Errorf("entry: %w", err)
	}
	if strings.TrimSpace(e.SessionID) == "" {
		return session.Entry{}, fmt.Errorf("entry has no sessionId")
	}
	if len(extra) > 0 {
		e.Extra = extra
	}
	return e, nil
}

// EncodeEntry returns e as an upstream store entry: the upstream fields
// and Extra's, without ZERO's bookkeeping or sessionFile. Keys are sorted.
func EncodeEntry(e session.Entry) (json.RawMessage, error) {
	b, err := marshal(e, "")
	if err != nil {
		return nil, fmt.Errorf("encode entry %s: %w", e.SessionID, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, fmt.Errorf("encode entry %s: %w", e.SessionID, err)
	}
	for name := range zeroOnly {
		delete(fields, name)
	}
	for name, v := range e.Extra {
		if _, set := fields[name]; !set && !dropOnExport[name] {
			fields[name] = v
		}
	}
	return marshal(fields, "")
}

// marshal encodes v without HTML escaping, indented by indent ("" for
// compact), without a trailing newline.
func marshal(v any, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
