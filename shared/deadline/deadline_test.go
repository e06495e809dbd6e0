package deadline_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/deadline"
)

func TestFits(t *testing.T) {
	b := deadline.Budget{Reserve: 100 * time.Millisecond, NoDeadline: time.Second}
	withDeadline := func(left time.Duration) context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), left)
		t.Cleanup(cancel)
		return ctx
	}
	tests := []struct {
		name string
		ctx  context.Context
		wait time.Duration
		want bool
	}{
		{"no deadline, short wait", context.Background(), 500 * time.Millisecond, true},
		{"no deadline, wait past the bound", context.Background(), 2 * time.Second, false},
		{"deadline with room for the wait and the reserve", withDeadline(time.Hour), time.Second, true},
		{"deadline leaving less than the reserve", withDeadline(time.Second), 950 * time.Millisecond, false},
		{"deadline shorter than the wait", withDeadline(10 * time.Millisecond), time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := b.Fits(tt.ctx, tt.wait); got != tt.want {
				t.Errorf("Fits = %v; want %v", got, tt.want)
			}
		})
	}
}

func TestWait(t *testing.T) {
	b := deadline.Budget{Reserve: 50 * time.Millisecond, NoDeadline: time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := b.Wait(ctx, time.Second); !errors.Is(err, deadline.ErrNoTime) || time.Since(start) > 50*time.Millisecond {
		t.Errorf("Wait past the deadline = %v after %s; want ErrNoTime at once", err, time.Since(start))
	}
	if err := b.Wait(context.Background(), 10*time.Millisecond); err != nil {
		t.Errorf("Wait that fits = %v", err)
	}
	done, stop := context.WithCancel(context.Background())
	stop()
	if err := deadline.Sleep(done, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on an ended ctx = %v; want context.Canceled", err)
	}
}
