package turn

import (
	"testing"

	"github.com/zero-gateway/zero/shared/stopmark"
)

func TestParseCommand(t *testing.T) {
	triggers := []string{"/new", "/reset", "/fresh"}
	tests := []struct {
		name string
		text string
		want command
	}{
		{"plain text", "hello there", command{}},
		{"new alone", "/new", command{name: "/new", reset: true}},
		{"reset alone with spaces", "  /reset  ", command{name: "/reset", reset: true}},
		{"new with text", "/new tell me a joke", command{name: "/new", rest: "tell me a joke", reset: true}},
		{"new with model and text", "/new openai/gpt-4o hi", command{name: "/new", rest: "openai/gpt-4o hi", reset: true}},
		{"new followed by a newline", "/new\nline two", command{name: "/new", rest: "line two", reset: true}},
		{"configured trigger", "/fresh", command{name: "/fresh", reset: true}},
		{"trigger is case-insensitive", "/NEW", command{name: "/new", reset: true}},
		{"a command naming a bot is another bot's (the door drops our own name)", "/reset@ZeroBot", command{}},
		{"not exact: longer word", "/newest", command{}},
		{"trigger not first", "please /new", command{}},
		{"status alone", "/status", command{name: "/status"}},
		{"status addressed to a bot", "/status@ZeroBot", command{}},
		{"status with text is not a command", "/status please", command{}},
		{"send on", "/send on", command{name: "/send", arg: "on"}},
		{"send OFF", "/send OFF", command{name: "/send", arg: "off"}},
		{"send inherit", "/send inherit", command{name: "/send", arg: "inherit"}},
		{"send without argument", "/send", command{name: "/send"}},
		{"send with a sentence is not a command", "/send this to bob", command{}},
		{"compact alone", "/compact", command{name: "/compact"}},
		{"compact with instructions", "/compact keep the names", command{name: "/compact", rest: "keep the names"}},
		{"stop alone", "/stop", command{name: "/stop"}},
		{"stop with text is not a command", "/stop the music", command{}},
		{"context alone", "/context", command{name: "/context"}},
		{"context list", "/context list", command{name: "/context", arg: "list"}},
		{"context detail", "/context Detail", command{name: "/context", arg: "detail"}},
		{"context with a question is not a command", "/context what is this", command{}},
		{"unknown command goes to the model", "/whatever", command{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseCommand(tt.text, triggers)
			if (got.spec == nil) != (got.name == "" || got.reset) {
				t.Errorf("parseCommand(%q): registry entry %v for %q", tt.text, got.spec, got.name)
			}
			got.spec = nil
			if got != tt.want {
				t.Fatalf("parseCommand(%q) = %+v; want %+v", tt.text, got, tt.want)
			}
		})
	}
}

// TestStopCommandAgrees: the ingest door recognises a /stop with
// stopmark.IsCommand before queueing it; the runner answers it by
// parseCommand. The two must agree, or a /stop would mark without being
// answered (or be answered without stopping anything).
func TestStopCommandAgrees(t *testing.T) {
	for _, text := range []string{
		"/stop", "  /stop  ", "/STOP", "/Stop@ZeroBot", "/stop@", "/stop\n", "/stop\tnow", "/stop\n\n",
		"/stop the music", "/stopp", "stop", "/status", "", " ", "@/stop", "/stop\nplease", "/sto p", "/stop@bot x",
	} {
		parsed := parseCommand(text, []string{"/new", "/reset"}).name == "/stop"
		if got := stopmark.IsCommand(text); got != parsed {
			t.Errorf("stopmark.IsCommand(%q) = %v; the runner's parseCommand says %v", text, got, parsed)
		}
	}
}
