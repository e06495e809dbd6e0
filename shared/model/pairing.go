package model

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
)

// MissingToolResult is the content of the error result RepairToolPairs
// adds for a tool call that has none in the history (the run was stopped,
// or the result was lost): every provider refuses an unanswered call.
const MissingToolResult = "[no result recorded for this tool call]"

// ValidToolPairs reports whether msgs hold the tool-call pairing every
// provider requires, the rule RepairToolPairs restores:
//   - an assistant message with ToolCalls is followed immediately by one
//     toolResult message per distinct call id, in any order, and nothing
//     else before them;
//   - no other toolResult message exists: each one answers, once, a call
//     of the assistant message right before its run of results.
//
// Ids are compared as given (the empty id included); repeated ids within
// one assistant message count as one call. The error names the first
// problem by message index, tool name and id, never by content, so it may
// be logged.
func ValidToolPairs(msgs []Message) error {
	for i := 0; i < len(msgs); {
		m := msgs[i]
		switch {
		case m.Role == ToolResult:
			return fmt.Errorf("message %d: tool result of %s (%s) does not follow the assistant message that called it", i, m.ToolName, m.ToolCallID)
		case m.Role == Assistant && len(m.ToolCalls) > 0:
			next, err := checkAnswers(msgs, i)
			if err != nil {
				return err
			}
			i = next
		default:
			i++
		}
	}
	return nil
}

// checkAnswers checks the run of toolResult messages right after the
// assistant message msgs[i] and returns the index after the run.
func checkAnswers(msgs []Message, i int) (int, error) {
	pending := map[string]bool{}
	for _, c := range msgs[i].ToolCalls {
		pending[c.ID] = true
	}
	j := i + 1
	for ; j < len(msgs) && msgs[j].Role == ToolResult; j++ {
		r := msgs[j]
		if !pending[r.ToolCallID] {
			return 0, fmt.Errorf("message %d: tool result of %s (%s) answers no unanswered call of message %d", j, r.ToolName, r.ToolCallID, i)
		}
		delete(pending, r.ToolCallID)
	}
	if len(pending) > 0 {
		var ids []string
		for _, c := range msgs[i].ToolCalls {
			if pending[c.ID] {
				ids = append(ids, c.ID)
				delete(pending, c.ID)
			}
		}
		return 0, fmt.Errorf("message %d: tool calls %s have no result right after them", i, strings.Join(ids, ", "))
	}
	return j, nil
}

// RepairToolPairs returns msgs with the tool-call pairing ValidToolPairs
// checks restored, and how many messages it had to convert, add or move
// (fixes). A valid history comes back as the very slice given, fixes 0;
// otherwise the result is a new slice and msgs is left untouched.
//
// A toolResult belongs to the nearest assistant message before it, looking
// back past user messages and other results but not past another assistant
// message. Within that turn:
//   - a result that answers a call not yet answered is moved to the run
//     right after the assistant message (after the results already there,
//     in the order found): a user message that arrived while the tool ran
//     now follows the results;
//   - a call with no result gets a synthetic one (IsError, content
//     MissingToolResult), after the turn's real results, in call order.
//
// Any other result (no assistant message before it, an assistant message
// without that call, or a second answer to a call) is an orphan: it
// becomes a user message telling the result as text, in its place, so
// what the tool said is never silently dropped.
//
// The function is pure: it logs nothing and the output always passes
// ValidToolPairs, so repairing twice changes nothing the second time.
func RepairToolPairs(msgs []Message) (repaired []Message, fixes int) {
	out := make([]Message, 0, len(msgs))
	for i := 0; i < len(msgs); {
		m := msgs[i]
		switch {
		case m.Role == Assistant && len(m.ToolCalls) > 0:
			end := turnEnd(msgs, i)
			turn, n := repairTurn(msgs[i:end])
			out, fixes = append(out, turn...), fixes+n
			i = end
		case m.Role == ToolResult:
			out, fixes = append(out, orphanText(m)), fixes+1
			i++
		default:
			out = append(out, m)
			i++
		}
	}
	if fixes == 0 {
		return msgs, 0
	}
	return out, fixes
}

