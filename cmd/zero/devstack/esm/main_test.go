package esm

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/emulator"
)

// The tests that poll share one moto server (or the emulator named by
// ZERO_AWS_ENDPOINT) and namespace their queues with a unique prefix.
var emuErr error

func TestMain(m *testing.M) {
	var srv *emulator.Server
	srv, emuErr = emulator.Start(context.Background(), "")
	if emuErr == nil {
		srv.Setenv()
	} else {
		fmt.Fprintln(os.Stderr, emuErr)
	}
	code := m.Run()
	srv.Stop()
	os.Exit(code)
}

// need fails a test when a prerequisite is missing: `make test` installs
// them all (`make deps`), so a missing one is a broken setup, not a reason
// to skip.
func need(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s unavailable (run `make deps`): %v", what, err)
	}
}

func uniquePrefix(t *testing.T, what string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "zt-" + hex.EncodeToString(b[:]) + "-" + what
}

// eq reports a difference between got and want as a go-cmp diff. SDK
// types' unexported (empty) fields are compared too.
func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if diff := cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
	}
}
