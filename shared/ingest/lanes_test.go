package ingest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
)

// TestLanes: a sub-agent session's message goes to the sub-agent queue,
// every other message (and every outbox delivery) to the main queue; with
// no sub-agent queue everything goes to the main one.
func TestLanes(t *testing.T) {
	tests := []struct {
		name       string
		msg        inbound.Message
		noSubagent bool
		want       string // "main" | "subagent"
	}{
		{name: "main session", msg: inbound.Message{SessionKey: "agent:main:main"}, want: "main"},
		{name: "direct chat", msg: inbound.Message{SessionKey: "agent:main:telegram:dm:42"}, want: "main"},
		{name: "hook session", msg: inbound.Message{SessionKey: "hook:abc"}, want: "main"},
		{name: "sub-agent session", msg: inbound.Message{SessionKey: "agent:main:subagent:7c9e"}, want: "subagent"},
		{name: "sub-agent of another agent", msg: inbound.Message{SessionKey: "agent:work:subagent:x1"}, want: "subagent"},
		{name: "sub-agent key not lower-cased", msg: inbound.Message{SessionKey: "Agent:Main:SubAgent:X1"}, want: "subagent"},
		{name: "subagent as a peer id", msg: inbound.Message{SessionKey: "agent:main:telegram:dm:subagent"}, want: "main"},
		{name: "outbox delivery to a sub-agent session", msg: inbound.Message{SessionKey: "agent:main:subagent:7c9e", Kind: inbound.KindDeliver}, want: "main"},
		{name: "no sub-agent queue", msg: inbound.Message{SessionKey: "agent:main:subagent:7c9e"}, noSubagent: true, want: "main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			main, sub := &recordingQueue{}, &recordingQueue{}
			lanes := ingest.Lanes{Main: main, Subagent: sub}
			if tt.noSubagent {
				lanes.Subagent = nil
			}
			if err := lanes.Enqueue(context.Background(), tt.msg); err != nil {
				t.Fatalf("Enqueue: %v", err)
			}
			got := map[string]int{"main": len(main.msgs), "subagent": len(sub.msgs)}
			if got[tt.want] != 1 || got["main"]+got["subagent"] != 1 {
				t.Errorf("queued main %d, subagent %d; want one on %s", got["main"], got["subagent"], tt.want)
			}
		})
	}
}

// TestLanesError: the lane's error comes back unchanged.
func TestLanesError(t *testing.T) {
	boom := errors.New("boom")
	lanes := ingest.Lanes{Main: &recordingQueue{}, Subagent: &recordingQueue{err: boom}}
	if err := lanes.Enqueue(context.Background(), inbound.Message{SessionKey: "agent:main:subagent:a"}); !errors.Is(err, boom) {
		t.Errorf("Enqueue = %v; want %v", err, boom)
	}
}