// turnEnd is the index of the first assistant message after msgs[i], or
// len(msgs): the end of the turn whose results msgs[i] may receive.
func turnEnd(msgs []Message, i int) int {
	for j := i + 1; j < len(msgs); j++ {
		if msgs[j].Role == Assistant {
			return j
		}
	}
	return len(msgs)
}

// repairTurn repairs one turn: turn[0] is an assistant message with tool
// calls, the rest holds no assistant message. It returns the assistant
// message, its results (found, then synthetic), then the turn's other
// messages in order with orphan results told as text.
func repairTurn(turn []Message) ([]Message, int) {
	calls := turn[0].ToolCalls
	pending := make(map[string]bool, len(calls))
	for _, c := range calls {
		pending[c.ID] = true
	}
	var results, others []Message
	fixes := 0
	for _, m := range turn[1:] {
		switch {
		case m.Role == ToolResult && pending[m.ToolCallID]:
			delete(pending, m.ToolCallID)
			if len(others) > 0 {
				fixes++ // moved up, past a user message or an orphan
			}
			results = append(results, m)
		case m.Role == ToolResult:
			others, fixes = append(others, orphanText(m)), fixes+1
		default:
			others = append(others, m)
		}
	}
	for _, c := range calls {
		if pending[c.ID] {
			delete(pending, c.ID)
			results = append(results, Message{Role: ToolResult, ToolCallID: c.ID, ToolName: c.Name, IsError: true, Content: MissingToolResult})
			fixes++
		}
	}
	out := make([]Message, 0, 1+len(results)+len(others))
	out = append(out, turn[0])
	out = append(out, results...)
	return append(out, others...), fixes
}

// orphanText is an orphan tool result told as a user message:
// "[tool result of <name> (<id>)]: <content>" ("tool error" when IsError).
func orphanText(m Message) Message {
	kind := "tool result"
	if m.IsError {
		kind = "tool error"
	}
	name := m.ToolName
	if name == "" {
		name = "a tool"
	}
	return Message{Role: User, EntryID: m.EntryID,
		Content: fmt.Sprintf("[%s of %s (%s)]: %s", kind, name, m.ToolCallID, m.Content)}
}

// PairedMessages is req.Messages as an adapter sends them to provider (its
// name, for the log): it fails with fault.Invalid on a tool call or tool
// result without an id, which cannot be paired (the message names the
// message index as given); otherwise it returns RepairToolPairs's result.
// When it repaired something it logs a warning with slog.Default naming
// the provider, the model, the number of fixes and ValidToolPairs's first
// problem: indexes, tool names and ids, never message content.
func PairedMessages(provider string, req Request) ([]Message, error) {
	if err := checkToolIDs(req.Messages); err != nil {
		return nil, err
	}
	msgs, fixes := RepairToolPairs(req.Messages)
	if fixes > 0 {
		slog.Default().Warn("model: repaired the tool call pairing of a request before sending it",
			"provider", provider, "model", req.Model, "fixes", fixes, "problem", fmt.Sprint(ValidToolPairs(req.Messages)))
	}
	return msgs, nil
}

// checkToolIDs fails with fault.Invalid on the first assistant tool call
// or toolResult message without an id.
func checkToolIDs(msgs []Message) error {
	for i, m := range msgs {
		switch m.Role {
		case Assistant:
			for j, c := range m.ToolCalls {
				if c.ID == "" {
					return fault.New(fault.Invalid, "message %d: tool call %d (%s) has no id", i, j, c.Name)
				}
			}
		case ToolResult:
			if m.ToolCallID == "" {
				return fault.New(fault.Invalid, "message %d: tool result for %q has no tool call id", i, m.ToolName)
			}
		}
	}
	return nil
}
