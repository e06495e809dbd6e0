package automation_test

import (
	"encoding/json"
	"testing"

	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/automation"
)

func TestAutomationReach(t *testing.T) {
	tests := []struct {
		name  string
		reach tools.ReachOf
		args  string
		want  tools.Reach
	}{
		{"cron status", automation.CronReach, `{"action":"status"}`, 0},
		{"cron list shows other chats' jobs", automation.CronReach, `{"action":"list"}`, tools.ReachSchedules},
		{"cron add", automation.CronReach, `{"action":"add","job":{}}`, tools.ReachSchedules},
		{"cron remove", automation.CronReach, `{"action":"remove","id":"x"}`, tools.ReachSchedules},
		{"cron with unreadable arguments", automation.CronReach, `nope`, tools.ReachSchedules},
		{"gateway config.get", automation.GatewayReach, `{"action":"config.get"}`, 0},
		{"gateway config.schema", automation.GatewayReach, `{"action":"config.schema"}`, 0},
		{"gateway config.patch", automation.GatewayReach, `{"action":"config.patch","raw":"{}"}`, tools.ReachConfig},
		{"gateway restart", automation.GatewayReach, `{"action":"restart"}`, tools.ReachConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.reach(tools.Run{}, json.RawMessage(tt.args)); got != tt.want {
				t.Errorf("reach = %v; want %v", got, tt.want)
			}
		})
	}
}
