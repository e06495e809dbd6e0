package turn

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/session"
)

// HandleGroup handles consecutive messages of one session, in order (the
// sqsqueue.GroupHandler contract: it returns how many are done). Messages
// that waited while the session was busy arrive together; in queue mode
// collect (the default) they run as one turn with a combined prompt,
// otherwise one turn each (followup). With messages.queue.debounceMs set,
// a collect session's messages are first held (a *Hold error, nothing
// done) until the chat has been quiet that long (debounce.go).
func (p *Processor) HandleGroup(ctx context.Context, msgs []inbound.Message, attempts []int) (int, error) {
	if err := p.debounce(ctx, msgs, attempts); err != nil {
		return 0, err
	}
	if len(msgs) > 1 {
		merged, err := p.collect(ctx, msgs, attempts)
		if err != nil {
			return 0, err
		}
		if merged {
			return len(msgs), nil
		}
	}
	for i, m := range msgs {
		if err := p.Handle(ctx, m, attempts[i]); err != nil {
			return i, err
		}
	}
	return len(msgs), nil
}

// collect runs msgs as one turn when the session's queue mode is collect
// (or steer, its closest form here), they share a route, none is a command
// or already handled. It reports false, having done nothing, otherwise.
// A commit that conflicts (one of them was handled meanwhile) also falls
// back to one turn each, which the message records keep exactly-once.
func (p *Processor) collect(ctx context.Context, msgs []inbound.Message, attempts []int) (bool, error) {
	cfg, err := p.config(ctx)
	if err != nil {
		return false, err
	}
	first := msgs[0]
	if !collectable(msgs, cfg) {
		return false, nil
	}
	snap, err := p.Store.Load(ctx, first.SessionKey, first.ID)
	if err != nil {
		return false, fmt.Errorf("load session %s: %w", first.SessionKey, err)
	}
	mode := cfg.QueueMode(first.Channel, entryQueueMode(snap.Entry))
	if snap.Receipt != nil || snap.Stop.Active(first.ID, p.Now().UnixMilli()) || (mode != config.QueueCollect && mode != config.QueueSteer) {
		return false, nil
	}
	merged := first
	merged.Text = combinedPrompt(msgs, cfg.Messages.Queue)
	merged.Attachments = nil
	for _, m := range msgs {
		merged.Attachments = append(merged.Attachments, m.Attachments...)
	}
	p.log().InfoContext(ctx, "collecting queued messages into one turn", "session", first.SessionKey, "messages", len(msgs))
	err = p.handle(ctx, merged, attempts[0], msgs[1:], &snap)
	if fault.Is(err, fault.Conflict) {
		p.log().WarnContext(ctx, "collected turn conflicted; one turn each instead", "session", first.SessionKey, "err", err)
		return false, nil
	}
	return err == nil, err
}

func entryQueueMode(e *session.Entry) string {
	if e == nil {
		return ""
	}
	return e.QueueMode
}

// combinedPrompt is the one prompt of collected messages, each marked
// with its place, within the queue's cap: beyond it the drop policy keeps
// the newest (old), the oldest (new), or the newest with a one-line
// mention of each dropped message (summarize).
func combinedPrompt(msgs []inbound.Message, q config.Queue) string {
	keep, dropped := msgs, []inbound.Message(nil)
	if capacity := max(q.Cap, 1); len(msgs) > capacity {
		switch q.Drop {
		case config.DropNew:
			keep, dropped = msgs[:capacity], msgs[capacity:]
		default: // old, summarize
			keep, dropped = msgs[len(msgs)-capacity:], msgs[:len(msgs)-capacity]
		}
	}
	var b strings.Builder
	b.WriteString("[Queued messages while agent was busy]")
	if len(dropped) > 0 && q.Drop == config.DropSummarize {
		fmt.Fprintf(&b, "\n\n[%d earlier queued messages were dropped:", len(dropped))
		for _, m := range dropped {
			fmt.Fprintf(&b, "\n- %s", clip(m.Text, 80))
		}
		b.WriteString("]")
	}
	for i, m := range keep {
		fmt.Fprintf(&b, "\n\n---\nQueued #%d\n%s", i+1, m.Text)
	}
	return b.String()
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// setQueueMode handles /queue [mode]: shows the session's mode, or sets it
// ("default" returns to the config's).
func (p *Processor) setQueueMode(t *turnState, e *session.Entry) string {
	arg := t.cmd.arg
	switch {
	case arg == "":
		source := "from zero.json"
		if e.QueueMode != "" {
			source = "set for this session"
		}
		return fmt.Sprintf("Queue mode: %s (%s). Modes: %s, or default.", t.cfg.QueueMode(e.Channel, e.QueueMode), source, strings.Join(config.QueueModes, ", "))
	case arg == "default":
		e.QueueMode = ""
		return "Queue mode: back to zero.json's (" + t.cfg.QueueMode(e.Channel, "") + ")."
	case slices.Contains(config.QueueModes, arg):
		e.QueueMode = arg
		return "Queue mode for this session: " + arg + "."
	}
	return "Usage: /queue [" + strings.Join(config.QueueModes, " | ") + " | default]"
}
