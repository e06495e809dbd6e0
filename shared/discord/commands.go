package discord

import (
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/model"
)

// Application command and option types (Discord's wire values).
const (
	CommandTypeChatInput = 1 // a slash command
	OptionTypeString     = 3
	OptionTypeAttachment = 11 // a file the user uploads with the command
)

// ApplicationCommand is a slash command as Discord's bulk overwrite
// (PUT /applications/{id}/commands) takes it.
type ApplicationCommand struct {
	Name        string          `json:"name"`
	Type        int             `json:"type"`
	Description string          `json:"description"`
	Options     []CommandOption `json:"options,omitempty"`
}

// CommandOption is one option of an ApplicationCommand.
type CommandOption struct {
	Type        int            `json:"type"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Required    bool           `json:"required,omitempty"`
	Choices     []OptionChoice `json:"choices,omitempty"`
}

// OptionChoice is one of an option's fixed values.
type OptionChoice struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// slashCommand is one row of the table: the definition Discord registers
// and the text command of the runner's registry it stands for ("" for an
// ordinary turn). The handler (Commands) and the registration
// (ApplicationCommands) both derive from it, so they cannot drift.
type slashCommand struct {
	text string
	def  ApplicationCommand
}

func stringOption(name, description string, required bool, choices ...string) CommandOption {
	o := CommandOption{Type: OptionTypeString, Name: name, Description: description, Required: required}
	for _, c := range choices {
		o.Choices = append(o.Choices, OptionChoice{Name: c, Value: c})
	}
	return o
}

func slash(name, text, description string, options ...CommandOption) slashCommand {
	return slashCommand{text: text, def: ApplicationCommand{Name: name, Type: CommandTypeChatInput, Description: description, Options: options}}
}

// commandTable is every slash command ZERO handles, in registration order.
// The handler appends the string options' values, in order, to the text
// command; an attachment option's file goes with the message instead.
var commandTable = []slashCommand{
	slash("ask", "", "Ask the agent", stringOption("message", "What to ask", true),
		CommandOption{Type: OptionTypeAttachment, Name: "image", Description: "A picture for the agent to look at (PNG, JPEG, GIF or WebP, at most 5 MB)"}),
	slash("new", "/new", "Start a new session", stringOption("message", "A first message for the new session", false)),
	slash("reset", "/reset", "Reset the session", stringOption("message", "A first message after the reset", false)),
	slash("status", "/status", "The session's status: model, tokens, queue mode"),
	slash("stop", "/stop", "Stop the running turn"),
	slash("compact", "/compact", "Compact the session's context", stringOption("instructions", "What the summary should keep", false)),
	slash("context", "/context", "What is in the agent's context", stringOption("view", "How much to show", false, "list", "detail")),
	slash("send", "/send", "Whether replies are sent in this session", stringOption("policy", "on, off, or inherit the configured policy", false, "on", "off", "inherit")),
	slash("queue", "/queue", "Show or set how messages to a busy session queue", stringOption("mode", "The queue mode, or default for zero.json's", false, append(append([]string{}, config.QueueModes...), "default")...)),
	slash("think", "/think", "Show or set how hard the model thinks in this session", stringOption("level", "The thinking level, or default", false, append(append([]string{}, model.ThinkingLevels...), "default")...)),
}

// ApplicationCommands returns the definitions of every command the
// handler maps, for registration with Discord (a fresh copy each call).
func ApplicationCommands() []ApplicationCommand {
	out := make([]ApplicationCommand, len(commandTable))
	for i, c := range commandTable {
		d := c.def
		d.Options = append([]CommandOption(nil), d.Options...)
		for j := range d.Options {
			d.Options[j].Choices = append([]OptionChoice(nil), d.Options[j].Choices...)
		}
		out[i] = d
	}
	return out
}

// textCommands is the handler's map (Commands) derived from commandTable.
func textCommands() map[string]string {
	m := make(map[string]string, len(commandTable))
	for _, c := range commandTable {
		m[c.def.Name] = c.text
	}
	return m
}
