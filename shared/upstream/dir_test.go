package upstream

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadDir(t *testing.T) {
	items, problems, err := ReadDir("testdata/jsonl", "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	type row struct{ Key, SessionID, Channel, LastChannel string }
	var got []row
	for _, it := range items {
		if it.Entry.AgentID != "main" || it.Transcript.Lines < 2 {
			t.Errorf("%s: agent %q, %d lines", it.Key, it.Entry.AgentID, it.Transcript.Lines)
		}
		got = append(got, row{it.Key, it.Entry.SessionID, it.Entry.Channel, it.Entry.LastChannel})
	}
	want := []row{
		{"agent:main:main", "11111111-1111-4111-8111-111111111111", "", "telegram"},
		{"agent:main:telegram:group:-100123", "22222222-2222-4222-8222-222222222222", "telegram", ""},
		{"agent:main:telegram:group:-100555:topic:42", "33333333-3333-4333-8333-333333333333", "telegram", ""},
		{"cron:daily-digest", "44444444-4444-4444-8444-444444444444", "", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if got := string(items[0].Entry.Extra["skillsSnapshot"]); got != `{"prompt":"skills","version":3}` {
		t.Errorf("unknown field kept as %s", got)
	}
	if got := items[0].Transcript.LastID; got != "a100000b" {
		t.Errorf("last id %q", got)
	}
}

func TestReadDirProblems(t *testing.T) {
	items, problems, err := ReadDir("testdata/broken", "main")
	if err != nil {
		t.Fatal(err)
	}
	// agent:work:main reads fine: the import refuses it (Importer.Import).
	// agent:main:dm:missing has no transcript file: a session without
	// messages, with a note naming the file.
	type row struct{ Key, Note string }
	var got []row
	for _, it := range items {
		got = append(got, row{it.Key, it.Note})
	}
	store := filepath.Join("testdata/broken/agents/main/sessions/sessions.json")
	wantItems := []row{
		{Key: "agent:main:main"},
		{Key: "agent:main:dm:missing", Note: "no transcript: " + filepath.Join(filepath.Dir(store), "66666666-6666-4666-8666-666666666666.jsonl") + " does not exist"},
		{Key: "agent:work:main"},
	}
	if diff := cmp.Diff(wantItems, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	want := []Problem{
		{Path: store, Line: 6, Key: "agent:main:dm:nosession", Err: "entry has no sessionId"},
		{Path: store, Line: 17, Key: "agent:main:dm:badtype", Err: "updatedAt"},
		{Path: filepath.Join("testdata/broken/agents/main/sessions/77777777-7777-4777-8777-777777777777.jsonl"), Line: 3, Key: "agent:main:dm:badline", Err: "not a JSON object"},
	}
	contains := cmp.Comparer(func(a, b string) bool { return strings.Contains(a, b) || strings.Contains(b, a) })
	if diff := cmp.Diff(want, problems, contains); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestAgents(t *testing.T) {
	got, err := Agents("testdata/jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"main"}, got); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
}
