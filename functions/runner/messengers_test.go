package main

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/discord"
	"github.com/zero-gateway/zero/shared/telegram"
	"github.com/zero-gateway/zero/shared/turn"
	"github.com/zero-gateway/zero/shared/webchat"
)

func TestMessengersOf(t *testing.T) {
	tests := []struct {
		name    string
		senders map[string]turn.Sender
		want    []string
	}{
		{name: "telegram and discord act; webchat does not",
			senders: map[string]turn.Sender{"telegram": &telegram.RotatingClient{}, "discord": &discord.RotatingClient{}, webchat.Channel: webchat.Sender{}},
			want:    []string{"discord", "telegram"}},
		{name: "telegram only", senders: map[string]turn.Sender{"telegram": &telegram.RotatingClient{}}, want: []string{"telegram"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for ch := range messengersOf(tt.senders) {
				got = append(got, ch)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("messengers (-want +got):\n%s", diff)
			}
		})
	}
	if (&telegram.RotatingClient{}).Supports("thread-list") || !(&discord.RotatingClient{}).Supports("thread-list") {
		t.Error("Supports: telegram has no thread-list; discord has")
	}
}
