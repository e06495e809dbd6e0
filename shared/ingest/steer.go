package ingest

import (
	"context"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/steer"
	"github.com/zero-gateway/zero/shared/stopmark"
)

// SteerRecorder is the optional capability of Deps.Stops behind queue
// mode steer (dynamo.Store has it): recording a message for the session's
// running turn to take in at its next tool boundary. Recording the same
// message again changes nothing.
type SteerRecorder interface {
	RecordSteer(ctx context.Context, key string, p steer.Pending) error
}

// SessionModes is the optional capability of Deps.Stops that reads a
// session's own queue mode (/queue, sessions.patch), so the door honours
// it as it honours the config's; "" when the session has none.
type SessionModes interface {
	SessionQueueMode(ctx context.Context, key string) (string, error)
}

// queueMode is m's queue mode: the session's own for a person's ordinary
// message when the store can read it (one read), else the config's for
// its channel. Other messages never stop or steer a run, whatever the
// mode.
func (d *Door) queueMode(ctx context.Context, cfg *config.Config, m inbound.Message) (string, error) {
	modes, ok := d.stops.(SessionModes)
	if !ok || m.Kind != "" || !fromPerson(m) {
		return cfg.QueueMode(m.Channel, ""), nil
	}
	own, err := modes.SessionQueueMode(ctx, m.SessionKey)
	if err != nil {
		return "", err
	}
	return cfg.QueueMode(m.Channel, own), nil
}

// steers reports whether m is recorded for steering: a person's ordinary
// message, not a command, to a session in queue mode steer.
func steers(m inbound.Message, mode string) bool {
	return mode == config.QueueSteer && m.Kind == "" && fromPerson(m) && !stopmark.IsCommand(m.Text) && !slashCommand(m.Text)
}

// slashCommand reports whether text starts with a slash command word: a
// command never joins a running turn (the runner answers it itself).
func slashCommand(text string) bool {
	for i, r := range text {
		switch {
		case r == ' ' || r == '\n' || r == '\t' || r == '\r':
			continue
		case r == '/':
			return len(text) > i+1
		}
		return false
	}
	return false
}

// recordSteer writes m's pending steer record when m steers and the store
// can record it.
func (d *Door) recordSteer(ctx context.Context, m inbound.Message, mode string) error {
	rec, ok := d.stops.(SteerRecorder)
	if !ok || !steers(m, mode) {
		return nil
	}
	return rec.RecordSteer(ctx, m.SessionKey, steer.Pending{MessageID: m.ID, Text: m.Text, From: m.From, At: d.now().UnixMilli()})
}
