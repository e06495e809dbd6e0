// Package awstest is test support for the packages whose tests run
// against the AWS emulator (shared/emulator) or real AWS: names no other
// test uses, for resources in an emulator that may be shared, and polling
// for what AWS makes true only eventually (a cached secret's rotation, a
// message's delivery). Only tests import it.
package awstest

import (
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"
)

// Suffix is 12 random lowercase hex digits: appended to a name, it makes
// a table, bucket, queue, parameter or key no other test (or test run on
// a shared emulator) uses. It fits every AWS name alphabet.
func Suffix() string {
	var b [6]byte
	rand.Read(b[:]) // never fails (crypto/rand panics rather than return an error)
	return hex.EncodeToString(b[:])
}

// Name is prefix followed by a Suffix: "zero-test-" gives
// "zero-test-0f1e2d3c4b5a".
func Name(prefix string) string { return prefix + Suffix() }

// PollInterval is how long WaitFor sleeps between two checks.
const PollInterval = 50 * time.Millisecond

// WaitFor calls cond until it reports true, every PollInterval, and fails
// the test (t.Fatalf, naming what) when it has not within limit. cond is
// checked once more at the deadline, so a limit shorter than PollInterval
// still gets one late check.
func WaitFor(t testing.TB, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(min(PollInterval, time.Until(deadline)+time.Millisecond))
	}
}
