package turn

import (
	"context"
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// answerThink handles /think [level]:
// shows the session's thinking level, or sets it (model.ThinkingLevels;
// "default" clears the override). The level goes with every model call of
// the session's later runs (agent.Input.Thinking), in each provider's own
// field; the reasoning a model returns is recorded, and shown in the chat
// only when the session's reasoning level asks for it. The entry change
// commits with the command's turn, so a retried /think sets it once.
func answerThink(_ *Processor, _ context.Context, t *turnState, e *session.Entry) (string, error) {
	levels := strings.Join(model.ThinkingLevels, ", ")
	switch arg := t.cmd.arg; {
	case arg == "":
		return "Thinking: " + orOff(e.ThinkingLevel) + ". Levels: " + levels + ", or default.", nil
	case arg == "default":
		e.ThinkingLevel = ""
		return "Thinking: back to the default (off).", nil
	case slices.Contains(model.ThinkingLevels, arg):
		e.ThinkingLevel = arg
		if arg == model.ThinkingOff {
			return "Thinking is off for this session.", nil
		}
		return "Thinking for this session: " + arg + ".", nil
	}
	return "Usage: /think " + strings.Join(model.ThinkingLevels, " | ") + " | default", nil
}

func orOff(level string) string {
	if level == "" {
		return model.ThinkingOff
	}
	return level
}

// runThinking is a run's thinking level: the message's own (the gateway's
// agent, a hook's or a cron job's thinking) when it names a level, else
// the session's.
func runThinking(e session.Entry, m inbound.Message) string {
	if m.Thinking != "" && slices.Contains(model.ThinkingLevels, m.Thinking) {
		return m.Thinking
	}
	return e.ThinkingLevel
}
