package turntest

import (
	"testing"

	"github.com/zero-gateway/zero/shared/turn"
)

func TestMemStore(t *testing.T) {
	TestStore(t, func(*testing.T) turn.Store { return NewMemStore() })
}
