package ingest

import (
	"context"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/session"
)

// Lanes is a Queue over the work queue's lanes: one FIFO queue per lane,
// each drained by its own event source mapping with its own concurrency
// cap, so sub-agent runs never starve the main lane and the main lane
// never starves them (docs/queues.md).
//
// Enqueue puts a message whose SessionKey is a sub-agent session's
// (agent:<agentId>:subagent:<id>, see session.IsSubagent) on Subagent and
// every other message on Main. A KindDeliver message (an outbox
// delivery) always goes to Main: it runs no turn and holds no session's
// group. A nil Subagent sends everything to Main, so a deployment without
// the sub-agent queue keeps working on one lane. Main is required.
type Lanes struct {
	Main     Queue
	Subagent Queue
}

// Enqueue puts m on its lane's queue (see Lanes); its error is that
// queue's, unchanged.
func (l Lanes) Enqueue(ctx context.Context, m inbound.Message) error {
	return l.For(m).Enqueue(ctx, m)
}

// For returns the queue m belongs on.
func (l Lanes) For(m inbound.Message) Queue {
	if l.Subagent != nil && m.Kind != inbound.KindDeliver && session.IsSubagent(m.SessionKey) {
		return l.Subagent
	}
	return l.Main
}
