package transcript

import (
	"encoding/json"
	"testing"
)

func TestPaths(t *testing.T) {
	tests := []struct{ name, agent, session, thread, want string }{
		{"session", "main", "s1", "", "agents/main/sessions/s1.jsonl"},
		{"telegram topic", "main", "s1", "42", "agents/main/sessions/s1-topic-42.jsonl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Path(tc.agent, tc.session, tc.thread); got != tc.want {
				t.Fatalf("Path = %q; want %q", got, tc.want)
			}
		})
	}
	if got := PartKey("agents/main/sessions/s1.jsonl", 12); got != "agents/main/sessions/s1.jsonl.d/0000000012.jsonl" {
		t.Fatalf("PartKey = %q", got)
	}
}

func TestLinesReadsUpstreamShapes(t *testing.T) {
	stream := `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"plain string","timestamp":1}}
{"type":"message","id":"b2c3d4e5","parentId":"a1b2c3d4","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"one "},{"type":"text","text":"two"}],"stopReason":"stop","timestamp":2}}
{"type":"compaction","id":"c3d4e5f6","parentId":"b2c3d4e5","timestamp":"2026-01-01T00:00:03.000Z","summary":"s"}
`
	lines := Lines([]byte(stream))
	if len(lines) != 3 {
		t.Fatalf("got %d lines; want 3 (the header skipped)", len(lines))
	}
	if lines[0].Message.Text() != "plain string" || lines[1].Message.Text() != "one two" || lines[2].Type != "compaction" {
		t.Fatalf("lines = %+v", lines)
	}
	if lines[0].ParentID != nil || *lines[1].ParentID != "a1b2c3d4" {
		t.Fatal("parentId chain not read")
	}
}

func TestEntryIDIsStable(t *testing.T) {
	a, b, c := EntryID("telegram:1:2", 0), EntryID("telegram:1:2", 0), EntryID("telegram:1:2", 1)
	if len(a) != 8 || a != b || a == c {
		t.Fatalf("EntryID: %s %s %s; want 8 hex chars, stable per (source, n)", a, b, c)
	}
	out, _ := json.Marshal(Line{Type: "message", ID: a})
	if string(out) != `{"type":"message","id":"`+a+`","parentId":null,"timestamp":""}` {
		t.Fatalf("a line without parent encodes as %s; want parentId null as upstream", out)
	}
}
