package upstream

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/zero-gateway/zero/shared/transcript/transcripttest"
	"github.com/zero-gateway/zero/shared/upstream/upstreamtest"
)

// TestReadDirRelease20260130: a store as 2026.1.30 writes it (absolute
// sessionFile paths from the old machine, an agent:main:main entry with no
// transcript file) reads whole: the entry without transcript is a session
// with no messages and a note, not a problem.
func TestReadDirRelease20260130(t *testing.T) {
	root := t.TempDir()
	sessions := upstreamtest.Chats(upstreamtest.Release20260130, time.Now())
	upstreamtest.WriteJSONL(t, root, "main", sessions)
	items, problems, err := ReadDir(root, "main")
	if err != nil || len(problems) > 0 {
		t.Fatalf("ReadDir: %v %v", err, problems)
	}
	type got struct {
		Key      string
		Messages int
		Stream   string
		Note     string
	}
	dir := filepath.Join(root, "agents", "main", "sessions")
	want := []got{
		{"agent:main:telegram:dm:7101", 6, strings.Join(sessions[0].Events, "\n") + "\n", ""},
		{"agent:main:telegram:dm:7102", 2, strings.Join(sessions[1].Events, "\n") + "\n", ""},
		{"agent:main:telegram:group:-1007103", 2, strings.Join(sessions[2].Events, "\n") + "\n", ""},
		{"agent:main:main", 0, "", "no transcript: " + filepath.Join(dir, "a1300000-0000-4000-8000-000000000004.jsonl") + " does not exist"},
	}
	var rows []got
	for _, it := range items {
		rows = append(rows, got{it.Key, it.Transcript.Messages, string(it.Transcript.Stream), it.Note})
	}
	less := func(a, b got) bool { return a.Key < b.Key }
	if diff := cmp.Diff(want, rows, cmpopts.SortSlices(less)); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

// TestImportEntryWithoutTranscript: the session imports with no messages
// and its routing, writes no transcript part, and a second import keeps it.
func TestImportEntryWithoutTranscript(t *testing.T) {
	root := t.TempDir()
	upstreamtest.WriteJSONL(t, root, "main", upstreamtest.Chats(upstreamtest.Release20260130, time.Now()))
	items, _, err := ReadDir(root, "main")
	if err != nil {
		t.Fatal(err)
	}
	var main Item
	for _, it := range items {
		if it.Key == "agent:main:main" {
			main = it
		}
	}
	sessions, bucket := newMemSessions(), transcripttest.NewMemBucket()
	im := &Importer{Sessions: sessions, Bucket: bucket}
	var results []Result
	for range 2 {
		res, err := im.Import(context.Background(), main)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
	}
	want := []Result{{Outcome: Imported}, {Outcome: Kept, Why: "already imported"}}
	if diff := cmp.Diff(want, results); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	e := sessions.entries["agent:main:main"]
	if e.TranscriptSeq != 0 || e.LastTo != "telegram:7101" || e.DeliveryContext.To != "telegram:7101" || e.LastChannel != "telegram" {
		t.Errorf("entry: seq %d, lastTo %q, delivery %+v, lastChannel %q; want no parts and the route kept", e.TranscriptSeq, e.LastTo, e.DeliveryContext, e.LastChannel)
	}
	if keys, _ := bucket.List(context.Background(), ""); len(keys) != 0 {
		t.Errorf("parts written: %v", keys)
	}
}

// TestImportCounts: every message read is written and read back; an
// extension counts only the new messages.
func TestImportCounts(t *testing.T) {
	root := t.TempDir()
	upstreamtest.WriteJSONL(t, root, "main", upstreamtest.Chats(upstreamtest.Release20260130, time.Now()))
	items, _, err := ReadDir(root, "main")
	if err != nil {
		t.Fatal(err)
	}
	var alice Item
	for _, it := range items {
		if it.Key == "agent:main:telegram:dm:7101" {
			alice = it
		}
	}
	shorter := alice
	if shorter.Transcript, err = ParseTranscript(alice.Transcript.Stream[:nthLine(alice.Transcript.Stream, 8)]); err != nil {
		t.Fatal(err)
	}
	im := &Importer{Sessions: newMemSessions(), Bucket: transcripttest.NewMemBucket()}
	var got []Result
	for _, it := range []Item{shorter, alice, alice} {
		res, err := im.Import(context.Background(), it)
		if err != nil {
			t.Fatal(err)
		}
		res.Bytes = 0
		got = append(got, res)
	}
	want := []Result{
		{Outcome: Imported, Read: 2, Written: 2, Stored: 2},
		{Outcome: Extended, Read: 6, Written: 4, Stored: 6},
		{Outcome: Kept, Why: "already imported", Read: 6, Stored: 6},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

// nthLine is the offset just past the n-th line of stream.
func nthLine(stream []byte, n int) int {
	at := 0
	for range n {
		at += strings.IndexByte(string(stream[at:]), '\n') + 1
	}
	return at
}
