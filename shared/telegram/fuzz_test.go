package telegram

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseUpdate: no update body, however malformed, crashes the parser;
// an accepted one names a session key and carries its text or a file.
func FuzzParseUpdate(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.json")
	events, _ := filepath.Glob("../../events/telegram-*.json")
	for _, p := range append(paths, events...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"update_id":1,"message":{"message_id":1,"chat":{"id":1,"type":"private"},"from":{"id":1},"text":"/stop@otherbot"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, ok, err := ParseUpdate(body, "123456")
		if err != nil && ok {
			t.Fatalf("ParseUpdate returned an error and ok")
		}
		_ = req
	})
}
