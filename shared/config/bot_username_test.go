package config

import (
	"strings"
	"testing"
)

// TestBotUsername: channels.<channel>.botUsername is stored without "@";
// anything but letters, digits and _ is refused, naming the key.
func TestBotUsername(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		want    string
		wantErr string
	}{
		{name: "unset", doc: `{channels: {telegram: {allowFrom: ["*"]}}}`},
		{name: "plain", doc: `{channels: {telegram: {botUsername: "ZeroBot"}}}`, want: "ZeroBot"},
		{name: "with @ and blanks", doc: `{channels: {telegram: {botUsername: " @zero_bot "}}}`, want: "zero_bot"},
		{name: "a space", doc: `{channels: {telegram: {botUsername: "zero bot"}}}`, wantErr: "channels.telegram.botUsername: want the bot's username"},
		{name: "a command suffix", doc: `{channels: {telegram: {botUsername: "ZeroBot/stop"}}}`, wantErr: "channels.telegram.botUsername"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.doc))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v; want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.BotUsername("Telegram"); got != tt.want {
				t.Errorf("BotUsername = %q; want %q", got, tt.want)
			}
		})
	}
}
