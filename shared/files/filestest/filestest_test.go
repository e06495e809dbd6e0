package filestest

import (
	"testing"

	"github.com/zero-gateway/zero/shared/files"
)

func TestMemStore(t *testing.T) {
	TestStore(t, func(*testing.T) files.Store { return NewMemStore(nil) })
}

// TestMemStoreShared runs the suite on one store for every case, as an
// implementation on a shared bucket would.
func TestMemStoreShared(t *testing.T) {
	shared := NewMemStore(nil)
	TestStore(t, func(*testing.T) files.Store { return shared })
}
