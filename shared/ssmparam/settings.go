package ssmparam

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/shared/config"
)

// DefaultTTL is how often a warm function re-reads the config parameter:
// edits apply within it, and a steady stream of turns costs one
// GetParameter per instance per TTL rather than one per turn.
const DefaultTTL = 30 * time.Second

// SettingsFromEnv returns the config cache the functions share: the
// parameter named by ZERO_CONFIG_PARAMETER (required), re-read every
// ZERO_CONFIG_TTL (a Go duration, default DefaultTTL). Nothing is fetched
// until the first Current call.
func SettingsFromEnv(client *ssm.Client, log *slog.Logger) (*config.Cache, error) {
	name := os.Getenv("ZERO_CONFIG_PARAMETER")
	if name == "" {
		return nil, fmt.Errorf("environment variable ZERO_CONFIG_PARAMETER is required (the SSM parameter holding zero.json)")
	}
	ttl := DefaultTTL
	if v := os.Getenv("ZERO_CONFIG_TTL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("ZERO_CONFIG_TTL: %q is not a duration like 30s", v)
		}
		ttl = d
	}
	return config.NewCache(New(client, name), ttl, log), nil
}
