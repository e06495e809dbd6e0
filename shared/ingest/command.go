package ingest

import (
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/inbound"
)

// addressed returns m with an addressed command made plain. A slash
// command may name the bot it is for, "/stop@ZeroBot" (Telegram's form,
// which clients add in groups). The rule:
//
//   - in a direct chat the command is this bot's whatever the name (no
//     other bot reads the chat): "@name" is dropped;
//   - in a group or channel it is this bot's only when name is
//     channels.<channel>.botUsername (any case): "@name" is dropped;
//     with no username configured, no addressed group command is;
//   - otherwise the text is left as it is. Neither the runner's command
//     parser nor stopmark.IsCommand reads an "@name" form, so a command
//     for another bot ("/stop@OtherBot") is plain text: it stops nothing
//     and runs no command.
//
// Only ordinary messages (no Kind) are read.
func addressed(cfg *config.Config, m inbound.Message) inbound.Message {
	if m.Kind != "" {
		return m
	}
	start := len(m.Text) - len(strings.TrimLeft(m.Text, " \n\t\r"))
	end := start + strings.IndexAny(m.Text[start:]+" ", " \n\t\r")
	head := m.Text[start:end]
	at := strings.IndexByte(head, '@')
	if !strings.HasPrefix(head, "/") || at < 2 {
		return m
	}
	if m.ChatType != inbound.Direct && !ours(cfg.BotUsername(m.Channel), head[at+1:]) {
		return m
	}
	m.Text = m.Text[:start] + head[:at] + m.Text[end:]
	return m
}

// ours reports whether name is the configured username (any case); with
// none configured, nothing is.
func ours(username, name string) bool {
	return username != "" && strings.EqualFold(username, name)
}
