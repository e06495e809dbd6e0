// Package compaction is the rules of compacting a session's model
// context: which messages a compaction keeps (the last KeepTurns user
// turns), the summariser's request, the context after a compaction line
// (Apply) and after a whole transcript (ContextOf), the old tool results
// a model request leaves out (Prune), the oversized messages it shortens
// (FitWindow, Shorten) and the rough token count used before a model
// reports usage (EstimateTokens). The turn engine runs a compaction: its
// hooks, run events and transcript part are the engine's.
package compaction

import (
	"context"
	"fmt"
	"strings"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/transcript"
)

// KeepTurns is how many of the most recent user turns a compaction keeps
// verbatim; everything before them is summarised.
const KeepTurns = 2

// maxSummaryInput bounds the conversation text sent to the summariser
// (its newest part is kept): the summariser has a window too.
const maxSummaryInput = 400_000

const system = "You compact conversations. Summarise the conversation you are given so that an assistant can continue it: " +
	"the user's goals, decisions made, facts learned, open questions and anything the user asked to remember. " +
	"Be concise and factual; write the summary only."

// Compaction is the result of compacting a context.
type Compaction struct {
	// Line is the transcript's "compaction" line; the engine sets its ID,
	// ParentID, Timestamp and SourceID when it writes it.
	Line transcript.Line
	// History is the context after it: the summary, then the kept
	// messages.
	History []model.Message
	// Dropped is how many messages were summarised.
	Dropped int
}

// New is the compaction of history whose messages before kept (KeptFrom)
// summary replaces; tokensBefore is the context's size before it.
func New(history []model.Message, kept int, summary string, tokensBefore int64) *Compaction {
	line := transcript.Line{Type: "compaction", Summary: summary, FirstKeptEntryID: history[kept].EntryID, TokensBefore: tokensBefore}
	return &Compaction{Line: line, History: Apply(history, line), Dropped: kept}
}

// Summarize asks client, on ref, for the summary of older (the messages
// a compaction replaces), steered by instructions (from /compact; ""
// for none). One model call.
func Summarize(ctx context.Context, client model.Client, ref model.Ref, older []model.Message, instructions string) (string, error) {
	prompt := render(older)
	if instructions = strings.TrimSpace(instructions); instructions != "" {
		prompt += "\n\nWhen summarising, follow these instructions: " + instructions
	}
	resp, err := client.Complete(ctx, model.Request{Model: ref.Name, System: system, Messages: []model.Message{{Role: model.User, Content: prompt}}})
	if err != nil {
		return "", fmt.Errorf("compact with %s: %w", ref, err)
	}
	return strings.TrimSpace(resp.Text), nil
}

// KeptFrom returns the index of the first message a compaction keeps:
// the start of the KeepTurns-th last user turn, so a tool call is never
// separated from its result. 0 means there is nothing before it.
func KeptFrom(history []model.Message) int {
	seen := 0
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == model.User {
			seen++
			if seen == KeepTurns {
				return i
			}
		}
	}
	return 0
}

// Apply returns the context after line: the summary as the first
// message, then msgs from the one recorded as line.FirstKeptEntryID. When
// that message is not in msgs (a context trimmed past it) only the
// summary and what follows remain.
func Apply(msgs []model.Message, line transcript.Line) []model.Message {
	out := []model.Message{{Role: model.User, Content: "Summary of the earlier conversation:\n" + line.Summary, EntryID: line.ID}}
	for i, m := range msgs {
		if m.EntryID != "" && m.EntryID == line.FirstKeptEntryID {
			return append(out, msgs[i:]...)
		}
	}
	return out
}

// Adopt returns the compaction recorded in lines (a part of messageID's,
// written by a killed attempt) over history, the context before the
// part, or nil when it holds none.
func Adopt(lines []transcript.Line, messageID string, history []model.Message) *Compaction {
	for _, l := range lines {
		if l.Type == "compaction" && l.SourceID == messageID {
			return &Compaction{Line: l, History: Apply(history, l), Dropped: max(0, KeptIndex(history, l.FirstKeptEntryID))}
		}
	}
	return nil
}

// KeptIndex is the position of the message recorded as entryID, or -1.
func KeptIndex(history []model.Message, entryID string) int {
	for i, m := range history {
		if m.EntryID == entryID {
			return i
		}
	}
	return -1
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

// EstimateTokens is a rough count (4 characters a token) for when no
// model has reported usage yet.
func EstimateTokens(msgs []model.Message) int64 {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
		for _, c := range m.ToolCalls {
			n += len(c.Name) + len(c.Arguments)
		}
	}
	return int64(n / 4)
}

// pruneKeepTurns is how many recent user turns, the new one included,
// keep their tool results in the model's request; older results are
// replaced by prunedResult.
const pruneKeepTurns = 2

// prunedResult replaces an old tool result in a request.
const prunedResult = "[old tool result pruned from the context]"

// Prune returns history with the tool results of all but the last
// pruneKeepTurns user turns (the run's own prompt counting as the newest)
// replaced by prunedResult: they are rarely needed again and often large.
// Only the request is pruned; the transcript and the stored context keep
// every result. history itself is never changed.
func Prune(history []model.Message) []model.Message {
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
