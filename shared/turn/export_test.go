package turn

import (
	"context"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/receipt"
)

// FinishSubagent exposes finishSubagent (the flow step after a
// sub-agent's turn) to the package's external tests.
func (p *Processor) FinishSubagent(ctx context.Context, m inbound.Message, rec receipt.Receipt) error {
	return p.finishSubagent(ctx, m, rec)
}

// FlushMarker exposes flushMarker (the memory flush's claim marker).
var FlushMarker = flushMarker
