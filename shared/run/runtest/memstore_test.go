package runtest

import "testing"

func TestMemStore(t *testing.T) {
	TestStore(t, func(t *testing.T) Store { return NewMemStore() })
}
