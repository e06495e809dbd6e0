package run

import (
	"context"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
)

// DefaultWaitTimeout is agent.wait's default (timeoutMs overrides it). It
// bounds the wait only; the run goes on.
const DefaultWaitTimeout = 30 * time.Second

// Poll intervals of Wait: the first read is immediate, then the interval
// doubles from pollFirst to pollMax, so a short run is seen quickly and a
// long wait costs about one read a second.
const (
	pollFirst = 100 * time.Millisecond
	pollMax   = time.Second
)

// Result is agent.wait's answer.
type Result struct {
	Status    string `json:"status"` // ok | error | timeout
	StartedAt int64  `json:"startedAt,omitempty"`
	EndedAt   int64  `json:"endedAt,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Getter reads a run's record; every Store is one.
type Getter interface {
	Get(ctx context.Context, runID string) (Record, error)
}

// ResultOf is the agent.wait answer for rec: ok for ok; error for error
// and aborted (Error says "aborted" when the record has no text); timeout
// for a run that hit its own time limit (EndedAt set) and for one still
// running (EndedAt 0: the wait ended first).
func ResultOf(rec Record) Result {
	res := Result{StartedAt: rec.StartedAt, EndedAt: rec.EndedAt, Error: rec.Error}
	switch rec.Status {
	case StatusOK:
		res.Status = StatusOK
	case StatusError:
		res.Status = StatusError
	case StatusAborted:
		res.Status = StatusError
		if res.Error == "" {
			res.Error = StatusAborted
		}
	default: // timeout, running
		res.Status = StatusTimeout
	}
	return res
}

// Wait polls the record of runID until it is terminal or timeout (<= 0:
// DefaultWaitTimeout) has passed, and returns ResultOf it. A run not
// started yet is waited for like a running one, so a wait that begins
// before the run does is fine; if it never appears the result is timeout
// without times. Other read errors are returned; a cancelled ctx is
// fault.Unavailable.
func Wait(ctx context.Context, g Getter, runID string, timeout time.Duration) (Result, error) {
	if err := CheckID(runID); err != nil {
		return Result{}, err
	}
	if timeout <= 0 {
		timeout = DefaultWaitTimeout
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	interval := pollFirst
	var last Record
	for expired := false; ; {
		rec, err := g.Get(ctx, runID)
		switch {
		case err == nil:
			last = rec
			if Terminal(rec.Status) {
				return ResultOf(rec), nil
			}
		case !fault.Is(err, fault.NotFound):
			return Result{}, err
		}
		if expired {
			return Result{Status: StatusTimeout, StartedAt: last.StartedAt}, nil
		}
		select {
		case <-ctx.Done():
			return Result{}, fault.Wrap(fault.Unavailable, ctx.Err(), "wait for run %s", runID)
		case <-deadline.C:
			expired = true // one last read: the run may just have ended
		case <-time.After(interval):
		}
		interval = min(2*interval, pollMax)
	}
}
