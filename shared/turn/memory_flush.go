package turn

import (
	"context"
	"fmt"
	"slices"

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

// flushMemory runs the pre-compaction memory flush before an automatic
// compaction: a silent agent turn, with the run's tools, that reminds the
// model to write durable notes to memory/ files. It runs only when the
// workspace is writable for this run (the Processor has Files and the tool
// policy allows write, edit or apply_patch). Its reply and messages are
// discarded: nothing is delivered, nothing reaches the transcript or the
// context; only the files it wrote remain.
//
// Idempotent under retries: it first creates the marker
// .zero/flush/<message id> in the workspace (If-None-Match: *), and a
// retry of the same message finds it and skips the flush — at most one
// flush per message, even when an attempt died during the flush. A flush
// that fails is logged; the turn goes on to compact.
func (p *Processor) flushMemory(ctx context.Context, t *turnState, e session.Entry, history []model.Message, ref model.Ref) {
	if p.Files == nil || !canWrite(p.tools(ctx, t, e, ref)) {
		return
	}
	agentID := agentOf(t.msg.SessionKey, e)
	claimed, err := files.NewSession(p.Files, workspace.Prefix(agentID)).Claim(ctx, "flush/"+t.msg.ID)
	if err != nil || !claimed {
		p.log().InfoContext(ctx, "memory flush skipped", "session", t.msg.SessionKey, "message", t.msg.ID, "claimed_before", !claimed && err == nil, "err", err)
		return
	}
	prompt := fmtFlushPrompt(p.Now().UTC().Format("2006-01-02"))
	out, err := p.complete(ctx, t, e, history, prompt, ref)
	if err != nil {
		p.log().WarnContext(ctx, "memory flush failed; compacting anyway", "session", t.msg.SessionKey, "err", err)
		return
	}
	p.log().InfoContext(ctx, "memory flush done", "session", t.msg.SessionKey, "messages", len(out.messages), "silent", out.text == silentReply)
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
