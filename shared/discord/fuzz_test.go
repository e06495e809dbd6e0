package discord

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseInteraction: no interaction body, however malformed, crashes
// the parser.
func FuzzParseInteraction(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.json")
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"type":1}`))
	f.Add([]byte(`{"type":2,"id":"1","application_id":"2","token":"t","channel_id":"3","guild_id":"4","member":{"user":{"id":"5"}},"data":{"name":"ask","options":[{"name":"message","type":3,"value":"hi"}]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _, _ = ParseInteraction(body)
	})
}
