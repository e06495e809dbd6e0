package delivery_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/delivery"
	"github.com/zero-gateway/zero/shared/delivery/deliverytest"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/outbox"
	"github.com/zero-gateway/zero/shared/outbox/outboxtest"
	"github.com/zero-gateway/zero/shared/session"
)

// posts are the texts s posted, in order.
func posts(s *deliverytest.Sender) []string {
	var out []string
	for _, p := range s.Sent {
		out = append(out, p.Text)
	}
	return out
}

// queue is a delivery.Enqueuer that records what it is given.
type queue struct{ queued []inbound.Message }

func (q *queue) Enqueue(_ context.Context, m inbound.Message) error {
	q.queued = append(q.queued, m)
	return nil
}

// deliverMsg is the KindDeliver message of outbox item id.
func deliverMsg(id string) inbound.Message {
	return inbound.Message{
		ID: "deliver:" + id, Kind: inbound.KindDeliver, OutboxID: id, AgentID: "main",
		SessionKey: "agent:main:subagent:" + id, Channel: inbound.Internal, ChatType: inbound.Direct, To: "outbox",
	}
}

// outboxRig is an Outbox on a memory store holding item "a" (three words
// to Telegram chat 7) with a recording Telegram sender.
func outboxRig(t *testing.T) (delivery.Outbox, *outboxtest.MemStore, *deliverytest.Sender) {
	t.Helper()
	o := &outboxtest.MemStore{}
	item := outbox.Item{ID: "a", Kind: outbox.KindSubagent, SessionKey: "agent:main:subagent:a",
		Delivery: session.DeliveryContext{Channel: "telegram", To: "7"}, Text: "one two three", CreatedAt: 1}
	if err := o.Put(context.Background(), item); err != nil {
		t.Fatal(err)
	}
	s := &deliverytest.Sender{}
	clock := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	return delivery.Outbox{Store: o, Senders: map[string]delivery.Sender{"telegram": s}, Now: func() time.Time { return clock }}, o, s
}

