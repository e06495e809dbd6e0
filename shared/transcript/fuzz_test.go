package transcript

import "testing"

// FuzzLines: no transcript stream (an imported file, a part written by an
// older version), however malformed, crashes the line reader.
func FuzzLines(f *testing.F) {
	f.Add([]byte(`{"type":"session","version":3,"id":"s"}` + "\n" + `{"type":"message","id":"ab12cd34","parentId":null,"message":{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a"}}]}}` + "\n"))
	f.Add([]byte("not json\n{\"type\":\"compaction\",\"summary\":\"s\",\"firstKeptEntryId\":\"x\"}\n"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		for _, l := range Lines(stream) {
			if l.Message != nil {
				_ = l.Message.Text()
			}
		}
	})
}
