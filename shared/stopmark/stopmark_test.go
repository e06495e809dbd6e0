package stopmark

import "testing"

func TestActive(t *testing.T) {
	const at = int64(1_000_000)
	mark := &Mark{MessageID: "stop-1", At: at, Pending: true}
	tests := []struct {
		name    string
		m       *Mark
		message string
		now     int64
		want    bool
	}{
		{"no mark", nil, "m", at, false},
		{"pending mark stops another message", mark, "m", at + 1, true},
		{"the /stop itself is not stopped", mark, "stop-1", at + 1, false},
		{"just before expiry", mark, "m", at + Expiry - 1, true},
		{"expired", mark, "m", at + Expiry, false},
		{"cleared", &Mark{MessageID: "stop-1", At: at}, "m", at + 1, false},
	}
	for _, tt := range tests {
		if got := tt.m.Active(tt.message, tt.now); got != tt.want {
			t.Errorf("%s: Active = %v; want %v", tt.name, got, tt.want)
		}
	}
}

func TestIsCommand(t *testing.T) {
	for text, want := range map[string]bool{
		"/stop": true, "  /stop ": true, "/STOP": true, "/stop\n": true,
		// The door drops "@name" when the command is this bot's: one that
		// still names a bot is for another bot.
		"/stop@ZeroBot": false, "/stop@": false,
		"/stop the music": false, "/stop\nnow": false, "/stopp": false, "stop": false, "": false, "/status": false,
	} {
		if got := IsCommand(text); got != want {
			t.Errorf("IsCommand(%q) = %v; want %v", text, got, want)
		}
	}
}
