package turn

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/files"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/workspace"
)

// memoryFlushPrompt is the silent turn's prompt (upstream's pre-compaction
// memory flush): the model writes what should outlive the compaction.
const memoryFlushPrompt = "Pre-compaction memory flush: this conversation is about to be compacted, and older messages will be replaced by a summary. " +
	"Store durable memories now: append facts, decisions and the user's preferences worth keeping to memory/%s.md " +
	"(read it first if it exists) or curate MEMORY.md. Use the file tools; do not mention this to the user. " +
	"If there is nothing to store, reply with " + silentReply + "."

// silentReply is what the flush turn answers when it stored nothing; no
// flush reply is ever delivered.
const silentReply = "NO_REPLY"

// flushCallPrefix namespaces the flush's tool call ids (see scopeCallID).
const flushCallPrefix = "flush-"

// flushMemory runs the pre-compaction memory flush before an automatic
// compaction: a silent agent turn that reminds the model to write durable
// notes to its memory files. It is a restricted run (flushTools): it is
// offered only read, memory_search, memory_get and the writing file
// tools, which refuse any path but MEMORY.md and memory/**; it cannot
// message, send to or spawn sessions, schedule, change the config or
// fetch the web. It runs only when it can write (the Processor has Tools.Files
// and the tool policy allows write, edit or apply_patch). The user's
// images do not go with its prompt. Its reply and messages are
// discarded: nothing is delivered, nothing reaches the transcript or the
// context; only the files it wrote remain.
//
// It runs inside the turn's run, before the real run: its tool events
// go to the run's event stream in order (one recorder numbers both), with
// tool call ids prefixed "flush-", so they never collide with the real
// run's (a local server numbers calls "call_0", "call_1", … in every
// run). Ordinal-keyed tools (sessions_send, sessions_spawn, cron) are not
// offered, so the real run's n-th send or spawn keeps its id.
//
// Idempotent under retries: it first creates the marker
// .zero/flush/<message id> in the workspace (If-None-Match: *), and a
// retry of the same message finds it and skips the flush — at most one
// flush per message, even when an attempt died during the flush. A flush
// that fails is logged; the turn goes on to compact.
func (p *Processor) flushMemory(ctx context.Context, t *turnState, e session.Entry, history []model.Message, ref model.Ref) {
	ctx = withFlush(ctx)
	flush := *t
	flush.images = nil
	if p.Tools.Files == nil || !canWrite(p.tools(ctx, &flush, e, ref)) {
		return
	}
	agentID := session.OwnerOf(t.msg.SessionKey, e)
	claimed, err := files.NewSession(p.Tools.Files, workspace.Prefix(agentID)).Claim(ctx, flushMarker(t.msg.ID))
	if err != nil || !claimed {
		p.log().InfoContext(ctx, "memory flush skipped", "session", t.msg.SessionKey, "message", t.msg.ID, "claimed_before", !claimed && err == nil, "err", err)
		return
	}
	prompt := fmtFlushPrompt(p.Now().UTC().Format("2006-01-02"))
	out, err := p.complete(ctx, &flush, e, history, prompt, ref)
	if err != nil {
		p.log().WarnContext(ctx, "memory flush failed; compacting anyway", "session", t.msg.SessionKey, "err", err)
		return
	}
	p.log().InfoContext(ctx, "memory flush done", "session", t.msg.SessionKey, "messages", len(out.messages), "silent", out.text == silentReply)
}

// flushMarker is the claim marker of message id's flush: the id's hash,
// since ids carry characters (":") that do not belong in an object key
// (the emulator refused such a key's signature, so the flush never ran).
func flushMarker(id string) string {
	sum := sha256.Sum256([]byte(id))
	return "flush/" + hex.EncodeToString(sum[:16])
}

// canWrite reports whether tools include one that writes workspace files.
func canWrite(tools []agent.Tool) bool {
	return slices.ContainsFunc(tools, func(tl agent.Tool) bool {
		switch tl.Spec().Name {
		case "write", "edit", "apply_patch":
			return true
		}
		return false
	})
}

// fmtFlushPrompt is memoryFlushPrompt for the day date (YYYY-MM-DD).
func fmtFlushPrompt(date string) string { return fmt.Sprintf(memoryFlushPrompt, date) }

// flushKey marks the context of the memory flush's run.
type flushKey struct{}

// withFlush marks ctx as the memory flush's run: p.tools offers it
// flushTools, and its tool calls get flush-scoped ids (scopeCallID).
func withFlush(ctx context.Context) context.Context { return context.WithValue(ctx, flushKey{}, true) }

// inFlush reports whether ctx is the memory flush's run (withFlush).
func inFlush(ctx context.Context) bool {
	on, _ := ctx.Value(flushKey{}).(bool)
	return on
}

// scopeCallID is the first BeforeToolCall hook of every run: in the
// memory flush it prefixes the call's id with flushCallPrefix, so the run
// events, the plugin hooks and the AfterToolCall hooks of the flush's
// calls never share an id with the real run's. Other runs' ids are left
// as the model made them.
func scopeCallID(ctx context.Context, c *agent.ToolCall) error {
	if inFlush(ctx) && !strings.HasPrefix(c.ID, flushCallPrefix) {
		c.ID = flushCallPrefix + c.ID
	}
	return nil
}
