package discord

import (
	"regexp"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCommandsRegisteredMatchHandled is the drift test: every command the
// handler maps is registered, and every registered command is handled.
func TestCommandsRegisteredMatchHandled(t *testing.T) {
	var registered, handled []string
	for _, c := range ApplicationCommands() {
		registered = append(registered, c.Name)
	}
	for name := range Commands {
		handled = append(handled, name)
	}
	sort.Strings(registered)
	sort.Strings(handled)
	if diff := cmp.Diff(handled, registered); diff != "" {
		t.Errorf("registered commands differ from the handler's (-handled +registered):\n%s", diff)
	}
	want := []string{"ask", "compact", "context", "new", "queue", "reset", "send", "status", "stop", "think"}
	if diff := cmp.Diff(want, handled); diff != "" {
		t.Errorf("handled commands (-want +got):\n%s", diff)
	}
	for _, c := range ApplicationCommands() {
		if _, skip := commandText(&commandData{Name: c.Name}); skip != "" {
			t.Errorf("registered /%s: the handler skips it: %s", c.Name, skip)
		}
	}
}

// TestApplicationCommandsValid checks the definitions against Discord's
// rules for CHAT_INPUT commands.
func TestApplicationCommandsValid(t *testing.T) {
	name := regexp.MustCompile(`^[-_a-z0-9]{1,32}$`)
	seen := map[string]bool{}
	for _, c := range ApplicationCommands() {
		t.Run(c.Name, func(t *testing.T) {
			if !name.MatchString(c.Name) || seen[c.Name] {
				t.Errorf("name %q: want unique lowercase 1-32 of a-z 0-9 - _", c.Name)
			}
			seen[c.Name] = true
			if c.Type != CommandTypeChatInput {
				t.Errorf("type %d, want %d", c.Type, CommandTypeChatInput)
			}
			if n := len([]rune(c.Description)); n < 1 || n > 100 {
				t.Errorf("description of %d characters, want 1-100", n)
			}
			optional := false
			for _, o := range c.Options {
				if !name.MatchString(o.Name) || (o.Type != OptionTypeString && o.Type != OptionTypeAttachment) {
					t.Errorf("option %q type %d: want a lowercase name and type string or attachment", o.Name, o.Type)
				}
				if o.Type == OptionTypeAttachment && len(o.Choices) > 0 {
					t.Errorf("option %q: an attachment option has no choices", o.Name)
				}
				if n := len([]rune(o.Description)); n < 1 || n > 100 {
					t.Errorf("option %q: description of %d characters, want 1-100", o.Name, n)
				}
				if o.Required && optional {
					t.Errorf("option %q: required after an optional one", o.Name)
				}
				optional = optional || !o.Required
				if len(o.Choices) > 25 {
					t.Errorf("option %q: %d choices, at most 25", o.Name, len(o.Choices))
				}
			}
		})
	}
	a := ApplicationCommands()
	a[0].Name = "changed"
	if ApplicationCommands()[0].Name == "changed" {
		t.Error("ApplicationCommands shares its table with callers")
	}
}
