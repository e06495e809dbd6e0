package gateway

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/transcript"
)

// TestChatTranscript pages a transcript a turn at a time, newest first,
// with its message and compaction lines.
func TestChatTranscript(t *testing.T) {
	const parts = 25
	f := newFixture(t, "")
	f.seed(mainKey, session.Entry{SessionID: mainSID, AgentID: "main", UpdatedAt: 1, TranscriptSeq: parts})
	path := transcript.Path("main", mainSID, "")
	for seq := int64(1); seq <= parts; seq++ {
		n := strconv.FormatInt(seq, 10)
		lines := []any{textLine("u"+n, "user", "q"+n), textLine("a"+n, "assistant", "a"+n)}
		if seq == 20 {
			lines = []any{transcript.Line{Type: "compaction", ID: "c20", Summary: "earlier talk", TokensBefore: 900},
				transcript.Line{Type: "custom", ID: "x20"}}
		}
		f.writeTranscript(path, seq, lines...)
	}
	tests := []struct {
		name      string
		params    map[string]any
		wantSeqs  []int64
		wantNext  int64
		wantLines int // in the last part returned
	}{
		{name: "newest page by default", params: map[string]any{}, wantSeqs: seqs(16, 25), wantNext: 16, wantLines: 2},
		{name: "paging back", params: map[string]any{"before": 16, "parts": 5}, wantSeqs: seqs(11, 15), wantNext: 11, wantLines: 2},
		{name: "the first page ends the paging", params: map[string]any{"before": 4}, wantSeqs: seqs(1, 3), wantNext: 0, wantLines: 2},
		{name: "a compaction part keeps its marker only", params: map[string]any{"before": 21, "parts": 1}, wantSeqs: seqs(20, 20), wantNext: 20, wantLines: 1},
		{name: "parts are capped", params: map[string]any{"parts": 1000}, wantSeqs: seqs(1, 25), wantNext: 0, wantLines: 2},
		{name: "by sessionId", params: map[string]any{"sessionId": mainSID, "parts": 1}, wantSeqs: seqs(25, 25), wantNext: 25, wantLines: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got TranscriptResult
			f.call("chat.transcript", tc.params).decode(t, &got)
			if got.TotalParts != parts || got.SessionID != mainSID || got.NextBefore != tc.wantNext || len(got.Parts) != len(tc.wantSeqs) {
				t.Fatalf("got total %d, id %s, next %d, %d parts; want %d, %s, %d, %d", got.TotalParts, got.SessionID, got.NextBefore, len(got.Parts),
					parts, mainSID, tc.wantNext, len(tc.wantSeqs))
			}
			for i, p := range got.Parts {
				if p.Seq != tc.wantSeqs[i] {
					t.Fatalf("part %d is seq %d; want %d", i, p.Seq, tc.wantSeqs[i])
				}
			}
			if last := got.Parts[len(got.Parts)-1]; len(last.Lines) != tc.wantLines {
				t.Fatalf("last part has %d lines; want %d", len(last.Lines), tc.wantLines)
			}
		})
	}
	var c TranscriptResult
	f.call("chat.transcript", map[string]any{"before": 21, "parts": 1}).decode(t, &c)
	if l := c.Parts[0].Lines[0]; l.Type != "compaction" || l.Summary != "earlier talk" || l.TokensBefore != 900 {
		t.Fatalf("compaction line %+v", l)
	}
}

// TestChatTranscriptErrors: bad params and a missing session.
func TestChatTranscriptErrors(t *testing.T) {
	f := newFixture(t, "")
	tests := []struct {
		name   string
		params map[string]any
		status int
		code   fault.Code
		msg    string
	}{
		{name: "negative before", params: map[string]any{"before": -1}, status: http.StatusBadRequest, code: fault.Invalid, msg: "params.before: must be >= 0, got -1"},
		{name: "zero parts", params: map[string]any{"parts": 0}, status: http.StatusBadRequest, code: fault.Invalid, msg: "params.parts: must be >= 1, got 0"},
		{name: "no such session", params: map[string]any{"sessionKey": "nobody"}, status: http.StatusNotFound, code: fault.NotFound, msg: `no session "nobody"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f.call("chat.transcript", tc.params).wantError(t, tc.status, tc.code, tc.msg)
		})
	}
}

// seqs is lo..hi.
func seqs(lo, hi int64) []int64 {
	var out []int64
	for s := lo; s <= hi; s++ {
		out = append(out, s)
	}
	return out
}
