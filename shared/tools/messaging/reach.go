package messaging

import (
	"encoding/json"
	"strings"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/tools"
)

// Reach is the reach of a message call: nothing when it acts on the
// run's own chat (the session's channel and chat, its default), other
// chats when it names another channel or target — or any target at all
// from a run with no chat of its own (a hook, a cron job, an API run).
func Reach(run tools.Run, raw json.RawMessage) tools.Reach {
	var a struct {
		Channel string `json:"channel"`
		Target  string `json:"target"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return 0 // the tool refuses the arguments itself
	}
	own := run.Entry.DeliveryContext
	bound := own.Channel != "" && own.Channel != inbound.Internal && own.To != ""
	channel, target := strings.ToLower(strings.TrimSpace(a.Channel)), strings.TrimSpace(a.Target)
	switch {
	case !bound && target == "" && channel == "":
		return 0 // nothing named: the tool answers that the run has no chat
	case !bound:
		return tools.ReachChats
	case channel != "" && channel != own.Channel:
		return tools.ReachChats
	case target != "" && target != own.To:
		return tools.ReachChats
	}
	return 0
}
