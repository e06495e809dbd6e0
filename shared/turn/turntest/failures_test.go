package turntest

import (
	"testing"

	"github.com/zero-gateway/zero/shared/turn"
)

func TestMemFailures(t *testing.T) {
	TestFailures(t, func(*testing.T) turn.Failures { return NewMemStore() })
}
