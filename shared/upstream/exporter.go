package upstream

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/transcript"
)

// Listing is the session table as an export reads it. Implementation:
// shared/dynamo.Store.
type Listing interface {
	// Entries calls fn with every entry of agentID updated at or after
	// since (epoch ms; 0: all).
	Entries(ctx context.Context, agentID string, since int64, fn func(key string, e session.Entry) error) error
}

// Exporter writes ZERO's sessions back in the upstream JSONL layout.
type Exporter struct {
	Sessions Listing
	Log      *transcript.Log
	// Progress, when set, is called after each session is written.
	Progress func(sessions, bytes int)
}

// Export writes agentID's sessions updated at or after since under dir:
// agents/<agentId>/sessions/sessions.json (2-space JSON, mode 0600) and
// one <sessionId>.jsonl (forum topics: <sessionId>-topic-<thread>.jsonl)
// per session with a transcript, the parts concatenated as ZERO stores
// them (upstream lines plus ZERO's sourceId, which upstream ignores).
// Files are written whole (a temporary file renamed into place). Every
// path stays inside dir: a session whose path would leave it (an agent
// id, session id or topic with "..", a separator or a NUL; the table's
// values are not trusted) stops the export with an error naming the
// key, before anything of it is written. It returns the number of
// sessions and the transcript bytes written.
func (ex *Exporter) Export(ctx context.Context, dir, agentID string, since int64) (int, int, error) {
	storeFile, err := within(dir, "agents/"+agentID+"/sessions/sessions.json")
	if err != nil {
		return 0, 0, fmt.Errorf("export agent %s: %w", agentID, err)
	}
	entries := map[string]session.Entry{}
	total := 0
	err = ex.Sessions.Entries(ctx, agentID, since, func(key string, e session.Entry) error {
		path := session.TranscriptPath(key, e)
		stream, err := ex.Log.Read(ctx, path)
		if err != nil {
			return fmt.Errorf("read transcript of %s: %w", key, err)
		}
		if len(bytes.TrimSpace(stream)) > 0 {
			file, err := within(dir, path)
			if err != nil {
				return fmt.Errorf("session %s: %w", key, err)
			}
			if err := writeFile(file, stream); err != nil {
				return err
			}
		}
		entries[key] = e
		total += len(stream)
		if ex.Progress != nil {
			ex.Progress(len(entries), total)
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("export agent %s: %w", agentID, err)
	}
	if len(entries) == 0 {
		return 0, 0, nil
	}
	var buf bytes.Buffer
	if err := WriteStore(&buf, entries); err != nil {
		return 0, 0, err
	}
	if err := writeFile(storeFile, buf.Bytes()); err != nil {
		return 0, 0, err
	}
	return len(entries), total, nil
}

// within is the file at rel (slash-separated) under dir, refusing a rel
// that would leave dir: an empty, "." or ".." component, a backslash, a
// NUL, or a path that is not local (absolute, a volume, a reserved name).
func within(dir, rel string) (string, error) {
	for _, c := range strings.Split(rel, "/") {
		if c == "" || c == "." || c == ".." || strings.ContainsAny(c, "\\\x00") {
			return "", fmt.Errorf("path %q would leave the export directory (component %q); not written", rel, c)
		}
	}
	local := filepath.FromSlash(rel)
	if !filepath.IsLocal(local) {
		return "", fmt.Errorf("path %q would leave the export directory; not written", rel)
	}
	return filepath.Join(dir, local), nil
}

// writeFile writes data to path (mode 0600, folders 0700) through a
// temporary file renamed into place, so a reader never sees half a file.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".export-*")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("export %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("export %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return fmt.Errorf("export %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("export %s: %w", path, err)
	}
	return nil
}
