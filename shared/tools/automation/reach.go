package automation

import (
	"encoding/json"

	"github.com/zero-gateway/zero/shared/tools"
)

// CronReach is the reach of a cron call: every action but status reaches
// the cron jobs (list and runs show other chats' job texts; add, update,
// remove, run and wake act on schedules that outlive the conversation).
func CronReach(_ tools.Run, raw json.RawMessage) tools.Reach {
	var a struct {
		Action string `json:"action"`
	}
	if json.Unmarshal(raw, &a) == nil && a.Action == "status" {
		return 0
	}
	return tools.ReachSchedules
}

// GatewayReach is the reach of a gateway call: reading the configuration
// (config.get, config.schema) reaches nothing past it; writing it
// (config.apply, config.patch), restart and update.run reach the
// configuration.
func GatewayReach(_ tools.Run, raw json.RawMessage) tools.Reach {
	var a struct {
		Action string `json:"action"`
	}
	if json.Unmarshal(raw, &a) == nil && (a.Action == "config.get" || a.Action == "config.schema") {
		return 0
	}
	return tools.ReachConfig
}
