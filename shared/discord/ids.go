package discord

import (
	"strings"

	"github.com/zero-gateway/zero/shared/chataction"
	"github.com/zero-gateway/zero/shared/fault"
)

// maxSnowflakeDigits is the length of the largest snowflake (2^64-1).
const maxSnowflakeDigits = 20

// snowflake checks id, a Discord id of kind what ("channel", "message")
// that goes into a request path: 1 to 20 decimal digits. Path escaping
// alone lets ".." through, which would send the request to another
// route.
func snowflake(what, id string) error {
	if id == "" || len(id) > maxSnowflakeDigits || strings.Trim(id, "0123456789") != "" {
		return fault.New(fault.Invalid, "discord: the %s id %q is not a Discord id (1 to %d digits)", what, id, maxSnowflakeDigits)
	}
	return nil
}

// needsMessage are the actions whose path names a.MessageID.
var needsMessage = map[string]bool{
	chataction.React: true, chataction.Reactions: true, chataction.Edit: true,
	chataction.Delete: true, chataction.Pin: true, chataction.Unpin: true,
}

// checkIDs checks every id of a before a request is made: the channel
// always, the message where the action acts on one, and the thread,
// reply, server and user ids when given; and that the emoji is not a
// dot segment.
func checkIDs(a chataction.Action) error {
	if err := snowflake("channel", a.To.To); err != nil {
		return err
	}
	if needsMessage[a.Action] || a.MessageID != "" {
		if err := snowflake("message", a.MessageID); err != nil {
			return err
		}
	}
	if a.Action == chataction.ThreadReply || a.To.ThreadID != "" {
		if err := snowflake("thread", a.To.ThreadID); err != nil {
			return err
		}
	}
	if a.Action == chataction.MemberInfo || a.UserID != "" {
		if err := snowflake("user", a.UserID); err != nil {
			return err
		}
	}
	for _, o := range []struct{ what, id string }{{"reply-to message", a.ReplyTo}, {"server", a.GuildID}} {
		if o.id == "" {
			continue
		}
		if err := snowflake(o.what, o.id); err != nil {
			return err
		}
	}
	if a.Emoji == "." || a.Emoji == ".." {
		return fault.New(fault.Invalid, "discord: %q is not an emoji", a.Emoji)
	}
	return nil
}
