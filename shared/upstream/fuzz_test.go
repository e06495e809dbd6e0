package upstream

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzImportRows: no row of an upstream store — a sessions.json, one
// entry, a JSONL transcript — however malformed, crashes the importer's
// decoders; problems are reported, not panics.
func FuzzImportRows(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*")
	more, _ := filepath.Glob("testdata/*/*/*")
	for _, p := range append(files, more...) {
		if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"agent:main:main":{"sessionId":"3f1c2d4e-0000-4000-8000-000000000001","updatedAt":1767225600000}}`))
	f.Add([]byte(`{"type":"session","version":3,"id":"s"}` + "\n" + `{"type":"message","id":"ab12cd34","parentId":null,"message":{"role":"user","content":"hi"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = DecodeStore("sessions.json", data)
		_, _ = DecodeEntry(data)
		_, _ = ParseTranscript(data)
	})
}
