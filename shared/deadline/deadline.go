// Package deadline decides whether a retry's wait fits the caller's
// deadline, and waits it: the one rule every outbound client (Telegram,
// Discord) follows, so a rate-limited call never sleeps past the Lambda's
// time and the queue's retry takes over instead.
package deadline

import (
	"context"
	"errors"
	"time"
)

// Budget is the room a wait must leave.
type Budget struct {
	// Reserve is the time a wait must leave before ctx's deadline for
	// the request after it.
	Reserve time.Duration
	// NoDeadline bounds one wait when ctx has no deadline.
	NoDeadline time.Duration
}

// Default leaves a second for the request after the wait, and waits at
// most a minute without a deadline (the runner always has one: the
// Lambda's).
var Default = Budget{Reserve: time.Second, NoDeadline: time.Minute}

// ErrNoTime is Wait's answer to a wait that does not fit: nothing was
// waited.
var ErrNoTime = errors.New("the wait does not fit the time left")

// Fits reports whether waiting d still leaves b.Reserve before ctx's
// deadline; without a deadline, whether d is at most b.NoDeadline.
func (b Budget) Fits(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Deadline()
	if !ok {
		return d <= b.NoDeadline
	}
	return time.Until(deadline) > d+b.Reserve
}

// Wait waits d when it fits (ErrNoTime, at once, when it does not); it
// returns ctx's error if ctx ends first.
func (b Budget) Wait(ctx context.Context, d time.Duration) error {
	if !b.Fits(ctx, d) {
		return ErrNoTime
	}
	return Sleep(ctx, d)
}

// Sleep waits d, or until ctx ends (its error).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
