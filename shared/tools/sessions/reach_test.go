package sessions

import (
	"encoding/json"
	"testing"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
)

func TestSessionsReach(t *testing.T) {
	run := tools.Run{Config: config.Default(), AgentID: "main",
		Message: inbound.Message{SessionKey: "agent:main:main"}, Entry: session.Entry{SessionID: "sid-1"}}
	tests := []struct {
		name  string
		reach tools.ReachOf
		args  string
		want  tools.Reach
	}{
		{"history of its own session by key", HistoryReach, `{"sessionKey":"agent:main:main"}`, 0},
		{"history of its own session as main", HistoryReach, `{"sessionKey":"main"}`, 0},
		{"history of its own session by sessionId", HistoryReach, `{"sessionKey":"sid-1"}`, 0},
		{"history of another chat", HistoryReach, `{"sessionKey":"agent:main:telegram:dm:1001"}`, tools.ReachSessions},
		{"status of its own session", HistoryReach, `{}`, 0},
		{"the list shows other sessions", ListReach, `{}`, tools.ReachSessions},
		{"a send within the agent", SendReach, `{"sessionKey":"agent:main:telegram:group:-5","message":"hi"}`, tools.ReachSessions},
		{"a send to another agent", SendReach, `{"sessionKey":"agent:work:main","message":"hi"}`, tools.ReachSessions | tools.ReachAgents},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.reach(run, json.RawMessage(tt.args)); got != tt.want {
				t.Errorf("reach = %v; want %v", got, tt.want)
			}
		})
	}
}
