package dynamo

import (
	"context"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/outbox"
	"github.com/zero-gateway/zero/shared/outbox/outboxtest"
	"github.com/zero-gateway/zero/shared/session"
)

func TestOutboxConformance(t *testing.T) {
	outboxtest.TestStore(t, func(t *testing.T) outbox.Store { return New(testClient, freshTable(t)).Outbox() })
}

// TestOutboxSentItemsExpire: a sent item gets a ttl and, once past it
// (DynamoDB deletes lazily), is left out of List; pending and dead items
// never expire.
func TestOutboxSentItemsExpire(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, freshTable(t))
	o := s.Outbox()
	start := time.Now()
	s.now = func() time.Time { return start.Add(-RecordTTL - time.Hour) }
	for _, id := range []string{"sent", "dead", "pending"} {
		if err := o.Put(ctx, outboxtest.Item(id, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.Settle(ctx, "sent", outbox.Sent, 1, "", 2); err != nil {
		t.Fatal(err)
	}
	if err := o.Settle(ctx, "dead", outbox.Dead, 5, "gone", 2); err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return start }
	items, err := o.List(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, item := range items {
		ids = append(ids, item.ID)
	}
	if len(ids) != 2 || ids[0] != "pending" || ids[1] != "dead" {
		t.Errorf("listed %v; want pending, dead (the expired sent item left out)", ids)
	}
}

// TestOutboxItemsStayOutOfSessionIndexes: an outbox item names a session
// key but is no session: the agent's sessions list none.
func TestOutboxItemsStayOutOfSessionIndexes(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, freshTable(t))
	if err := s.Outbox().Put(ctx, outboxtest.Item("a", 1)); err != nil {
		t.Fatal(err)
	}
	if err := s.Outbox().Settle(ctx, "a", outbox.Dead, 1, "x", 2); err != nil {
		t.Fatal(err)
	}
	if rows, err := s.List(ctx, session.ListQuery{AgentID: "main"}); err != nil || len(rows) != 0 {
		t.Errorf("sessions of main = %v, %v; want none", rows, err)
	}
}
