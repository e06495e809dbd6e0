package inbound

import (
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
)

func TestQueueIDs(t *testing.T) {
	long := "agent:main:telegram:group:" + strings.Repeat("9", 120)
	tests := []struct {
		name, key, wantGroup string
		hashed               bool
	}{
		{"plain key kept", "agent:main:main", "agent:main:main", false},
		{"topic key kept", "agent:main:telegram:group:-100123:topic:4", "agent:main:telegram:group:-100123:topic:4", false},
		{"too long is hashed", long, "", true},
		{"non-ASCII is hashed", "agent:main:telegram:group:café", "", true},
		{"space is hashed", "agent:main:a b", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := Message{SessionKey: tc.key, ID: tc.key}
			g := m.QueueGroup()
			if len(g) > 128 || !fitsQueueAlphabet(g) {
				t.Fatalf("group id %q is not a valid SQS group id", g)
			}
			if tc.hashed {
				if !strings.HasPrefix(g, "s-") || g != (Message{SessionKey: tc.key}).QueueGroup() {
					t.Fatalf("group id %q; want a stable hash", g)
				}
				if d := m.QueueDedup(); !strings.HasPrefix(d, "d-") || len(d) > 128 {
					t.Fatalf("dedup id %q; want a hash", d)
				}
				return
			}
			if g != tc.wantGroup {
				t.Fatalf("group id = %q; want %q", g, tc.wantGroup)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, body, wantErr string
	}{
		{"valid", `{"id":"telegram:1:2","agentId":"main","sessionKey":"agent:main:main","channel":"telegram","chatType":"direct","to":"7","text":"hi"}`, ""},
		{"malformed", `{"id":`, "malformed JSON"},
		{"missing session key", `{"id":"x","agentId":"main","channel":"telegram","chatType":"direct","to":"7"}`, "sessionKey is required"},
		{"missing to", `{"id":"x","agentId":"main","sessionKey":"k","channel":"telegram","chatType":"direct"}`, "to is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.body))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				return
			}
			if !fault.Is(err, fault.Invalid) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Decode = %v; want Invalid containing %q", err, tc.wantErr)
			}
		})
	}
}
