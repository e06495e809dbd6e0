package turn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/outbox"
	"github.com/zero-gateway/zero/shared/outbox/outboxtest"
	"github.com/zero-gateway/zero/shared/session"
)

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

func TestDeliverOutbox(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(r *rig)
		attempts  int      // Handle calls, attempt 1, 2, ...
		wantErrs  []bool   // per attempt: an error returned (a retry)
		wantPosts []string // what the channel got, in order
		want      outbox.Item
	}{
		{
			name:      "delivered once under replay",
			setup:     func(r *rig) { r.sender.words = true },
			attempts:  3,
			wantErrs:  []bool{false, false, false},
			wantPosts: []string{"one", "two", "three"},
			want:      outbox.Item{State: outbox.Sent, Sent: 2, Attempts: 1},
		},
		{
			name:      "resumes after a partial multi-part delivery",
			setup:     func(r *rig) { r.sender.words, r.sender.failAt = true, 2 },
			attempts:  2,
			wantErrs:  []bool{true, false},
			wantPosts: []string{"one", "two", "three"},
			want:      outbox.Item{State: outbox.Sent, Sent: 2, Attempts: 2},
		},
		{
			name:     "a retryable error leaves it pending with the error",
			setup:    func(r *rig) { r.sender.failFor = 5 },
			attempts: 2,
			wantErrs: []bool{true, true},
			want:     outbox.Item{State: outbox.Pending, Attempts: 2, LastError: "post message 1/1: unavailable: telegram is down"},
		},
		{
			name:     "undeliverable is dead at once",
			setup:    func(r *rig) { r.sender.refuse = fault.New(fault.NotFound, "chat not found") },
			attempts: 2,
			wantErrs: []bool{false, false},
			want:     outbox.Item{State: outbox.Dead, Attempts: 1, LastError: "post message 1/1: not_found: chat not found"},
		},
		{
			name:     "no sender for the channel is dead",
			setup:    func(r *rig) { r.proc.Senders = nil },
			attempts: 1,
			wantErrs: []bool{false},
			want:     outbox.Item{State: outbox.Dead, Attempts: 1, LastError: `no sender for channel "telegram"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, o := outboxRig(t)
			tc.setup(r)
			for i := range tc.attempts {
				err := r.proc.Handle(context.Background(), deliverMsg("a"), i+1)
				if (err != nil) != tc.wantErrs[i] {
					t.Fatalf("attempt %d: Handle = %v; want error %v", i+1, err, tc.wantErrs[i])
				}
			}
			var posts []string
			for _, s := range r.sender.sent {
				posts = append(posts, s.text)
				if s.to.To != "7" {
					t.Errorf("posted to %+v; want chat 7", s.to)
				}
			}
			if diff := cmp.Diff(tc.wantPosts, posts); diff != "" {
				t.Errorf("posts (-want +got):\n%s", diff)
			}
			got, err := o.Get(context.Background(), "a")
			if err != nil {
				t.Fatal(err)
			}
			if got.State != tc.want.State || got.Sent != tc.want.Sent || got.Attempts != tc.want.Attempts || got.LastError != tc.want.LastError {
				t.Errorf("item = state %s sent %d attempts %d error %q; want %s %d %d %q", got.State, got.Sent, got.Attempts, got.LastError,
					tc.want.State, tc.want.Sent, tc.want.Attempts, tc.want.LastError)
			}
		})
	}
}

// An item that is not (or no longer) in the outbox: the message is done.
func TestDeliverOutboxMissingItem(t *testing.T) {
	r, _ := outboxRig(t)
	if err := r.proc.Handle(context.Background(), deliverMsg("gone"), 1); err != nil {
		t.Fatalf("Handle = %v; want nil", err)
	}
	if len(r.sender.sent) != 0 {
		t.Errorf("sent %v; want nothing", r.sender.sent)
	}
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
			r.sender.failFor = 5
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
			if len(r.sender.sent) != 0 {
				t.Errorf("sent %v; want no failure notice", r.sender.sent)
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
	for _, s := range r.sender.sent {
		posts = append(posts, s.text)
	}
	if diff := cmp.Diff([]string{"one two three", "bee"}, posts); diff != "" {
		t.Errorf("posts (-want +got):\n%s", diff)
	}
	if r.model.calls != 0 {
		t.Errorf("the model was called %d times; want none", r.model.calls)
	}
}

// TestDeliverRevivedOutboxItem: an item that died part-way is revived
// (outbox.retry) and its retry message delivers the rest, once.
func TestDeliverRevivedOutboxItem(t *testing.T) {
	ctx := context.Background()
	r, o := outboxRig(t)
	r.sender.words = true
	r.sender.refuse = fault.New(fault.NotFound, "chat not found")
	if err := o.Progress(ctx, "a", 1); err != nil { // "one" went out earlier
		t.Fatal(err)
	}
	if err := r.proc.Handle(ctx, deliverMsg("a"), 1); err != nil {
		t.Fatalf("first delivery: %v", err)
	}
	if got, _ := o.Get(ctx, "a"); got.State != outbox.Dead || got.Sent != 1 {
		t.Fatalf("after a refusal at message 2: %+v; want dead with 1 sent", got)
	}
	r.sender.refuse = nil
	item, err := o.Revive(ctx, "a", 100)
	if err != nil {
		t.Fatal(err)
	}
	m := outbox.DeliverMessage(outbox.RetryMessageID(item), item, 100)
	if m.ID != "deliver:a:retry:1" || m.Validate() != nil || m.QueueGroup() != deliverMsg("a").QueueGroup() {
		t.Fatalf("retry message %+v; want a valid deliver:a:retry:1 on the item's group", m)
	}
	for range 2 { // a replay does nothing more
		if err := r.proc.Handle(ctx, m, 1); err != nil {
			t.Fatalf("retry delivery: %v", err)
		}
	}
	var posts []string
	for _, s := range r.sender.sent {
		posts = append(posts, s.text)
	}
	if diff := cmp.Diff([]string{"two", "three"}, posts); diff != "" {
		t.Errorf("posts (-want +got):\n%s", diff)
	}
	if got, _ := o.Get(ctx, "a"); got.State != outbox.Sent || got.Retries != 1 {
		t.Errorf("after the retry: %+v; want sent, 1 retry", got)
	}
}
