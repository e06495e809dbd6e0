package turn

import (
	"context"
	"fmt"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/transcript"
)

// compactionLine is the position transcript.EntryID uses for a turn's
// compaction line, clear of the turn's message lines (0, 1, 2, ...).
const compactionLine = 1 << 20

// keepTurns is how many of the most recent user turns a compaction keeps
// verbatim; everything before them is summarised.
const keepTurns = 2

// maxSummaryInput bounds the conversation text sent to the summariser
// (its newest part is kept): the summariser has a window too.
const maxSummaryInput = 400_000

const compactSystem = "You compact conversations. Summarise the conversation you are given so that an assistant can continue it: " +
	"the user's goals, decisions made, facts learned, open questions and anything the user asked to remember. " +
	"Be concise and factual; write the summary only."

// compaction is the result of compacting a context.
type compaction struct {
	line    transcript.Line // Type "compaction"; ID and ParentID are set by lines()
	history []model.Message // the context after it: the summary, then the kept messages
	dropped int             // messages summarised
}

// compact summarises history before its last keepTurns user turns with one
// model call. It returns nil when there is nothing old enough to compact.
// instructions (from /compact) steer the summary.
func (p *Processor) compact(ctx context.Context, t *turnState, ref model.Ref, history []model.Message, instructions string, tokensBefore int64) (*compaction, error) {
	k := keptFrom(history)
	if k <= 0 {
		return nil, nil
	}
	if tokensBefore <= 0 {
		tokensBefore = estimateTokens(history)
	}
	ev := CompactionEvent{SessionKey: t.msg.SessionKey, TokensBefore: tokensBefore, Manual: t.cmd.name == "/compact"}
	for _, h := range p.Hooks.BeforeCompaction {
		h(ctx, ev)
	}
	t.run.compaction(run.PhaseStart, map[string]any{"tokensBefore": tokensBefore, "manual": ev.Manual})
	client, ok := p.Models[ref.Provider]
	if !ok {
		return nil, fault.New(fault.Invalid, "cannot compact: no %s provider configured", ref.Provider)
	}
	prompt := render(history[:k])
	if instructions = strings.TrimSpace(instructions); instructions != "" {
		prompt += "\n\nWhen summarising, follow these instructions: " + instructions
	}
	resp, err := client.Complete(ctx, model.Request{Model: ref.Name, System: compactSystem, Messages: []model.Message{{Role: model.User, Content: prompt}}})
	if err != nil {
		return nil, fmt.Errorf("compact with %s: %w", ref, err)
	}
	summary := strings.TrimSpace(resp.Text)
	ev.Summary = summary
	for _, h := range p.Hooks.AfterCompaction {
		h(ctx, ev)
	}
	t.run.compaction(run.PhaseEnd, map[string]any{"tokensBefore": tokensBefore, "summary": summary})
	line := transcript.Line{Type: "compaction", Summary: summary, FirstKeptEntryID: history[k].EntryID, TokensBefore: tokensBefore}
	return &compaction{line: line, history: applyCompaction(history, line), dropped: k}, nil
}

// keptFrom returns the index of the first message a compaction keeps: the
// start of the keepTurns-th last user turn, so a tool call is never
// separated from its result. 0 means there is nothing before it.
func keptFrom(history []model.Message) int {
	seen := 0
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == model.User {
			seen++
			if seen == keepTurns {
				return i
			}
		}
	}
	return 0
}

// applyCompaction returns the context after line: the summary as the first
// message, then msgs from the one recorded as line.FirstKeptEntryID. When
// that message is not in msgs (a context trimmed past it) only the summary
// and what follows remain.
func applyCompaction(msgs []model.Message, line transcript.Line) []model.Message {
	out := []model.Message{{Role: model.User, Content: "Summary of the earlier conversation:\n" + line.Summary, EntryID: line.ID}}
	for i, m := range msgs {
		if m.EntryID != "" && m.EntryID == line.FirstKeptEntryID {
			return append(out, msgs[i:]...)
		}
	}
	return out
}

// render writes messages as plain text for the summariser.
func render(msgs []model.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case model.ToolResult:
			fmt.Fprintf(&b, "[result of %s]: %s\n", m.ToolName, m.Content)
		default:
			if m.Content != "" {
				fmt.Fprintf(&b, "%s: %s\n", m.Role, m.Content)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "[%s calls %s with %s]\n", m.Role, c.Name, c.Arguments)
			}
		}
	}
	s := b.String()
	if len(s) > maxSummaryInput {
		s = s[len(s)-maxSummaryInput:]
	}
	return s
}

