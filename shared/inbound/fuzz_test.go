package inbound

import (
	"os"
	"testing"
)

// FuzzDecode: no queue body, however malformed, crashes Decode; a
// decoded message is valid (the runner trusts what Decode accepts).
func FuzzDecode(f *testing.F) {
	if data, err := os.ReadFile("../../events/runner-sqs-batch.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"id":"telegram:1:2","sessionKey":"agent:main:main","channel":"telegram","text":"hi"}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		m, err := Decode(body)
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("Decode accepted a message Validate refuses: %v", err)
		}
	})
}
