package turn

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/run"
)

// Defaults of DeltaBatching.
const (
	DefaultDeltaWindow = time.Second
	DefaultDeltaBytes  = 4 << 10
)

// maxDeltaTextBytes bounds the running text an assistant delta event
// carries beside its delta; past it the event carries the delta only, so
// it stays far under run.MaxDataBytes.
const maxDeltaTextBytes = 16 << 10

// DeltaBatching is how a run's streamed model text becomes assistant run
// events (data {"delta": the batch's text, "text": the model call's text
// so far}) and how often they are written: a batch is written (one
// run.Store Append, or the Start of a channel turn's record) once its
// first delta is Window old or it holds Bytes, whichever comes first, so
// a streamed answer of d seconds costs at most d/Window+1 writes however
// many tokens it has. The last batch of a call is not written on its own:
// it rides with the next write (a tool flush, the turn's commit). A call
// answered in one piece (a model that does not stream) is one batch that
// is never written early: a plain turn costs no write more.
type DeltaBatching struct {
	Window time.Duration // <= 0: DefaultDeltaWindow
	Bytes  int           // <= 0: DefaultDeltaBytes
	// Off records no deltas: the model is called without streaming.
	Off bool
}

// deltaBatcher turns one run's model text into assistant delta events.
// Safe for concurrent use; the loop calls it from one goroutine.
type deltaBatcher struct {
	rt     *runTracker
	window time.Duration
	bytes  int

	mu      sync.Mutex
	call    int             // the model call whose text is batched
	text    strings.Builder // that call's text so far
	pending strings.Builder // its text not yet in an event
	since   time.Time       // when the pending batch's first delta came
	deltas  int             // deltas in the pending batch
	pieces  int             // deltas of the call so far
}

// onText returns the loop's agent.Input.OnText for the run (nil: no
// streaming): the text goes to the delta batcher (unless cfg.Off) and to
// the block replier (when the reply is sent in blocks), writing with ctx.
func (rt *runTracker) onText(ctx context.Context, cfg DeltaBatching) func(call int, delta string) {
	if rt == nil || (cfg.Off && rt.blocks == nil) {
		return nil
	}
	if !cfg.Off {
		b := &deltaBatcher{rt: rt, window: cfg.Window, bytes: cfg.Bytes}
		if b.window <= 0 {
			b.window = DefaultDeltaWindow
		}
		if b.bytes <= 0 {
			b.bytes = DefaultDeltaBytes
		}
		rt.deltas = b
	}
	deltas, blocks := rt.deltas, rt.blocks
	return func(call int, delta string) {
		if deltas != nil {
			deltas.add(ctx, call, delta)
		}
		if blocks != nil {
			blocks.add(ctx, call, delta)
		}
	}
}

// add takes one delta of model call call.
func (b *deltaBatcher) add(ctx context.Context, call int, delta string) {
	b.mu.Lock()
	if call != b.call {
		b.emitLocked()
		b.call = call
		b.text.Reset()
		b.pieces = 0
	}
	now := b.rt.now()
	if b.deltas == 0 {
		b.since = now
	}
	b.pending.WriteString(delta)
	b.text.WriteString(delta)
	b.deltas++
	b.pieces++
	due := b.deltas > 1 && (now.Sub(b.since) >= b.window || b.pending.Len() >= b.bytes) && !maybeSilent(b.text.String())
	if due {
		b.emitLocked()
	}
	b.mu.Unlock()
	if due {
		b.rt.flush(ctx)
	}
}

// emit records the pending batch as an event (not written: the next
// flush or the commit writes it), before the events that follow the
// text: a tool call's start, the run's end.
func (b *deltaBatcher) emit() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.emitLocked()
}

// emitLocked records the pending batch, unless the call's text is the
// silent token (agent.SilentToken), which is never shown, not even in
// part, or came in one piece (a model that does not stream): that is no
// delta, and the run's final assistant event carries the reply.
func (b *deltaBatcher) emitLocked() {
	if b.pending.Len() == 0 {
		return
	}
	if !silentText(b.text.String()) && b.pieces > 1 {
		data := map[string]any{"delta": b.pending.String()}
		if b.text.Len() <= maxDeltaTextBytes {
			data["text"] = b.text.String()
		}
		b.rt.rec.Emit(run.StreamAssistant, data)
	}
	b.pending.Reset()
	b.deltas = 0
}

// maybeSilent reports whether text may still become the silent token: a
// batch is held while it does.
func maybeSilent(text string) bool {
	return strings.HasPrefix(agent.SilentToken, strings.TrimSpace(text))
}

// silentText reports whether text is the silent token.
func silentText(text string) bool { return strings.TrimSpace(text) == agent.SilentToken }
