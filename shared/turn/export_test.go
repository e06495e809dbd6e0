package turn

import (
	"context"

	"github.com/zero-gateway/zero/shared/inbound"
)

// FinishSubagent exposes finishSubagent (the flow step after a
// sub-agent's turn) to the package's external tests.
func (p *Processor) FinishSubagent(ctx context.Context, m inbound.Message, rec Record) error {
	return p.finishSubagent(ctx, m, rec)
}

// FlushMarker exposes flushMarker (the memory flush's claim marker).
var FlushMarker = flushMarker