func TestDeliverOutbox(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(o *delivery.Outbox, s *deliverytest.Sender)
		attempts  int      // Deliver calls, attempt 1, 2, ...
		wantErrs  []bool   // per attempt: an error returned (a retry)
		wantPosts []string // what the channel got, in order
		want      outbox.Item
	}{
		{
			name:      "delivered once under replay",
			setup:     func(_ *delivery.Outbox, s *deliverytest.Sender) { s.Words = true },
			attempts:  3,
			wantErrs:  []bool{false, false, false},
			wantPosts: []string{"one", "two", "three"},
			want:      outbox.Item{State: outbox.Sent, Sent: 2, Attempts: 1},
		},
		{
			name:      "resumes after a partial multi-part delivery",
			setup:     func(_ *delivery.Outbox, s *deliverytest.Sender) { s.Words, s.FailAt = true, 2 },
			attempts:  2,
			wantErrs:  []bool{true, false},
			wantPosts: []string{"one", "two", "three"},
			want:      outbox.Item{State: outbox.Sent, Sent: 2, Attempts: 2},
		},
		{
			name:     "a retryable error leaves it pending with the error",
			setup:    func(_ *delivery.Outbox, s *deliverytest.Sender) { s.FailFor = 5 },
			attempts: 2,
			wantErrs: []bool{true, true},
			want:     outbox.Item{State: outbox.Pending, Attempts: 2, LastError: "post message 1/1: unavailable: telegram is down"},
		},
		{
			name: "undeliverable is dead at once",
			setup: func(_ *delivery.Outbox, s *deliverytest.Sender) {
				s.Refuse = fault.New(fault.NotFound, "chat not found")
			},
			attempts: 2,
			wantErrs: []bool{false, false},
			want:     outbox.Item{State: outbox.Dead, Attempts: 1, LastError: "post message 1/1: not_found: chat not found"},
		},
		{
			name:     "no sender for the channel is dead",
			setup:    func(o *delivery.Outbox, _ *deliverytest.Sender) { o.Senders = nil },
			attempts: 1,
			wantErrs: []bool{false},
			want:     outbox.Item{State: outbox.Dead, Attempts: 1, LastError: `no sender for channel "telegram"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, o, s := outboxRig(t)
			tc.setup(&d, s)
			for i := range tc.attempts {
				err := d.Deliver(context.Background(), deliverMsg("a"), i+1)
				if (err != nil) != tc.wantErrs[i] {
					t.Fatalf("attempt %d: Deliver = %v; want error %v", i+1, err, tc.wantErrs[i])
				}
			}
			for _, p := range s.Sent {
				if p.To.To != "7" {
					t.Errorf("posted to %+v; want chat 7", p.To)
				}
			}
			if diff := cmp.Diff(tc.wantPosts, posts(s)); diff != "" {
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
	d, _, s := outboxRig(t)
	if err := d.Deliver(context.Background(), deliverMsg("gone"), 1); err != nil {
		t.Fatalf("Deliver = %v; want nil", err)
	}
	if len(s.Sent) != 0 {
		t.Errorf("sent %v; want nothing", s.Sent)
	}
}

// Without an outbox a delivery cannot be done here: an error, retried
// (by a runner that has one).
func TestDeliverWithoutOutbox(t *testing.T) {
	err := delivery.Outbox{}.Deliver(context.Background(), deliverMsg("a"), 1)
	if !fault.Is(err, fault.Internal) {
		t.Fatalf("Deliver = %v; want an internal error", err)
	}
}

// TestDeliverRevivedOutboxItem: an item that died part-way is revived
// (outbox.retry) and its retry message delivers the rest, once.
func TestDeliverRevivedOutboxItem(t *testing.T) {
	ctx := context.Background()
	d, o, s := outboxRig(t)
	s.Words = true
	s.Refuse = fault.New(fault.NotFound, "chat not found")
	if err := o.Progress(ctx, "a", 1); err != nil { // "one" went out earlier
		t.Fatal(err)
	}
	if err := d.Deliver(ctx, deliverMsg("a"), 1); err != nil {
		t.Fatalf("first delivery: %v", err)
	}
	if got, _ := o.Get(ctx, "a"); got.State != outbox.Dead || got.Sent != 1 {
		t.Fatalf("after a refusal at message 2: %+v; want dead with 1 sent", got)
	}
	s.Refuse = nil
	item, err := o.Revive(ctx, "a", 100)
	if err != nil {
		t.Fatal(err)
	}
	m := outbox.DeliverMessage(outbox.RetryMessageID(item), item, 100)
	if m.ID != "deliver:a:retry:1" || m.Validate() != nil || m.QueueGroup() != deliverMsg("a").QueueGroup() {
		t.Fatalf("retry message %+v; want a valid deliver:a:retry:1 on the item's group", m)
	}
	for range 2 { // a replay does nothing more
		if err := d.Deliver(ctx, m, 1); err != nil {
			t.Fatalf("retry delivery: %v", err)
		}
	}
	if diff := cmp.Diff([]string{"two", "three"}, posts(s)); diff != "" {
		t.Errorf("posts (-want +got):\n%s", diff)
	}
	if got, _ := o.Get(ctx, "a"); got.State != outbox.Sent || got.Retries != 1 {
		t.Errorf("after the retry: %+v; want sent, 1 retry", got)
	}
}

// TestAnnounce: the item is put pending and its delivery queued under a
// message id of its own; a replay puts nothing new and queues the same
// id. Without an outbox or a queue the announce is dropped.
func TestAnnounce(t *testing.T) {
	ctx := context.Background()
	o, q := &outboxtest.MemStore{}, &queue{}
	now := time.UnixMilli(5000)
	d := delivery.Outbox{Store: o, Work: q, Now: func() time.Time { return now }}
	item := outbox.Item{ID: "b", Kind: outbox.KindA2A, SessionKey: "agent:main:main", Text: "first",
		Delivery: session.DeliveryContext{Channel: "telegram", To: "7"}}
	for _, text := range []string{"first", "replayed"} {
		item.Text = text
		if err := d.Announce(ctx, item); err != nil {
			t.Fatalf("Announce: %v", err)
		}
	}
	got, err := o.Get(ctx, "b")
	if err != nil || got.State != outbox.Pending || got.Text != "first" || got.CreatedAt != 5000 {
		t.Errorf("item = %+v, %v; want the first, pending, created at 5000", got, err)
	}
	want := outbox.DeliverMessage("deliver:b", item, 5000)
	if diff := cmp.Diff([]inbound.Message{want, want}, q.queued); diff != "" {
		t.Errorf("queued; want the same message twice (the queue deduplicates) (-want +got):\n%s", diff)
	}
	for _, dropped := range []delivery.Outbox{{Store: o}, {Work: q}} {
		if err := dropped.Announce(ctx, outbox.Item{ID: "c"}); err != nil {
			t.Errorf("Announce without an outbox or queue = %v; want nil", err)
		}
	}
	if _, err := o.Get(ctx, "c"); !fault.Is(err, fault.NotFound) || len(q.queued) != 2 {
		t.Errorf("an announce without an outbox or queue was kept (%v, %d queued)", err, len(q.queued))
	}
}

// TestFailed: the last failed attempt settles the item dead with the
// cause; without an outbox nothing happens.
func TestFailed(t *testing.T) {
	ctx := context.Background()
	d, o, _ := outboxRig(t)
	d.Failed(ctx, deliverMsg("a"), 5, errors.New("telegram is down"))
	if got, _ := o.Get(ctx, "a"); got.State != outbox.Dead || got.Attempts != 5 || got.LastError != "telegram is down" {
		t.Errorf("item = %+v; want dead after attempt 5 with the cause", got)
	}
	delivery.Outbox{}.Failed(ctx, deliverMsg("a"), 5, errors.New("x")) // no outbox: no panic, nothing to settle
}

// partSender takes each message with its place in the reply.
type partSender struct {
	deliverytest.Sender
	parts []int
}

func (s *partSender) PostPart(_ context.Context, _ session.DeliveryContext, part int, _ string) error {
	s.parts = append(s.parts, part)
	return nil
}

// TestPost: a PartSender gets each message's index, never Post; another
// Sender gets Post.
func TestPost(t *testing.T) {
	ctx := context.Background()
	ps := &partSender{}
	for i, m := range []string{"a", "b"} {
		if err := delivery.Post(ctx, ps, session.DeliveryContext{}, i, m); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]int{0, 1}, ps.parts); diff != "" || len(ps.Sent) != 0 {
		t.Errorf("parts (-want +got):\n%s; Post calls %v", diff, ps.Sent)
	}
	s := &deliverytest.Sender{}
	if err := delivery.Post(ctx, s, session.DeliveryContext{To: "7"}, 3, "c"); err != nil || len(s.Sent) != 1 {
		t.Errorf("Post = %v, %v; want one Post", err, s.Sent)
	}
}

func TestUndeliverable(t *testing.T) {
	for err, want := range map[error]bool{
		fault.New(fault.Invalid, "bad request"):     true,
		fault.New(fault.NotFound, "chat not found"): true,
		fault.New(fault.Unauthorized, "bad token"):  false,
		fault.New(fault.Unavailable, "down"):        false,
		errors.New("connection reset"):              false,
	} {
		if got := delivery.Undeliverable(err); got != want {
			t.Errorf("Undeliverable(%v) = %v; want %v", err, got, want)
		}
	}
}
