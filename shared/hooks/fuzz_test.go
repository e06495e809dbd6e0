package hooks

import "testing"

// FuzzPayloads: no /hooks/wake or /hooks/agent body, however malformed,
// crashes its decoder; a decoded agent payload always has a message.
func FuzzPayloads(f *testing.F) {
	f.Add([]byte(`{"text":"wake up","mode":"now"}`))
	f.Add([]byte(`{"message":"summarise the inbox","name":"Email","sessionKey":"hook:email:1","deliver":true,"channel":"telegram","to":"42","model":"openai/gpt-4o","timeoutSeconds":120}`))
	f.Add([]byte(`{"message":""}`))
	f.Add([]byte(`[1,2,3]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _ = decodeWake(body)
		if p, err := decodeAgent(body); err == nil && p.Message == "" {
			t.Fatalf("decodeAgent accepted a payload without a message: %+v", p)
		}
	})
}
