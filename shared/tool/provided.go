package tool

import (
	"slices"

	"github.com/zero-gateway/zero/shared/config"
)

// provided are the tools ZERO implements today, sorted. sessions_list,
// sessions_history and sessions_send are offered only where the session
// store can read other sessions (always, deployed); sessions_send also
// needs the work queue (the runner has it when ZERO_QUEUE_URL is set), as
// does sessions_spawn. memory_get and memory_search are offered where the
// runner has the agents' workspace bucket (always, deployed). web_fetch
// and web_search are offered when tools.web enables them (Available).
// message is offered where the runner has channel clients (always,
// deployed). read, write and edit are offered where the runner has the
// workspace bucket; apply_patch also needs tools.exec.applyPatch.enabled
// (and an OpenAI model, which the turn checks). image is offered when an
// image model resolves for the run (ImageAvailable; the turn checks).
// cron is offered where the runner has the cron store (always,
// deployed); gateway where it has the config parameter and
// commands.restart enables it (Available).
var provided = []string{"agents_list", "apply_patch", "cron", "edit", "gateway", "image", "memory_get", "memory_search", "message", "read", "session_status", "sessions_history", "sessions_list", "sessions_send", "sessions_spawn", "web_fetch", "web_search", "write"}

// Provided reports whether ZERO implements the tool name today; a tool the
// policy allows but ZERO does not provide is never offered to a model.
func Provided(name string) bool {
	_, ok := slices.BinarySearch(provided, normalize(name))
	return ok
}

// Available reports whether ZERO offers the tool name under cfg (nil:
// config.Default()) when the policy allows it: it is Provided and, for
// web_fetch and web_search, enabled by tools.web.fetch.enabled (default
// true) and tools.web.search.enabled (default false).
func Available(cfg *config.Config, name string) bool {
	if !Provided(name) {
		return false
	}
	if cfg == nil {
		cfg = config.Default()
	}
	switch normalize(name) {
	case "web_fetch":
		return cfg.Tools.Web.Fetch.Enabled
	case "web_search":
		return cfg.Tools.Web.Search.Enabled
	case "gateway":
		return cfg.Commands.Restart
	case "apply_patch":
		return cfg.Tools.Exec.ApplyPatch.Enabled
	}
	return true
}
