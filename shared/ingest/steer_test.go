package ingest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/steer"
	"github.com/zero-gateway/zero/shared/stopmark"
)

// steeringStops is a store that marks stops, records steer messages and
// knows sessions' own queue modes.
type steeringStops struct {
	recordingStops
	modes   map[string]string
	steered map[string][]steer.Pending
	reads   int
	readErr error
}

func (s *steeringStops) RecordSteer(_ context.Context, key string, p steer.Pending) error {
	if s.steered == nil {
		s.steered = map[string][]steer.Pending{}
	}
	s.steered[key] = append(s.steered[key], p)
	return nil
}

func (s *steeringStops) SessionQueueMode(_ context.Context, key string) (string, error) {
	s.reads++
	return s.modes[key], s.readErr
}

// TestAcceptSteer: a person's message to a session in queue mode steer
// (the config's, or the session's own /queue) is recorded for the running
// turn before it is queued; commands and system-made messages are not;
// the session's own interrupt marks as the config's does.
func TestAcceptSteer(t *testing.T) {
	const steerCfg = `{messages: {queue: {mode: "steer"}}, channels: {telegram: {allowFrom: ["*"]}}}`
	const open = `{channels: {telegram: {allowFrom: ["*"]}}}`
	pending := map[string][]steer.Pending{"agent:main:main": {{MessageID: "telegram:7000000001:815000001", Text: "hello", From: "telegram:123456789", At: testNow.UnixMilli()}}}
	mark := map[string]stopmark.Mark{"agent:main:main": {MessageID: "telegram:7000000001:815000001", At: testNow.UnixMilli(), Pending: true}}
	for _, tc := range []struct {
		name        string
		config      string
		own         string // the session's own queue mode
		req         ingest.Request
		wantSteered map[string][]steer.Pending
		wantMarks   map[string]stopmark.Mark
		wantMode    string
		wantReads   int
	}{
		{name: "steer in the config", config: steerCfg, req: private("hello"), wantSteered: pending, wantMode: "steer", wantReads: 1},
		{name: "the session's own steer", config: open, own: "steer", req: private("hello"), wantSteered: pending, wantMode: "steer", wantReads: 1},
		{name: "the session's own collect wins over the config's steer", config: steerCfg, own: "collect", req: private("hello"), wantMode: "collect", wantReads: 1},
		{name: "the session's own interrupt marks", config: open, own: "interrupt", req: private("hello"), wantMarks: mark, wantMode: "interrupt", wantReads: 1},
		{name: "a command is not steered", config: steerCfg, req: private("/status"), wantMode: "steer", wantReads: 1},
		{name: "a system-made message is not steered, nor read", config: `{messages: {queue: {mode: "steer"}}}`,
			req: systemMade(func(m *inbound.Message) { m.From = "cron" }), wantMode: "steer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stops := &steeringStops{modes: map[string]string{"agent:main:main": tc.own}}
			h := &harness{queue: &recordingQueue{}}
			door := ingest.NewDoor(ingest.Deps{Settings: fixed{cfg: mustConfig(t, tc.config)}, Queue: h.queue, Stops: stops, Now: func() time.Time { return testNow }})
			out, err := door.Accept(context.Background(), tc.req)
			if err != nil {
				t.Fatalf("Accept: %v", err)
			}
			q, ok := out.(ingest.Queued)
			if !ok || q.Mode != tc.wantMode {
				t.Fatalf("outcome %#v; want Queued in mode %s", out, tc.wantMode)
			}
			if diff := cmp.Diff(tc.wantSteered, stops.steered); diff != "" {
				t.Errorf("steered (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantMarks, stops.marks); diff != "" {
				t.Errorf("marks (-want +got):\n%s", diff)
			}
			if stops.reads != tc.wantReads {
				t.Errorf("%d session mode reads, want %d", stops.reads, tc.wantReads)
			}
		})
	}
}

// TestAcceptSessionModeUnreadable: a session mode that cannot be read
// queues nothing and returns the error, so the channel delivers the
// message again.
func TestAcceptSessionModeUnreadable(t *testing.T) {
	stops := &steeringStops{readErr: errors.New("throttled")}
	q := &recordingQueue{}
	door := ingest.NewDoor(ingest.Deps{Settings: fixed{cfg: mustConfig(t, `{channels: {telegram: {allowFrom: ["*"]}}}`)}, Queue: q, Stops: stops})
	if _, err := door.Accept(context.Background(), private("hello")); err == nil {
		t.Fatal("Accept succeeded without the session's mode")
	}
	if len(q.msgs) != 0 {
		t.Errorf("queued %d messages", len(q.msgs))
	}
}
