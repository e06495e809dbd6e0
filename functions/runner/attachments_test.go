package main

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/turn"
	"github.com/zero-gateway/zero/shared/webchat"
)

func TestAttachmentsOf(t *testing.T) {
	tests := []struct {
		name    string
		senders map[string]turn.Sender
		want    []string
	}{
		{name: "telegram fetches; discord and webchat do not",
			senders: map[string]turn.Sender{"telegram": &telegramSender{}, "discord": &discordSender{}, webchat.Channel: webchat.Sender{}},
			want:    []string{"telegram"}},
		{name: "no telegram", senders: map[string]turn.Sender{webchat.Channel: webchat.Sender{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for ch := range attachmentsOf(tt.senders) {
				got = append(got, ch)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("attachment sources (-want +got):\n%s", diff)
			}
		})
	}
}
