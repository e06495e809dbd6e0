package gateway

import (
	"testing"

	"github.com/zero-gateway/zero/shared/inbound"
)

// TestAgentWebChat: agent with channel "webchat" (the control page's chat
// box) queues the message on the WebChat channel through the door; other
// undelivered messages stay internal.
func TestAgentWebChat(t *testing.T) {
	tests := []struct {
		name        string
		params      map[string]any
		wantChannel string
		wantTo      string
	}{
		{name: "webchat is its own channel", wantChannel: "webchat", wantTo: "webchat",
			params: map[string]any{"message": "hi", "channel": "webchat", "idempotencyKey": "w1"}},
		{name: "channel name is case-insensitive", wantChannel: "webchat", wantTo: "webchat",
			params: map[string]any{"message": "hi", "channel": " WebChat ", "idempotencyKey": "w2"}},
		{name: "no channel stays internal", wantChannel: inbound.Internal, wantTo: "api",
			params: map[string]any{"message": "hi", "idempotencyKey": "w3"}},
		{name: "another channel without deliver stays internal", wantChannel: inbound.Internal, wantTo: "api",
			params: map[string]any{"message": "hi", "channel": "telegram", "idempotencyKey": "w4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "")
			var got AgentAccepted
			f.call("agent", tt.params).decode(t, &got)
			msgs := f.queue.messages()
			if len(msgs) != 1 {
				t.Fatalf("queued %d; want 1", len(msgs))
			}
			m := msgs[0]
			if m.Channel != tt.wantChannel || m.To != tt.wantTo || m.ChatType != inbound.Direct {
				t.Fatalf("queued channel %q to %q (%s); want %q to %q, direct", m.Channel, m.To, m.ChatType, tt.wantChannel, tt.wantTo)
			}
			if got.SessionKey != "agent:main:main" || got.RunID == "" {
				t.Fatalf("accepted %+v; want the main session and a run", got)
			}
		})
	}
}
