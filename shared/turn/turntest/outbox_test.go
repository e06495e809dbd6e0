package turntest_test

import (
	"testing"

	"github.com/zero-gateway/zero/shared/turn"
	"github.com/zero-gateway/zero/shared/turn/outboxtest"
	"github.com/zero-gateway/zero/shared/turn/turntest"
)

func TestMemOutbox(t *testing.T) {
	outboxtest.TestOutbox(t, func(*testing.T) turn.Outbox { return &turntest.MemOutbox{} })
}
