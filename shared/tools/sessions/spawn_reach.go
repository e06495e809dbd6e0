package sessions

import (
	"encoding/json"

	"github.com/zero-gateway/zero/shared/tools"
)

// SpawnReach is the reach of a sessions_spawn call: a model argument
// outside the allowlist (tools.ModelReach) reaches ReachModels, which
// only the owner may ask for, as with /new <model>: a sub-agent runs a
// whole turn on it.
func SpawnReach(run tools.Run, raw json.RawMessage) tools.Reach {
	var a spawnArgs
	if json.Unmarshal(raw, &a) != nil {
		return 0 // the call fails on its arguments before anything is queued
	}
	return tools.ModelReach(run.Config, a.Model)
}
