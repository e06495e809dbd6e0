package turntest

import (
	"context"
	"errors"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/turn"
)

// ErrCrash stands for the function being killed at that line: the step's
// write did or did not happen, and the message is redelivered.
var ErrCrash = errors.New("crash injected by turntest.CrashStore")

// CrashStore wraps a turn.Store and fails chosen calls, each counter once
// per unit: ...Before fails the call without doing it, ...After does it and
// then fails, as a function killed right after its write would. Move is a
// turn's commit when the session changes key, so it shares the Commit
// counters. Not safe for concurrent use.
type CrashStore struct {
	turn.Store
	CommitBefore, CommitAfter     int
	ProgressBefore, ProgressAfter int
	FinishBefore                  int
}

// Commit implements turn.Store.
func (s *CrashStore) Commit(ctx context.Context, key string, e session.Entry, c sessionstate.ModelContext, r receipt.Receipt) error {
	return s.around(&s.CommitBefore, &s.CommitAfter, func() error { return s.Store.Commit(ctx, key, e, c, r) })
}

// Move implements turn.Mover when the wrapped store does; otherwise it
// returns a fault.Internal error.
func (s *CrashStore) Move(ctx context.Context, from string, fromVersion int64, to string, e session.Entry, r receipt.Receipt) error {
	m, ok := s.Store.(turn.Mover)
	if !ok {
		return fault.New(fault.Internal, "move session: %T does not implement turn.Mover", s.Store)
	}
	return s.around(&s.CommitBefore, &s.CommitAfter, func() error { return m.Move(ctx, from, fromVersion, to, e, r) })
}

// Progress implements turn.Store.
func (s *CrashStore) Progress(ctx context.Context, key, id string, sent int) error {
	return s.around(&s.ProgressBefore, &s.ProgressAfter, func() error { return s.Store.Progress(ctx, key, id, sent) })
}

// Finish implements turn.Store.
func (s *CrashStore) Finish(ctx context.Context, key, id string) error {
	var never int
	return s.around(&s.FinishBefore, &never, func() error { return s.Store.Finish(ctx, key, id) })
}

func (s *CrashStore) around(before, after *int, call func() error) error {
	if *before > 0 {
		*before--
		return ErrCrash
	}
	if err := call(); err != nil {
		return err
	}
	if *after > 0 {
		*after--
		return ErrCrash
	}
	return nil
}
