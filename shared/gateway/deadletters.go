package gateway

import (
	"context"

	"github.com/zero-gateway/zero/shared/fault"
)

// DeadLetterCounter reads a dead-letter queue's approximate counts
// (shared/sqsqueue's DLQ is one: one GetQueueAttributes a call).
type DeadLetterCounter interface {
	Counts(ctx context.Context) (visible, inFlight int, err error)
}

// DeadLetterQueue is a dead-letter queue status reports, by name.
type DeadLetterQueue struct {
	Name  string // "work", "subagent"
	Queue DeadLetterCounter
}

// deadLetters reads the depth of each of g.DeadLetters in order (one
// call each; nil when there are none). A queue that cannot be read is
// reported with its error (and logged), so status still answers.
func (g *gateway) deadLetters(ctx context.Context) []DeadLetterDepth {
	var out []DeadLetterDepth
	for _, q := range g.DeadLetters {
		d := DeadLetterDepth{Name: q.Name}
		visible, inFlight, err := q.Queue.Counts(ctx)
		if err != nil {
			g.Log.WarnContext(ctx, "gateway: dead-letter queue depth unreadable", "queue", q.Name, "err", err)
			d.Error = fault.Message(err)
		} else {
			d.Visible, d.InFlight = visible, inFlight
		}
		out = append(out, d)
	}
	return out
}
