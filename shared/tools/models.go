package tools

import (
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/model"
)

// ModelReach is the reach of a call that names model input for a run
// (sessions_spawn's model, the image tool's, a cron job's payload.model):
// nothing for none, or for a model the configuration allowlists, which
// anyone may name (config.ResetModel without the owner's freedom: an
// alias or a listed model of agents.defaults.models, agents.defaults.model
// and its fallbacks, agents.list[].model, or a provider whose configured
// model that names; also any of listed, e.g. the configured image
// models); anything else is ReachModels, which only the owner may ask
// for, as with /new <model> and session_status.
func ModelReach(cfg *config.Config, input string, listed ...model.Ref) Reach {
	input = strings.TrimSpace(input)
	if input == "" {
		return 0
	}
	if cfg == nil {
		cfg = config.Default()
	}
	if _, ok := cfg.ResetModel(input, false); ok {
		return 0
	}
	if ref, err := model.ParseRef(input); err == nil {
		for _, l := range listed {
			if l.Provider == ref.Provider && strings.EqualFold(l.Name, ref.Name) {
				return 0
			}
		}
	}
	return ReachModels
}
