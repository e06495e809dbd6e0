package automation

import (
	"encoding/json"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/tools"
)

// CronReach is the reach of a cron call: every action but status reaches
// the cron jobs (list and runs show other chats' job texts; add, update,
// remove, run and wake act on schedules that outlive the conversation);
// an add or update whose payload.model is outside the allowlist also
// reaches models (tools.ModelReach): every run of the job uses it.
func CronReach(run tools.Run, raw json.RawMessage) tools.Reach {
	var a struct {
		Action string `json:"action"`
		Job    *struct {
			Payload cron.Payload `json:"payload"`
		} `json:"job"`
		Patch *cron.Patch `json:"patch"`
	}
	err := json.Unmarshal(raw, &a)
	if err == nil && a.Action == "status" {
		return 0
	}
	reach := tools.ReachSchedules
	if err == nil && a.Job != nil {
		reach |= tools.ModelReach(run.Config, a.Job.Payload.Model)
	}
	if err == nil && a.Patch != nil && a.Patch.Payload != nil {
		reach |= tools.ModelReach(run.Config, a.Patch.Payload.Model)
	}
	return reach
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