// estimateTokens is a rough count (4 characters a token) for when no model
// has reported usage yet.
func estimateTokens(msgs []model.Message) int64 {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
		for _, c := range m.ToolCalls {
			n += len(c.Name) + len(c.Arguments)
		}
	}
	return int64(n / 4)
}

// compactCommand runs /compact [instructions]: it compacts the context now
// and records the compaction as the turn's transcript part, create-only,
// at the first free seq past the entry: orphan parts on the way (messages
// whose commit never landed, see orphans) are absorbed, the compaction
// keeping their messages after the summary. A retry adopts the part its
// predecessor wrote. The answer is a command reply; with too little
// history it compacts nothing, writes nothing and says so (orphans are
// then left to the next turn).
func (p *Processor) compactCommand(ctx context.Context, t *turnState, e session.Entry, history []model.Message, path string, attempt int) (turnOutput, error) {
	m := t.msg
	o := newOrphans(path, e, history)
	var own []transcript.Line
	var err error
	if attempt > 1 {
		if own, err = p.claim(ctx, m.ID, o); err != nil {
			return turnOutput{}, err
		}
	}
	var c *compaction
	if own == nil {
		if c, err = p.compact(ctx, t, p.modelFor(t.cfg, e), o.history, t.cmd.rest, e.TotalTokens); err != nil {
			return turnOutput{}, err
		}
		if c == nil {
			return turnOutput{command: true, text: "Nothing to compact yet: the conversation is only a few turns long."}, nil
		}
		own, err = p.place(ctx, m.ID, o, func(seq int64, parent string) []any {
			c.line.ID, c.line.SourceID, c.line.Timestamp, c.line.ParentID = transcript.EntryID(m.ID, compactionLine), m.ID, transcript.Timestamp(p.Now()), nil
			if parent != "" {
				c.line.ParentID = &parent
			}
			if seq == 1 {
				return []any{transcript.Header{Type: "session", Version: 3, ID: e.SessionID, Timestamp: c.line.Timestamp, Cwd: "agents/" + e.AgentID + "/workspace"}, c.line}
			}
			return []any{c.line}
		})
		if err != nil {
			return turnOutput{}, err
		}
	}
	if own != nil {
		if c = adoptCompaction(own, m.ID, o.history); c == nil {
			return turnOutput{}, fault.New(fault.Internal, "transcript part %d of %s holds no compaction of %s", o.seq, path, m.ID)
		}
	} else if len(o.sources) > 0 {
		c.dropped = max(0, keptIndex(o.history, c.line.FirstKeptEntryID)) // counted as a retry counts it
	}
	c.history = applyCompaction(o.history, c.line)
	out := turnOutput{command: true, compaction: c, text: fmt.Sprintf(
		"Compacted: %d earlier messages are now a summary (about %d tokens before); the last %d turns are kept as they were.",
		c.dropped, c.line.TokensBefore, keepTurns)}
	o.into(&out)
	return out, nil
}

// adoptCompaction returns the compaction recorded in lines (a part of
// messageID's, written by a killed attempt) over history, the context
// before the part, or nil when it holds none.
func adoptCompaction(lines []transcript.Line, messageID string, history []model.Message) *compaction {
	for _, l := range lines {
		if l.Type == "compaction" && l.SourceID == messageID {
			return &compaction{line: l, history: applyCompaction(history, l), dropped: max(0, keptIndex(history, l.FirstKeptEntryID))}
		}
	}
	return nil
}

// keptIndex is the position of the message recorded as entryID, or -1.
func keptIndex(history []model.Message, entryID string) int {
	for i, m := range history {
		if m.EntryID == entryID {
			return i
		}
	}
	return -1
}

// pruneKeepTurns is how many recent user turns, the new one included,
// keep their tool results in the model's request; older results are
// replaced by a stub.
const pruneKeepTurns = 2

// prunedResult replaces an old tool result in a request.
const prunedResult = "[old tool result pruned from the context]"

// pruneToolResults returns history with the tool results of all but the
// last pruneKeepTurns user turns replaced by a stub: they are rarely needed
// again and often large. Only the request is pruned; the transcript and the
// stored context keep every result.
func pruneToolResults(history []model.Message) []model.Message {
	// The run's own prompt is the newest turn; find where the history's
	// share of the kept turns begins.
	cut, seen := -1, 0
	for i := len(history) - 1; i >= 0 && seen < pruneKeepTurns-1; i-- {
		if history[i].Role == model.User {
			seen++
			cut = i
		}
	}
	if cut <= 0 {
		return history
	}
	var out []model.Message
	for i, m := range history {
		if i < cut && m.Role == model.ToolResult && m.Content != prunedResult {
			if out == nil {
				out = append([]model.Message(nil), history...)
			}
			out[i].Content = prunedResult
		}
	}
	if out == nil {
		return history
	}
	return out
}
