package turn

import (
	"context"
	"fmt"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/tools"
)

// Door is the ingest door as the engine uses it (ingest.Door is one) to
// queue a message for another session: sessions_send's rounds,
// sessions_spawn's task, the cron tool's run and wake, a flow's next
// step. The engine hands every such message in as an operator's
// (operatorDoor): the deployment's own agent sent it, so allowFrom does
// not apply; stop marks and the queue mode do, and the message is queued
// on the target session's FIFO group, deduplicated on its id.
type Door interface {
	Accept(ctx context.Context, r ingest.Request) (ingest.Outcome, error)
}

// operatorDoor is a Door as a tools.Ingress (the tools' and the flows'
// way to queue a message, whose session it names, for the run it
// starts): Queue accepts m as an operator's message. A message the door
// refuses or ignores is an error saying why; nothing is queued then.
type operatorDoor struct{ door Door }

func (d operatorDoor) Queue(ctx context.Context, m inbound.Message) (string, error) {
	out, err := d.door.Accept(ctx, ingest.Request{Message: m, Origin: ingest.Operator})
	if err != nil {
		return "", err
	}
	switch o := out.(type) {
	case ingest.Queued:
		return o.RunID, nil
	case ingest.Refused:
		return "", fmt.Errorf("refused: %s (%s)", o.Reason, o.Hint)
	case ingest.Ignored:
		return "", fmt.Errorf("not queued: %s", o.Reason)
	}
	return "", fmt.Errorf("ingest: unknown outcome %T", out)
}

// queue is p.Door as a tools.Ingress, or nil when p has no door.
func (p *Processor) queue() tools.Ingress {
	if p.Door == nil {
		return nil
	}
	return operatorDoor{door: p.Door}
}
