package turn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/blockchunk"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/delivery"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools/messaging"
	"github.com/zero-gateway/zero/shared/webchat"
)

// phaseBlock marks the assistant event that records a block sent to the
// chat: the turn's ledger of blocks, read back by a retry.
const phaseBlock = "block"

// blockReplier sends a channel turn's reply in blocks while the model
// writes it (agents.defaults.blockStreamingDefault "on"), cut by
// blockchunk. Exactly once on at-least-once delivery:
//   - each block is recorded after the chat took it, as an assistant event
//     {"phase":"block","call","index"} written at once (one run store
//     write, carrying the pending events too); a retry reads these and
//     skips as many blocks of each model call, so a crash mid-answer
//     repeats none (a model that answers the retry differently continues
//     from the same place: the user sees no block twice);
//   - the committed record keeps the final answer's text already sent
//     (Receipt.Streamed) and the reply step sends only the rest;
//   - a block is held while the model call's text may still be the
//     silent token or a repeat of what the message tool sent (what reply
//     shaping would drop), so neither leaks even in part.
//
// Text of a model call that ends in tool calls is sent whole at that
// point; the last call's rest goes with the reply. A send that fails
// stops the block sending (the reply step sends what is left).
// Safe for concurrent use.
type blockReplier struct {
	p      *Processor
	rt     *runTracker
	sender Sender
	to     session.DeliveryContext
	msg    inbound.Message
	rule   blockchunk.Rule
	atEnd  bool        // message_end: no block before a call ends
	before map[int]int // blocks an earlier attempt sent, by model call

	mu       sync.Mutex
	call     int
	text     string          // the call's text so far
	used     int             // bytes of text cut into blocks
	index    int             // blocks of the call cut so far
	sent     strings.Builder // text of the call's blocks sent (or sent before)
	ended    bool            // the call ended in tool calls
	toolSent []string        // texts the message tool sent to this chat
	broken   bool            // a send failed: no more blocks
	parts    int             // chat messages the blocks took, all calls
}

// blockReplier returns the turn's block replier, nil when the reply is
// not sent in blocks: the option is off, the reply goes nowhere (internal,
// WebChat, no sender, withheld by the send policy), or there is no run
// ledger.
func (p *Processor) blockReplier(ctx context.Context, t *turnState, e session.Entry, attempt int) (*blockReplier, error) {
	bs := t.cfg.Agents.Defaults.BlockStreaming
	to := e.DeliveryContext
	sender, ok := p.Senders[to.Channel]
	if !bs.On || !ok || t.run == nil || to.Channel == inbound.Internal || to.Channel == webchat.Channel ||
		!t.cfg.SendPolicy().Allows(t.msg.SessionKey, e.Channel, e.ChatType, e.SendPolicy) {
		return nil, nil
	}
	if m := t.msg; m.ReplyToken != "" && m.Channel == to.Channel {
		// The message's reply handle (a Discord interaction token), as
		// the commit gives the reply: the entry never keeps it.
		to.ReplyToken, to.ReplyTokenAt = m.ReplyToken, m.ReceivedAt
	}
	b := &blockReplier{p: p, rt: t.run, sender: sender, to: to, msg: t.msg, atEnd: bs.Break == config.BreakMessageEnd,
		rule: blockchunk.Rule{Min: bs.Chunk.MinChars, Max: bs.Chunk.MaxChars, Preference: bs.Chunk.Preference}}
	if attempt > 1 {
		before, err := blocksSent(ctx, p.Runs, t.run.record.RunID)
		if err != nil {
			return nil, err
		}
		b.before = before
	}
	return b, nil
}

// blocksSent reads a run's ledger: how many blocks of each model call
// went out.
func blocksSent(ctx context.Context, rs run.Store, runID string) (map[int]int, error) {
	reader, ok := rs.(run.Reader)
	if !ok {
		return nil, nil
	}
	sent := map[int]int{}
	for after := int64(0); ; {
		evs, err := reader.Events(ctx, runID, after, run.MaxLimit)
		if err != nil {
			return nil, fmt.Errorf("read the blocks run %s sent: %w", runID, err)
		}
		for _, ev := range evs {
			after = ev.Seq
			var d struct {
				Phase       string
				Call, Index int
			}
			if ev.Stream == run.StreamAssistant && json.Unmarshal(ev.Data, &d) == nil && d.Phase == phaseBlock {
				sent[d.Call] = max(sent[d.Call], d.Index+1)
			}
		}
		if len(evs) < run.MaxLimit {
			return sent, nil
		}
	}
}

