package messaging

import (
	"encoding/json"
	"strings"

	"github.com/zero-gateway/zero/shared/chataction"
)

// SentOwnText is the trimmed text a successful message call (its
// arguments args, its result text result) sent to the session's own chat
// and topic, or "" for any other call: the answer's head says ownChat
// (messageReport). The turn engine reads it from the run's recorded
// calls, so that a reply repeating what the tool already sent is not
// sent again.
func SentOwnText(args, result string) string {
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
