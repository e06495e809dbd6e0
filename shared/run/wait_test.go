package run_test

import (
	"context"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/run/runtest"
)

func TestResultOf(t *testing.T) {
	tests := []struct {
		rec  run.Record
		want run.Result
	}{
		{run.Record{Status: run.StatusOK, StartedAt: 1, EndedAt: 2}, run.Result{Status: "ok", StartedAt: 1, EndedAt: 2}},
		{run.Record{Status: run.StatusError, StartedAt: 1, EndedAt: 2, Error: "boom"}, run.Result{Status: "error", StartedAt: 1, EndedAt: 2, Error: "boom"}},
		{run.Record{Status: run.StatusAborted, StartedAt: 1, EndedAt: 2}, run.Result{Status: "error", StartedAt: 1, EndedAt: 2, Error: "aborted"}},
		{run.Record{Status: run.StatusAborted, StartedAt: 1, EndedAt: 2, Error: "/stop"}, run.Result{Status: "error", StartedAt: 1, EndedAt: 2, Error: "/stop"}},
		{run.Record{Status: run.StatusTimeout, StartedAt: 1, EndedAt: 2, Error: "600 s"}, run.Result{Status: "timeout", StartedAt: 1, EndedAt: 2, Error: "600 s"}},
		{run.Record{Status: run.StatusRunning, StartedAt: 1}, run.Result{Status: "timeout", StartedAt: 1}},
	}
	for _, tc := range tests {
		if got := run.ResultOf(tc.rec); got != tc.want {
			t.Errorf("ResultOf(%+v) = %+v; want %+v", tc.rec, got, tc.want)
		}
	}
}

// failing is a Getter whose reads fail.
type failing struct{ err error }

func (f failing) Get(context.Context, string) (run.Record, error) { return run.Record{}, f.err }

func TestWait(t *testing.T) {
	ctx := context.Background()
	rec := run.Record{RunID: run.NewID(""), Status: run.StatusRunning, StartedAt: 100}
	tests := []struct {
		name    string
		start   bool          // the run exists when the wait begins
		finish  time.Duration // when it ends (0: never)
		timeout time.Duration
		want    run.Result
	}{
		{"already finished", true, -1, time.Second, run.Result{Status: "ok", StartedAt: 100, EndedAt: 200}},
		{"finishes during the wait", true, 250 * time.Millisecond, 5 * time.Second, run.Result{Status: "ok", StartedAt: 100, EndedAt: 200}},
		{"still running when the wait ends", true, 0, 300 * time.Millisecond, run.Result{Status: "timeout", StartedAt: 100}},
		{"never started", false, 0, 200 * time.Millisecond, run.Result{Status: "timeout"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := runtest.NewMemStore()
			if tc.start {
				if err := s.Start(ctx, rec, nil); err != nil {
					t.Fatal(err)
				}
			}
			done := run.Record{RunID: rec.RunID, Status: run.StatusOK, EndedAt: 200}
			switch {
			case tc.finish < 0:
				if err := s.Finish(ctx, done, nil); err != nil {
					t.Fatal(err)
				}
			case tc.finish > 0:
				timer := time.AfterFunc(tc.finish, func() { s.Finish(ctx, done, nil) })
				defer timer.Stop()
			}
			began := time.Now()
			got, err := run.Wait(ctx, s, rec.RunID, tc.timeout)
			if err != nil || got != tc.want {
				t.Fatalf("Wait = %+v, %v; want %+v", got, err, tc.want)
			}
			if took := time.Since(began); took > tc.timeout+time.Second {
				t.Fatalf("Wait took %v; the timeout was %v", took, tc.timeout)
			}
		})
	}

	t.Run("a failing read is returned", func(t *testing.T) {
		_, err := run.Wait(ctx, failing{fault.New(fault.Unavailable, "throttled")}, rec.RunID, time.Second)
		if !fault.Is(err, fault.Unavailable) {
			t.Fatalf("Wait = %v; want the read's fault.Unavailable", err)
		}
	})
	t.Run("a cancelled wait is unavailable", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err := run.Wait(cctx, failing{fault.New(fault.NotFound, "not yet")}, rec.RunID, time.Minute)
		if !fault.Is(err, fault.Unavailable) {
			t.Fatalf("Wait = %v; want fault.Unavailable", err)
		}
	})
	t.Run("a run id is required", func(t *testing.T) {
		if _, err := run.Wait(ctx, runtest.NewMemStore(), "", time.Second); !fault.Is(err, fault.Invalid) {
			t.Fatalf("Wait = %v; want fault.Invalid", err)
		}
	})
}