// add takes a delta of model call call and sends the blocks it completes.
func (b *blockReplier) add(ctx context.Context, call int, delta string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if call != b.call {
		b.call, b.text, b.used, b.index, b.ended = call, "", 0, 0, false
		b.sent.Reset()
	}
	b.text += delta
	if !b.atEnd {
		b.sendLocked(ctx, false)
	}
}

// endCall sends the rest of a model call that ends in tool calls.
func (b *blockReplier) endCall(ctx context.Context) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.ended && b.call > 0 {
		b.sendLocked(ctx, true)
		b.ended = true
	}
}

// toolResult notes text the message tool sent to the session's own chat.
func (b *blockReplier) toolResult(c agent.ToolCall, r agent.ToolResult) {
	if b == nil || c.Name != messaging.Name || r.IsError {
		return
	}
	if text := messaging.SentOwnText(string(c.Args), r.Text); text != "" {
		b.mu.Lock()
		b.toolSent = append(b.toolSent, text)
		b.mu.Unlock()
	}
}

// streamed is the final answer's text already sent in blocks ("" when
// none: what the reply step does not send again) and the chat messages
// all blocks took (where the reply's part numbers start).
func (b *blockReplier) streamed() (string, int) {
	if b == nil {
		return "", 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended {
		return "", b.parts
	}
	return b.sent.String(), b.parts
}

// sendLocked cuts the call's text and sends its new blocks.
func (b *blockReplier) sendLocked(ctx context.Context, final bool) {
	if b.held() {
		return
	}
	blocks, _ := blockchunk.Cut(b.text[b.used:], b.rule, final)
	for _, block := range blocks {
		if b.index < b.before[b.call] {
			b.parts++ // sent by an earlier attempt (as one message, as a rule)
		} else if !b.send(ctx, b.index, block) {
			return
		}
		b.used += len(block)
		b.index++
		b.sent.WriteString(block)
	}
}

// held reports whether the call's text may still be one reply shaping
// drops: the silent token, or text the message tool already sent.
func (b *blockReplier) held() bool {
	if b.broken || maybeSilent(b.text) {
		return true
	}
	text := strings.TrimSpace(b.text)
	for _, s := range b.toolSent {
		if strings.HasPrefix(s, text) {
			return true
		}
	}
	return false
}

// send posts block index of the call (through the message_sending hooks)
// and records it in the ledger; false when the block could not go out.
func (b *blockReplier) send(ctx context.Context, index int, block string) bool {
	o := Outgoing{SessionKey: b.msg.SessionKey, MessageID: b.msg.ID, Channel: b.to.Channel, To: b.to.To, Text: strings.TrimSpace(block)}
	for _, h := range b.p.Hooks.MessageSending {
		h(ctx, &o)
	}
	for _, m := range b.sender.Render(o.Text) {
		// Parts number on across blocks and the reply: Discord edits its
		// deferred response with part 0 only.
		if err := delivery.Post(ctx, b.sender, b.to, b.parts, m); err != nil {
			b.broken = true
			b.p.log().WarnContext(ctx, "a reply block could not be sent; the reply step sends the rest", "message", b.msg.ID, "err", err)
			return false
		}
		b.parts++
	}
	b.rt.rec.Emit(run.StreamAssistant, map[string]any{"phase": phaseBlock, "call": b.call, "index": index, "chars": len(o.Text)})
	b.rt.flush(ctx)
	return true
}

// unsent is reply without the part already sent in blocks.
func unsent(reply, streamed string) string {
	covered := strings.TrimSpace(streamed)
	if covered == "" {
		return reply
	}
	if i := strings.Index(reply, covered); i >= 0 {
		return strings.TrimSpace(reply[:i] + reply[i+len(covered):])
	}
	return reply
}

// replayBlocks runs a recorded run's answer (a retry that adopts it)
// through the block replier as if it streamed: blocks an earlier attempt
// sent are skipped, the others go out as they would have, so the reply
// step then sends only what no block covered.
func (rt *runTracker) replayBlocks(ctx context.Context, msgs []model.Message) {
	if rt == nil || rt.blocks == nil {
		return
	}
	last := -1 // the final answer: its calls, if any, were not run (the iteration bound)
	for i, m := range msgs {
		if m.Role == model.Assistant {
			last = i
		}
	}
	call := 0
	for i, m := range msgs {
		if m.Role != model.Assistant {
			continue
		}
		call++
		if m.Content != "" {
			rt.blocks.add(ctx, call, m.Content)
		}
		if len(m.ToolCalls) > 0 && i != last {
			rt.blocks.endCall(ctx)
		}
	}
}
