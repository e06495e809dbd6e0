package turn

import (
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools/messaging"
	"github.com/zero-gateway/zero/shared/tools/sessions"
)

// What a run's recorded tool calls change when the turn commits. Both
// read the recorded messages, so a retry that adopts a transcript part
// decides the same.

// chosenModel applies to e, the turn's own entry, what the run's
// session_status calls chose for its model: every call naming this
// session with a model whose result was not an error, in order
// (sessions.ChosenModel). The tool never writes the turn's own entry: it
// is the turn's to commit.
func chosenModel(e *session.Entry, msgs []model.Message, t *turnState) {
	succeeded := map[string]bool{}
	for _, m := range msgs {
		if m.Role == model.ToolResult && !m.IsError {
			succeeded[m.ToolCallID] = true
		}
	}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.Name != sessions.StatusName || !succeeded[c.ID] {
				continue
			}
			if ref, ok := sessions.ChosenModel(t.cfg, t.msg, *e, c.Arguments); ok {
				e.ProviderOverride, e.ModelOverride = ref.Provider, ref.Name
			}
		}
	}
}

// sentByMessageTool reports whether reply, trimmed, is text the run
// already sent to the session's own chat with the message tool (a send
// that succeeded and reported ownChat: messaging.SentOwnText). The reply
// step then does not send it again: the agent's confirmation of what it
// already said is not shown twice (duplicate suppression).
func sentByMessageTool(msgs []model.Message, reply string) bool {
	reply = strings.TrimSpace(reply)
	return reply != "" && slices.Contains(ownChatSends(msgs), reply)
}

// fallbackAfterMessageTool reports whether reply is the tool-error
// fallback (agent.ToolFailedPrefix) of a run whose message tool already
// gave the user a visible reply in the session's own chat: the seeds send
// the fallback only when the user saw nothing, so the reply step does not
// send it (the transcript and the run keep it).
func fallbackAfterMessageTool(msgs []model.Message, reply string) bool {
	return strings.HasPrefix(reply, agent.ToolFailedPrefix) && len(ownChatSends(msgs)) > 0
}

// ownChatSends are the texts the run's message tool sent, successfully,
// to the session's own chat, in order.
func ownChatSends(msgs []model.Message) []string {
	calls := map[string]string{} // call id -> arguments
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.Name == messaging.Name {
				calls[c.ID] = c.Arguments
			}
		}
	}
	var sent []string
	for _, m := range msgs {
		if m.Role != model.ToolResult || m.ToolName != messaging.Name || m.IsError {
			continue
		}
		if text := messaging.SentOwnText(calls[m.ToolCallID], m.Content); text != "" {
			sent = append(sent, text)
		}
	}
	return sent
}
