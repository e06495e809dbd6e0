package upstream

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/transcript"
	"github.com/zero-gateway/zero/shared/transcript/transcripttest"
)

// memSessions is an in-memory Sessions with the version rule of
// shared/dynamo's PutImported.
type memSessions struct {
	entries  map[string]session.Entry
	contexts map[string]sessionstate.ModelContext
	fail     error // returned by the next PutImported
}

func newMemSessions() *memSessions {
	return &memSessions{entries: map[string]session.Entry{}, contexts: map[string]sessionstate.ModelContext{}}
}

func (m *memSessions) Get(_ context.Context, key string) (session.Entry, error) {
	e, ok := m.entries[key]
	if !ok {
		return session.Entry{}, fault.New(fault.NotFound, "no session %s", key)
	}
	return e, nil
}

func (m *memSessions) PutImported(_ context.Context, key string, prev *session.Entry, e session.Entry, c sessionstate.ModelContext) error {
	if err := m.fail; err != nil {
		m.fail = nil
		return err
	}
	cur, ok := m.entries[key]
	if ok != (prev != nil) || (ok && cur.Version != prev.Version) {
		return fault.New(fault.Conflict, "session %s changed", key)
	}
	m.entries[key], m.contexts[key] = e, c
	return nil
}

func fixtureItems(t *testing.T) []Item {
	t.Helper()
	items, problems, err := ReadDir("testdata/jsonl", "main")
	if err != nil || len(problems) > 0 {
		t.Fatalf("read fixture: %v %v", err, problems)
	}
	return items
}

func importAll(t *testing.T, im *Importer, items []Item) []Outcome {
	t.Helper()
	var out []Outcome
	for _, it := range items {
		res, err := im.Import(context.Background(), it)
		if err != nil {
			t.Fatalf("import %s: %v", it.Key, err)
		}
		out = append(out, res.Outcome)
	}
	return out
}

func TestImportTwiceChangesNothing(t *testing.T) {
	sessions, bucket := newMemSessions(), transcripttest.NewMemBucket()
	im := &Importer{Sessions: sessions, Bucket: bucket}
	items := fixtureItems(t)
	if diff := cmp.Diff([]Outcome{Imported, Imported, Imported, Imported}, importAll(t, im, items)); diff != "" {
		t.Errorf("first import (-want +got):\n%s", diff)
	}
	entries := maps.Clone(sessions.entries)
	keys, _ := bucket.List(context.Background(), "")
	if diff := cmp.Diff([]Outcome{Kept, Kept, Kept, Kept}, importAll(t, im, items)); diff != "" {
		t.Errorf("second import (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(entries, sessions.entries); diff != "" {
		t.Errorf("entries changed (-want +got):\n%s", diff)
	}
	again, _ := bucket.List(context.Background(), "")
	if diff := cmp.Diff(keys, again); diff != "" {
		t.Errorf("parts changed (-want +got):\n%s", diff)
	}
	// The transcript reads back as the file, and the entry continues it.
	main := sessions.entries["agent:main:main"]
	stream, _ := transcript.NewLog(bucket).Read(context.Background(), session.TranscriptPath("agent:main:main", main))
	if diff := cmp.Diff(string(items[0].Transcript.Stream), string(stream)); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if main.TranscriptSeq != 1 || main.LastEntryID != "a100000b" || main.Version != 1 || main.AgentID != "main" {
		t.Errorf("entry position: seq %d last %q version %d agent %q", main.TranscriptSeq, main.LastEntryID, main.Version, main.AgentID)
	}
}

func TestImportContextFromLastCompaction(t *testing.T) {
	sessions := newMemSessions()
	im := &Importer{Sessions: sessions, Bucket: transcripttest.NewMemBucket()}
	importAll(t, im, fixtureItems(t)[:1])
	c := sessions.contexts["agent:main:main"]
	type msg struct{ Role, Content string }
	var got []msg
	for _, m := range c.Messages {
		got = append(got, msg{m.Role, m.Content})
	}
	want := []msg{
		{model.User, "Summary of the earlier conversation:\nAlice asked about Lisbon weather: sunny today, rain tomorrow."},
		{model.User, "And tomorrow?"},
		{model.Assistant, "Rain."},
		{model.User, "Thanks!"},
		{model.Assistant, "You're welcome."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("context (-want +got):\n%s", diff)
	}
	if c.SessionID != "11111111-1111-4111-8111-111111111111" {
		t.Errorf("context session %q", c.SessionID)
	}
}

func TestImportOverExisting(t *testing.T) {
	base := fixtureItems(t)[1] // the group session
	const more = `{"type":"message","id":"b2000003","parentId":"b2000002","timestamp":"t","message":{"role":"user","content":"later","timestamp":1}}` + "\n"
	extended := base
	var err error
	if extended.Transcript, err = ParseTranscript(append(append([]byte(nil), base.Transcript.Stream...), more...)); err != nil {
		t.Fatal(err)
	}
	extended.Entry.UpdatedAt++
	diverged := base
	diverged.Transcript = Transcript{Stream: []byte(`{"type":"session","version":3,"id":"x"}` + "\n")}
	diverged.Entry.UpdatedAt += 2
	otherOlder := base
	otherOlder.Entry.SessionID, otherOlder.Entry.UpdatedAt = "99999999-9999-4999-8999-999999999999", base.Entry.UpdatedAt-1
	otherNewer := otherOlder
	otherNewer.Entry.UpdatedAt = base.Entry.UpdatedAt + 10
	tests := []struct {
		name     string
		next     Item
		want     Outcome
		wantErr  string
		wantSeq  int64
		wantLast string
	}{
		{name: "same transcript, same time", next: base, want: Kept, wantSeq: 1, wantLast: "b2000002"},
		{name: "transcript extended: one new part", next: extended, want: Extended, wantSeq: 2, wantLast: "b2000003"},
		{name: "stored transcript is not a prefix: a conflict", next: diverged, wantErr: "conflict: transcript"},
		{name: "older other session: stored kept", next: otherOlder, want: Kept, wantSeq: 1, wantLast: "b2000002"},
		{name: "newer other session replaces", next: otherNewer, want: Imported, wantSeq: 1, wantLast: "b2000002"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sessions := newMemSessions()
			im := &Importer{Sessions: sessions, Bucket: transcripttest.NewMemBucket()}
			importAll(t, im, []Item{base})
			res, err := im.Import(context.Background(), tt.next)
			got := res.Outcome
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Import = %v, %v; want %v", got, err, tt.want)
			}
			e := sessions.entries[base.Key]
			if e.TranscriptSeq != tt.wantSeq || e.LastEntryID != tt.wantLast {
				t.Errorf("entry seq %d last %q, want %d %q", e.TranscriptSeq, e.LastEntryID, tt.wantSeq, tt.wantLast)
			}
		})
	}
}

