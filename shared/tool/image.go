package tool

import (
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/model"
)

// ImageAvailable reports whether the image tool has a model to ask in a
// run on ref under cfg (nil: config.Default()): agents.defaults.imageModel
// names one (primary or fallback) whose adapter sends images, or, without
// an image model, ref accepts images (model.AcceptsImages). Whether that
// provider is configured in the deployment is the runner's to know.
func ImageAvailable(cfg *config.Config, ref model.Ref) bool {
	if cfg == nil {
		cfg = config.Default()
	}
	im := cfg.Agents.Defaults.ImageModel
	if !im.IsSet() {
		return model.AcceptsImages(ref)
	}
	for _, r := range append([]model.Ref{im.Primary}, im.Fallbacks...) {
		if model.SendsImages(r) {
			return true
		}
	}
	return false
}
