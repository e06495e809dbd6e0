package telegram

import (
	"context"
	"testing"

	"github.com/zero-gateway/zero/shared/config"
)

// openDoor admits everyone on Telegram, as `zero dev` does by default.
const openDoor = `{channels: {telegram: {allowFrom: ["*"]}}}`

// staticSettings serves one parsed config.
type staticSettings struct{ cfg *config.Config }

func (s staticSettings) Current(context.Context) (*config.Config, error) { return s.cfg, nil }

// mustConfig parses a zero.json document; "" means the defaults.
func mustConfig(t testing.TB, doc string) *config.Config {
	t.Helper()
	if doc == "" {
		return config.Default()
	}
	cfg, err := config.Parse([]byte(doc))
	if err != nil {
		t.Fatalf("config.Parse(%s): %v", doc, err)
	}
	return cfg
}