func TestImportFailedWriteLeavesNothing(t *testing.T) {
	sessions, bucket := newMemSessions(), transcripttest.NewMemBucket()
	im := &Importer{Sessions: sessions, Bucket: bucket}
	sessions.fail = fault.New(fault.Conflict, "raced")
	if _, err := im.Import(context.Background(), fixtureItems(t)[0]); err == nil {
		t.Fatal("Import succeeded, want the write error")
	}
	if keys, _ := bucket.List(context.Background(), ""); len(keys) != 0 || len(sessions.entries) != 0 {
		t.Errorf("left behind: parts %v, entries %v", keys, sessions.entries)
	}
}

func TestImportDryRunWritesNothing(t *testing.T) {
	sessions, bucket := newMemSessions(), transcripttest.NewMemBucket()
	im := &Importer{Sessions: sessions, Bucket: bucket, DryRun: true}
	if diff := cmp.Diff([]Outcome{Imported, Imported, Imported, Imported}, importAll(t, im, fixtureItems(t))); diff != "" {
		t.Errorf("dry run (-want +got):\n%s", diff)
	}
	if keys, _ := bucket.List(context.Background(), ""); len(keys) != 0 || len(sessions.entries) != 0 {
		t.Errorf("dry run wrote: parts %v, entries %v", keys, sessions.entries)
	}
}

// TestImportRefusesAnotherAgentsKey: agent main's store may hold only
// keys of agent main (or of no agent); a row naming another agent is an
// error (the import reports it as skipped) and nothing is written.
func TestImportRefusesAnotherAgentsKey(t *testing.T) {
	base := fixtureItems(t)[0]
	tests := []struct {
		name    string
		rawKey  string
		wantKey string
		wantErr string // "" for success
	}{
		{name: "its own agent", rawKey: "agent:main:telegram:dm:1", wantKey: "agent:main:telegram:dm:1"},
		{name: "the legacy main key", rawKey: "main", wantKey: "agent:main:main"},
		{name: "a key of no agent", rawKey: "cron:daily", wantKey: "cron:daily"},
		{name: "another agent", rawKey: "agent:work:main", wantErr: `names agent "work", but it is in agent "main"'s store`},
		{name: "another agent in capitals", rawKey: "AGENT:Work:telegram:dm:1", wantErr: `names agent "work"`},
	}
	for _, tt := range tests {
		for _, dry := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/dry run %v", tt.name, dry), func(t *testing.T) {
				sessions, bucket := newMemSessions(), transcripttest.NewMemBucket()
				im := &Importer{Sessions: sessions, Bucket: bucket, DryRun: dry}
				it := NewItem("main", tt.rawKey, base.Entry, base.Transcript, base.From)
				_, err := im.Import(context.Background(), it)
				if tt.wantErr == "" {
					if err != nil || it.Key != tt.wantKey {
						t.Fatalf("Import of %s = %v; want it imported under %s", it.Key, err, tt.wantKey)
					}
					return
				}
				if !fault.Is(err, fault.Invalid) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Import of %s = %v; want fault.Invalid containing %q", it.Key, err, tt.wantErr)
				}
				if keys, _ := bucket.List(context.Background(), ""); len(keys) != 0 || len(sessions.entries) != 0 {
					t.Errorf("a refused row wrote: parts %v, entries %v", keys, sessions.entries)
				}
			})
		}
	}
}
