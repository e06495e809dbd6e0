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
// and records the compaction as the turn's transcript part (create-only; a
// retry adopts the part its predecessor wrote). The answer is a command
// reply; with too little history it compacts nothing and says so.
func (p *Processor) compactCommand(ctx context.Context, t *turnState, e session.Entry, history []model.Message, path string, attempt int) (turnOutput, error) {
	m := t.msg
	seq := e.TranscriptSeq + 1
	done := func(c *compaction) turnOutput {
		return turnOutput{command: true, compaction: c, text: fmt.Sprintf(
			"Compacted: %d earlier messages are now a summary (about %d tokens before); the last %d turns are kept as they were.",
			c.dropped, c.line.TokensBefore, keepTurns)}
	}
	if attempt > 1 {
		if c, err := p.adoptCompaction(ctx, path, seq, m.ID, history); err != nil || c != nil {
			if c != nil {
				return done(c), nil
			}
			return turnOutput{}, err
		}
	}
	c, err := p.compact(ctx, t, p.modelFor(t.cfg, e), history, t.cmd.rest, e.TotalTokens)
	if err != nil {
		return turnOutput{}, err
	}
	if c == nil {
		return turnOutput{command: true, text: "Nothing to compact yet: the conversation is only a few turns long."}, nil
	}
	line := c.line
	line.ID, line.SourceID, line.Timestamp = transcript.EntryID(m.ID, compactionLine), m.ID, transcript.Timestamp(p.Now())
	if e.LastEntryID != "" {
		parent := e.LastEntryID
		line.ParentID = &parent
	}
	var lines []any
	if seq == 1 {
		lines = append(lines, transcript.Header{Type: "session", Version: 3, ID: e.SessionID, Timestamp: line.Timestamp, Cwd: "agents/" + e.AgentID + "/workspace"})
	}
	switch err := p.Transcript.WritePart(ctx, path, seq, append(lines, line)); {
	case fault.Is(err, fault.Conflict):
		adopted, err := p.adoptCompaction(ctx, path, seq, m.ID, history)
		if err != nil {
			return turnOutput{}, err
		}
		if adopted == nil {
			return turnOutput{}, fault.New(fault.Conflict, "transcript part %d of %s belongs to another message", seq, path)
		}
		c = adopted
	case err != nil:
		return turnOutput{}, fmt.Errorf("write transcript part %d: %w", seq, err)
	default:
		c.line = line
		c.history = applyCompaction(history, line)
	}
	return done(c), nil
}

// adoptCompaction returns the compaction recorded in part seq for
// messageID, or nil when the part does not exist or is another message's.
func (p *Processor) adoptCompaction(ctx context.Context, path string, seq int64, messageID string, history []model.Message) (*compaction, error) {
	lines, err := p.Transcript.Part(ctx, path, seq)
	if fault.Is(err, fault.NotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read transcript part %d: %w", seq, err)
	}
	for _, l := range lines {
		if l.Type == "compaction" && l.SourceID == messageID {
			return &compaction{line: l, history: applyCompaction(history, l), dropped: max(0, keptIndex(history, l.FirstKeptEntryID))}, nil
		}
	}
	return nil, nil
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
