package upstream

import (
	"context"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/transcript"
	"github.com/zero-gateway/zero/shared/transcript/transcripttest"
)

// listing is a Listing over fixed entries, all of one agent.
type listing map[string]session.Entry

func (l listing) Entries(_ context.Context, _ string, _ int64, fn func(string, session.Entry) error) error {
	for k, e := range l {
		if err := fn(k, e); err != nil {
			return err
		}
	}
	return nil
}

// TestExportStaysInsideDir: the paths an export writes come from the
// table (agent id, session id, a key's topic) and the command line (the
// agent); one that would leave the export directory stops the export,
// naming the session, and nothing is written outside it.
func TestExportStaysInsideDir(t *testing.T) {
	const sid = "11111111-1111-4111-8111-111111111111"
	tests := []struct {
		name      string
		agent     string
		key       string
		entry     session.Entry
		wantErr   string // "" for success
		wantFiles []string
	}{
		{name: "a topic session is written beside its store", agent: "main", key: "agent:main:telegram:group:-1:topic:42",
			entry:     session.Entry{SessionID: sid},
			wantFiles: []string{"agents/main/sessions/" + sid + "-topic-42.jsonl", "agents/main/sessions/sessions.json"}},
		{name: "a topic climbing out", agent: "main", key: "agent:main:telegram:group:-1:topic:../../../../../../escaped",
			entry: session.Entry{SessionID: sid}, wantErr: `component ".."`},
		{name: "a session id climbing out", agent: "main", key: "agent:main:main",
			entry: session.Entry{SessionID: "../../../escaped"}, wantErr: `component ".."`},
		{name: "an absolute session id", agent: "main", key: "agent:main:main",
			entry: session.Entry{SessionID: "/tmp/escaped"}, wantErr: `component ""`},
		{name: "an entry's agent climbing out", agent: "main", key: "agent:main:main",
			entry: session.Entry{SessionID: sid, AgentID: ".."}, wantErr: `component ".."`},
		{name: "a backslash in a session id", agent: "main", key: "agent:main:main",
			entry: session.Entry{SessionID: `..\..\escaped`}, wantErr: "would leave the export directory"},
		{name: "the agent climbing out", agent: "..", key: "agent:main:main",
			entry: session.Entry{SessionID: sid, AgentID: "main"}, wantErr: `component ".."`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			bucket := transcripttest.NewMemBucket()
			log := transcript.NewLog(bucket)
			line := json.RawMessage(`{"type":"session","id":"a1"}`)
			if err := log.WritePart(ctx, session.TranscriptPath(tt.key, tt.entry), 1, []any{line}); err != nil {
				t.Fatal(err)
			}
			parent := t.TempDir()
			dir := filepath.Join(parent, "a", "b", "c", "export")
			ex := &Exporter{Sessions: listing{tt.key: tt.entry}, Log: log}
			_, _, err := ex.Export(ctx, dir, tt.agent, 0)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Export error = %v; want one containing %q", err, tt.wantErr)
			}
			var got []string
			filepath.WalkDir(parent, func(path string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(dir, path)
					if strings.HasPrefix(rel, "..") {
						t.Errorf("Export wrote %s, outside %s", path, dir)
					}
					got = append(got, filepath.ToSlash(rel))
				}
				return nil
			})
			if strings.Join(got, "\n") != strings.Join(tt.wantFiles, "\n") {
				t.Errorf("files written = %q; want %q", got, tt.wantFiles)
			}
		})
	}
}
