package gateway

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/stopmark"
)

// TestAgentThroughTheDoor: agent and chat.send go through the ingest door
// as an operator: a /stop (or any message in queue mode interrupt) marks
// the session before it is queued, as on a channel, and allowFrom does
// not apply to API callers.
func TestAgentThroughTheDoor(t *testing.T) {
	stopMark := func(id string) *stopmark.Mark {
		return &stopmark.Mark{MessageID: id, At: testNow.UnixMilli(), Pending: true}
	}
	tests := []struct {
		name     string
		doc      string
		noStops  bool // Deps.Stops unset
		method   string
		params   map[string]any
		wantMark *stopmark.Mark // on agent:main:main
	}{
		{name: "agent /stop marks the session", method: "agent",
			params: map[string]any{"message": "/stop", "idempotencyKey": "s1"}, wantMark: stopMark("api:s1")},
		{name: "chat.send /stop marks the session", method: "chat.send",
			params: map[string]any{"message": "/stop", "sessionKey": "main", "idempotencyKey": "s2"}, wantMark: stopMark("api:s2")},
		{name: "plain text does not mark", method: "agent",
			params: map[string]any{"message": "hello", "idempotencyKey": "h1"}},
		{name: "queue mode interrupt marks every message", method: "agent", doc: `{messages: {queue: {mode: "interrupt"}}}`,
			params: map[string]any{"message": "hello", "idempotencyKey": "i1"}, wantMark: stopMark("api:i1")},
		{name: "interrupt on another channel does not count", method: "agent", doc: `{messages: {queue: {byChannel: {telegram: "interrupt"}}}}`,
			params: map[string]any{"message": "hello", "idempotencyKey": "i2"}},
		{name: "without Stops a /stop is only queued", method: "agent", noStops: true,
			params: map[string]any{"message": "/stop", "idempotencyKey": "s3"}},
		{name: "allowFrom does not apply to operators", method: "agent", doc: `{channels: {telegram: {allowFrom: ["1"]}}}`,
			params: map[string]any{"message": "hi", "deliver": true, "channel": "telegram", "to": "42", "idempotencyKey": "d1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.doc, func(d *Deps) {
				if !tt.noStops {
					d.Stops = d.Sessions.(ingest.StopMarker) // the in-memory store marks as DynamoDB does
				}
			})
			var got AgentAccepted
			f.call(tt.method, tt.params).decode(t, &got)
			if n := len(f.queue.messages()); n != 1 {
				t.Fatalf("queued %d; want 1 (a /stop is queued too)", n)
			}
			mark, err := f.sessions.StopMark(context.Background(), "agent:main:main")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantMark, mark); diff != "" {
				t.Errorf("stop mark (-want +got):\n%s", diff)
			}
		})
	}
}

// failingStops fails every MarkStop.
type failingStops struct{}

func (failingStops) MarkStop(context.Context, string, stopmark.Mark) error {
	return fault.Wrap(fault.Unavailable, errors.New("dynamodb: throttled"), "mark stop")
}

// TestAgentStopMarkFails: a /stop whose mark cannot be written is not
// queued, and the caller may retry.
func TestAgentStopMarkFails(t *testing.T) {
	f := newFixture(t, "", func(d *Deps) { d.Stops = failingStops{} })
	f.call("agent", map[string]any{"message": "/stop", "idempotencyKey": "s1"}).
		wantError(t, http.StatusServiceUnavailable, fault.Unavailable, "")
	if n := len(f.queue.messages()); n != 0 {
		t.Fatalf("queued %d; want nothing", n)
	}
}

// TestAgentDeliverKeepsTheChatType: a delivered run to a group session
// stays a group (the stored entry's chat type, else the key's shape), so
// the group's send policy applies instead of the direct chats'.
func TestAgentDeliverKeepsTheChatType(t *testing.T) {
	const groupKey = "agent:main:telegram:group:-100"
	denyGroups := `{session: {sendPolicy: {rules: [{action: "deny", match: {chatType: "group"}}]}}}`
	tests := []struct {
		name     string
		doc      string
		seed     *session.Entry
		key      string
		wantType string // queued chat type; "" = refused
	}{
		{name: "a stored group stays a group", key: groupKey, seed: &session.Entry{SessionID: "g1", ChatType: inbound.Group, Channel: "telegram"}, wantType: inbound.Group},
		{name: "a new group key is a group", key: groupKey, wantType: inbound.Group},
		{name: "a channel key is a channel", key: "agent:main:telegram:channel:-200", wantType: inbound.Channel},
		{name: "a direct key stays direct", key: "agent:main:main", wantType: inbound.Direct},
		{name: "a group deny rule applies to a stored group", doc: denyGroups, key: groupKey, seed: &session.Entry{SessionID: "g1", ChatType: inbound.Group, Channel: "telegram"}},
		{name: "a group deny rule applies to a new group key", doc: denyGroups, key: groupKey},
		{name: "a group deny rule leaves direct chats alone", doc: denyGroups, key: "agent:main:main", wantType: inbound.Direct},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.doc)
			if tt.seed != nil {
				f.seed(tt.key, *tt.seed)
			}
			r := f.call("agent", map[string]any{"message": "hi", "sessionKey": tt.key, "deliver": true, "channel": "telegram", "to": "-100", "idempotencyKey": "k"})
			if tt.wantType == "" {
				r.wantError(t, http.StatusBadRequest, fault.Invalid, "sending is denied for this session by session.sendPolicy")
				if n := len(f.queue.messages()); n != 0 {
					t.Fatalf("queued %d; want nothing", n)
				}
				return
			}
			var got AgentAccepted
			r.decode(t, &got)
			msgs := f.queue.messages()
			if len(msgs) != 1 || msgs[0].ChatType != tt.wantType {
				t.Fatalf("queued %+v; want one message of chat type %q", msgs, tt.wantType)
			}
		})
	}
}
