package awstest

import (
	"fmt"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNames(t *testing.T) {
	hex12 := regexp.MustCompile(`^[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 100 {
		s := Suffix()
		if !hex12.MatchString(s) {
			t.Fatalf("Suffix() = %q; want 12 lowercase hex digits", s)
		}
		if seen[s] {
			t.Fatalf("Suffix() repeated %q within 100 calls", s)
		}
		seen[s] = true
	}
	if n := Name("zero-test-"); !regexp.MustCompile(`^zero-test-[0-9a-f]{12}$`).MatchString(n) {
		t.Errorf("Name(zero-test-) = %q", n)
	}
}

// recordingTB is a testing.TB whose Fatalf records the failure and ends
// the goroutine, as the real one does.
type recordingTB struct {
	testing.TB
	failure string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.failure = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestWaitFor(t *testing.T) {
	tests := []struct {
		name        string
		trueFrom    int // the call from which cond reports true; 0: never
		limit       time.Duration
		wantFailure string
		wantCalls   func(calls int) bool
	}{
		{name: "already true: one call", trueFrom: 1, limit: time.Second, wantCalls: func(n int) bool { return n == 1 }},
		{name: "true on the third poll", trueFrom: 3, limit: time.Second, wantCalls: func(n int) bool { return n == 3 }},
		{name: "never true: fails at the deadline, after polling", limit: 200 * time.Millisecond,
			wantFailure: "the thing: not within 200ms", wantCalls: func(n int) bool { return n >= 2 }},
		{name: "a limit below the interval still checks at the deadline", trueFrom: 2, limit: time.Millisecond,
			wantCalls: func(n int) bool { return n == 2 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := &recordingTB{TB: t}
			calls := 0
			done := make(chan struct{})
			start := time.Now()
			go func() {
				defer close(done)
				WaitFor(tb, "the thing", tt.limit, func() bool { calls++; return tt.trueFrom > 0 && calls >= tt.trueFrom })
			}()
			<-done
			if diff := cmp.Diff(tt.wantFailure, tb.failure); diff != "" {
				t.Errorf("failure (-want +got):\n%s", diff)
			}
			if !tt.wantCalls(calls) {
				t.Errorf("cond called %d times", calls)
			}
			if took := time.Since(start); tt.wantFailure != "" && took < tt.limit {
				t.Errorf("failed after %s; want not before the %s limit", took, tt.limit)
			}
		})
	}
}
