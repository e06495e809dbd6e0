package main

import (
	"github.com/zero-gateway/zero/shared/tools/messaging"
	"github.com/zero-gateway/zero/shared/turn"
)

// messengersOf is the message tool's channels: every reply sender that is
// also a messaging.Messenger (Telegram, and Discord where it is configured),
// each acting with the token in force.
func messengersOf(senders map[string]turn.Sender) map[string]messaging.Messenger {
	return sendersThatAre[messaging.Messenger](senders)
}

// sendersThatAre returns, by channel, the senders that also implement T.
func sendersThatAre[T any](senders map[string]turn.Sender) map[string]T {
	out := map[string]T{}
	for channel, s := range senders {
		if t, ok := s.(T); ok {
			out[channel] = t
		}
	}
	return out
}
