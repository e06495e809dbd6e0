package outboxtest_test

import (
	"testing"

	"github.com/zero-gateway/zero/shared/outbox"
	"github.com/zero-gateway/zero/shared/outbox/outboxtest"
)

func TestMemStore(t *testing.T) {
	outboxtest.TestStore(t, func(*testing.T) outbox.Store { return &outboxtest.MemStore{} })
}
