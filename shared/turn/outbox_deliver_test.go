package turn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/outbox"
	"github.com/zero-gateway/zero/shared/outbox/outboxtest"
	"github.com/zero-gateway/zero/shared/session"
)

// The engine hands a KindDeliver message to the outbox's delivery
// (shared/delivery, whose tests cover delivering, resuming and settling
// an item); these tests cover the engine's side: a delivery is no
// session turn, never collected, and its last failure tells no one.

// deliverMsg is the KindDeliver message of outbox item id.
func deliverMsg(id string) inbound.Message {
	return inbound.Message{
		ID: "deliver:" + id, Kind: inbound.KindDeliver, OutboxID: id, AgentID: "main",
		SessionKey: "agent:main:subagent:" + id, Channel: inbound.Internal, ChatType: inbound.Direct, To: "outbox",
	}
}

// outboxRig is the rig with a memory outbox holding item "a" (three
// words to Telegram chat 7).
func outboxRig(t *testing.T) (*rig, *outboxtest.MemStore) {
	t.Helper()
	r := newRig()
	o := &outboxtest.MemStore{}
	r.proc.Outbox = o
	item := outbox.Item{ID: "a", Kind: outbox.KindSubagent, SessionKey: "agent:main:subagent:a",
		Delivery: session.DeliveryContext{Channel: "telegram", To: "7"}, Text: "one two three", CreatedAt: 1}
	if err := o.Put(context.Background(), item); err != nil {
		t.Fatal(err)
	}
	return r, o
}

// The last failed attempt marks the item dead and tells no one: an
// announce has no sender to send FailureNotice to.
func TestFailedDeliverIsDeadWithoutNotice(t *testing.T) {
	tests := []struct {
		name      string
		last      bool
		wantState string
	}{
		{"an earlier attempt leaves it pending", false, outbox.Pending},
		{"the last attempt marks it dead", true, outbox.Dead},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, o := outboxRig(t)
			r.proc.Store = r.store
			r.sender.FailFor = 5
			m := deliverMsg("a")
			err := r.proc.Handle(context.Background(), m, 5)
			if err == nil {
				t.Fatal("Handle = nil; want the channel's error")
			}
			r.proc.Failed(context.Background(), []inbound.Message{m}, []int{5}, tc.last, err)
			got, _ := o.Get(context.Background(), "a")
			if got.State != tc.wantState || got.Attempts != 5 || !strings.Contains(got.LastError, "telegram is down") {
				t.Errorf("item = %+v; want %s after attempt 5 with the channel's error", got, tc.wantState)
			}
			if len(r.sender.Sent) != 0 {
				t.Errorf("sent %v; want no failure notice", r.sender.Sent)
			}
		})
	}
}

// Deliveries queued together are never collected into one turn: each
// item is delivered on its own.
func TestHandleGroupDeliversEachItem(t *testing.T) {
	r, o := outboxRig(t)
	b := outbox.Item{ID: "b", Kind: outbox.KindA2A, SessionKey: "agent:main:main",
		Delivery: session.DeliveryContext{Channel: "telegram", To: "7"}, Text: "bee", CreatedAt: 2}
	if err := o.Put(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	done, err := r.proc.HandleGroup(context.Background(), []inbound.Message{deliverMsg("a"), deliverMsg("b")}, []int{1, 1})
	if err != nil || done != 2 {
		t.Fatalf("HandleGroup = %d, %v; want 2, nil", done, err)
	}
	var posts []string
	for _, s := range r.sender.Sent {
		posts = append(posts, s.Text)
	}
	if diff := cmp.Diff([]string{"one two three", "bee"}, posts); diff != "" {
		t.Errorf("posts (-want +got):\n%s", diff)
	}
	if r.model.calls != 0 {
		t.Errorf("the model was called %d times; want none", r.model.calls)
	}
}
