package upstream

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Transcript is a checked upstream transcript.
type Transcript struct {
	// Stream is the transcript as ZERO stores it: one compact JSON object
	// per line, the header first, each line ending in "\n".
	Stream []byte
	// Lines is the number of lines, the header included.
	Lines int
	// Messages is the number of "message" lines (user, assistant and
	// tool results): what an import's summary counts.
	Messages int
	// LastID is the id of the last line that has one: the parentId of the
	// next line a turn writes.
	LastID string
}

// LineError is a transcript line that cannot be imported.
type LineError struct {
	Line int // 1-based
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// ParseTranscript checks an upstream JSONL transcript: every non-blank
// line must be a JSON object with a string "type", and the first must be
// the session header (type "session"; any version: 3 in the JSONL layout,
// 4 in the SQLite one). Lines are kept as they are, compacted; lines of
// types ZERO does not know are kept too. The first bad line is a
// *LineError: an import takes the whole transcript or none of it.
func ParseTranscript(data []byte) (Transcript, error) {
	var t Transcript
	var out bytes.Buffer
	for i, raw := range bytes.Split(data, []byte("\n")) {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		var head struct {
			Type *string `json:"type"`
			ID   string  `json:"id"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return Transcript{}, &LineError{Line: i + 1, Msg: "not a JSON object: " + err.Error()}
		}
		switch {
		case head.Type == nil:
			return Transcript{}, &LineError{Line: i + 1, Msg: `line has no "type"`}
		case t.Lines == 0 && *head.Type != "session":
			return Transcript{}, &LineError{Line: i + 1, Msg: fmt.Sprintf(`first line is a %q line, want the "session" header`, *head.Type)}
		case t.Lines > 0 && *head.Type != "session" && head.ID != "":
			t.LastID = head.ID
		}
		if *head.Type == "message" {
			t.Messages++
		}
		if err := json.Compact(&out, raw); err != nil {
			return Transcript{}, &LineError{Line: i + 1, Msg: err.Error()}
		}
		out.WriteByte('\n')
		t.Lines++
	}
	if t.Lines == 0 {
		return Transcript{}, &LineError{Line: 1, Msg: "transcript is empty"}
	}
	t.Stream = out.Bytes()
	return t, nil
}

// CountMessages is the number of "message" lines in a stored transcript
// stream (one JSON object per line); lines that do not decode are not
// counted.
func CountMessages(stream []byte) int {
	n := 0
	for _, raw := range bytes.Split(stream, []byte("\n")) {
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &head) == nil && head.Type == "message" {
			n++
		}
	}
	return n
}
