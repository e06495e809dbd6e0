package tool

import (
	"github.com/zero-gateway/zero/shared/config"
)

// Provided reports whether ZERO implements the tool name today: it is in
// the registry and not one the serverless deployment deliberately does
// without (Unavailable). A tool the policy allows but ZERO does not
// provide is never offered to a model. Whether a run gets a provided
// tool also depends on the deployment's backends and the run's model
// (the registry's constructors: e.g. apply_patch only for an OpenAI
// model, image only with an image model; see ImageAvailable).
func Provided(name string) bool {
	e, ok := registry.Lookup(normalize(name))
	return ok && e.Provided()
}

// Available reports whether ZERO offers the tool name under cfg (nil:
// config.Default()) when the policy allows it: it is Provided and the
// configuration enables it (the registry entry's switch: web_fetch by
// tools.web.fetch.enabled, default true; web_search by
// tools.web.search.enabled, default false; gateway by commands.restart;
// apply_patch by tools.exec.applyPatch.enabled).
func Available(cfg *config.Config, name string) bool {
	e, ok := registry.Lookup(normalize(name))
	return ok && e.On(cfg)
}
