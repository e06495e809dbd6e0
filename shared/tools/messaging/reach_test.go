package messaging

import (
	"encoding/json"
	"testing"

	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
)

func TestMessageReach(t *testing.T) {
	chat := tools.Run{Entry: session.Entry{DeliveryContext: session.DeliveryContext{Channel: "telegram", To: "42"}}}
	hook := tools.Run{Entry: session.Entry{DeliveryContext: session.DeliveryContext{Channel: "internal", To: "hook"}}}
	tests := []struct {
		name string
		run  tools.Run
		args string
		want tools.Reach
	}{
		{"its own chat by default", chat, `{"action":"send","text":"hi"}`, 0},
		{"its own chat named", chat, `{"action":"send","channel":"telegram","target":"42","text":"hi"}`, 0},
		{"another chat", chat, `{"action":"send","target":"99","text":"hi"}`, tools.ReachChats},
		{"another channel", chat, `{"action":"send","channel":"discord","target":"42","text":"hi"}`, tools.ReachChats},
		{"a run without a chat naming one", hook, `{"action":"send","channel":"telegram","target":"42","text":"hi"}`, tools.ReachChats},
		{"a run without a chat naming none", hook, `{"action":"send","text":"hi"}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Reach(tt.run, json.RawMessage(tt.args)); got != tt.want {
				t.Errorf("Reach = %v; want %v", got, tt.want)
			}
		})
	}
}
