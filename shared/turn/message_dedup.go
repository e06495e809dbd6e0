package turn

import (
	"encoding/json"
	"strings"

	"github.com/zero-gateway/zero/shared/chataction"
	"github.com/zero-gateway/zero/shared/model"
)

// sentByMessageTool reports whether reply, trimmed, is text the run
// already sent to the session's own chat with the message tool (a send
// that succeeded and reported ownChat). The reply step
// then does not send it again: the agent's confirmation of what it
// already said is not shown twice (duplicate suppression). It reads the
// run's recorded messages, so a retry that adopts a transcript part
// decides the same.
func sentByMessageTool(msgs []model.Message, reply string) bool {
	reply = strings.TrimSpace(reply)
	if reply == "" {
		return false
	}
	calls := map[string]string{} // call id -> arguments
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.Name == "message" {
				calls[c.ID] = c.Arguments
			}
		}
	}
	for _, m := range msgs {
		if m.Role != model.ToolResult || m.ToolName != "message" || m.IsError {
			continue
		}
		if sentOwnText(calls[m.ToolCallID], m.Content) == reply {
			return true
		}
	}
	return false
}

// sentOwnText is the trimmed text a successful message call sent to the
// session's own chat, or "".
func sentOwnText(args, result string) string {
	var a struct {
		Action string `json:"action"`
		Text   string `json:"text"`
	}
	var r messageReport
	if json.Unmarshal([]byte(args), &a) != nil || json.Unmarshal([]byte(result), &r) != nil || !r.OwnChat {
		return ""
	}
	if a.Action != chataction.Send {
		return ""
	}
	return strings.TrimSpace(a.Text)
}
