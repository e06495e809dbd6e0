// Package outboxtest is the conformance suite of turn.Outbox: every
// implementation (turntest.MemOutbox, shared/dynamo's Outbox) runs
// TestOutbox.
package outboxtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/turn"
)

// Item is a pending item with every field set, created at createdAt.
func Item(id string, createdAt int64) turn.OutboxItem {
	return turn.OutboxItem{
		ID: id, Kind: turn.OutboxSubagent, SessionKey: "agent:main:subagent:" + id,
		Delivery: session.DeliveryContext{Channel: "telegram", To: "42", AccountID: "bot", ThreadID: "7"},
		Text:     "result ü <b> & more", State: turn.OutboxPending, CreatedAt: createdAt, UpdatedAt: createdAt,
	}
}

// TestOutbox runs the suite; newOutbox returns an empty outbox for each
// subtest.
func TestOutbox(t *testing.T, newOutbox func(t *testing.T) turn.Outbox) {
	ctx := context.Background()
	put := func(t *testing.T, o turn.Outbox, items ...turn.OutboxItem) {
		t.Helper()
		for _, item := range items {
			if err := o.Put(ctx, item); err != nil {
				t.Fatalf("Put %s: %v", item.ID, err)
			}
		}
	}
	get := func(t *testing.T, o turn.Outbox, id string) turn.OutboxItem {
		t.Helper()
		got, err := o.Get(ctx, id)
		if err != nil {
			t.Fatalf("Get %s: %v", id, err)
		}
		return got
	}

	t.Run("put then get round-trips every field", func(t *testing.T) {
		o := newOutbox(t)
		want := Item("a", 1000)
		put(t, o, want)
		if diff := cmp.Diff(want, get(t, o, "a")); diff != "" {
			t.Errorf("Get (-want +got):\n%s", diff)
		}
	})
	t.Run("a repeated put keeps the first item", func(t *testing.T) {
		o := newOutbox(t)
		first := Item("a", 1000)
		put(t, o, first)
		if err := o.Settle(ctx, "a", turn.OutboxSent, 1, "", 2000); err != nil {
			t.Fatal(err)
		}
		again := Item("a", 3000)
		again.Text = "other"
		put(t, o, again)
		got := get(t, o, "a")
		if got.Text != first.Text || got.State != turn.OutboxSent || got.CreatedAt != 1000 {
			t.Errorf("after a second Put: %+v; want the first item, sent", got)
		}
	})
	t.Run("put without an id is invalid", func(t *testing.T) {
		if err := newOutbox(t).Put(ctx, Item("", 1)); !fault.Is(err, fault.Invalid) {
			t.Errorf("Put = %v; want fault.Invalid", err)
		}
	})
	t.Run("a missing item is not found", func(t *testing.T) {
		o := newOutbox(t)
		for name, err := range map[string]error{
			"Get":      func() error { _, err := o.Get(ctx, "nope"); return err }(),
			"Progress": o.Progress(ctx, "nope", 1),
			"Settle":   o.Settle(ctx, "nope", turn.OutboxDead, 1, "x", 1),
		} {
			if !fault.Is(err, fault.NotFound) {
				t.Errorf("%s = %v; want fault.NotFound", name, err)
			}
		}
	})
	t.Run("progress and settle change only their fields", func(t *testing.T) {
		o := newOutbox(t)
		want := Item("a", 1000)
		put(t, o, want)
		if err := o.Progress(ctx, "a", 2); err != nil {
			t.Fatal(err)
		}
		if err := o.Settle(ctx, "a", turn.OutboxPending, 3, "telegram is down", 5000); err != nil {
			t.Fatal(err)
		}
		want.Sent, want.Attempts, want.LastError, want.UpdatedAt = 2, 3, "telegram is down", 5000
		if diff := cmp.Diff(want, get(t, o, "a")); diff != "" {
			t.Errorf("after Progress and Settle (-want +got):\n%s", diff)
		}
		if err := o.Settle(ctx, "a", turn.OutboxDead, 5, "chat not found", 6000); err != nil {
			t.Fatal(err)
		}
		want.State, want.Attempts, want.LastError, want.UpdatedAt = turn.OutboxDead, 5, "chat not found", 6000
		if diff := cmp.Diff(want, get(t, o, "a")); diff != "" {
			t.Errorf("after Settle dead (-want +got):\n%s", diff)
		}
	})
	t.Run("sent is final", func(t *testing.T) {
		o := newOutbox(t)
		put(t, o, Item("a", 1000))
		if err := o.Settle(ctx, "a", turn.OutboxSent, 1, "", 2000); err != nil {
			t.Fatal(err)
		}
		if err := o.Settle(ctx, "a", turn.OutboxDead, 5, "late failure report", 3000); err != nil {
			t.Fatalf("Settle of a sent item = %v; want nil", err)
		}
		if got := get(t, o, "a"); got.State != turn.OutboxSent || got.LastError != "" || got.UpdatedAt != 2000 {
			t.Errorf("sent item after a late Settle: %+v; want it unchanged", got)
		}
	})
	t.Run("revive", func(t *testing.T) {
		tests := []struct {
			name    string
			state   string // the item's state before Revive; "" none
			code    fault.Code
			want    string // the state after
			retries int
		}{
			{name: "dead becomes pending", state: turn.OutboxDead, want: turn.OutboxPending, retries: 1},
			{name: "pending stays pending", state: turn.OutboxPending, want: turn.OutboxPending},
			{name: "sent is final", state: turn.OutboxSent, code: fault.Conflict, want: turn.OutboxSent},
			{name: "missing is not found", code: fault.NotFound},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				o := newOutbox(t)
				if tc.state != "" {
					put(t, o, Item("a", 1000))
					if err := o.Settle(ctx, "a", tc.state, 5, "chat not found", 2000); err != nil {
						t.Fatal(err)
					}
				}
				got, err := o.Revive(ctx, "a", 3000)
				if tc.code != "" {
					if !fault.Is(err, tc.code) {
						t.Fatalf("Revive = %v; want %s", err, tc.code)
					}
				} else if err != nil {
					t.Fatalf("Revive: %v", err)
				} else if stored := get(t, o, "a"); !cmp.Equal(got, stored) {
					t.Errorf("Revive returned %+v; stored %+v", got, stored)
				}
				if tc.state == "" {
					return
				}
				stored := get(t, o, "a")
				wantUpdated := int64(2000)
				if tc.retries > 0 {
					wantUpdated = 3000
				}
				if stored.State != tc.want || stored.Retries != tc.retries || stored.UpdatedAt != wantUpdated ||
					stored.Attempts != 5 || stored.LastError != "chat not found" {
					t.Errorf("after Revive: %+v; want state %s, %d retries, updatedAt %d, attempts and error kept",
						stored, tc.want, tc.retries, wantUpdated)
				}
			})
		}
	})
	t.Run("each revival counts", func(t *testing.T) {
		o := newOutbox(t)
		put(t, o, Item("a", 1000))
		for i := 1; i <= 2; i++ {
			if err := o.Settle(ctx, "a", turn.OutboxDead, 1, "gone", int64(2000*i)); err != nil {
				t.Fatal(err)
			}
			got, err := o.Revive(ctx, "a", int64(2000*i+1))
			if err != nil || got.Retries != i || got.State != turn.OutboxPending {
				t.Fatalf("revival %d = %+v, %v; want pending with %d retries", i, got, err, i)
			}
		}
		if err := o.Settle(ctx, "a", turn.OutboxSent, 1, "", 9000); err != nil {
			t.Fatal(err)
		}
		if got := get(t, o, "a"); got.State != turn.OutboxSent || got.Retries != 2 {
			t.Errorf("a revived item, then sent: %+v; want sent, 2 retries", got)
		}
	})
	t.Run("settle to an unknown state is invalid", func(t *testing.T) {
		o := newOutbox(t)
		put(t, o, Item("a", 1000))
		if err := o.Settle(ctx, "a", "lost", 1, "", 1); !fault.Is(err, fault.Invalid) {
			t.Errorf("Settle = %v; want fault.Invalid", err)
		}
	})
	t.Run("list is newest first, by state, limited", func(t *testing.T) {
		o := newOutbox(t)
		for i := range 5 {
			put(t, o, Item(fmt.Sprint("i", i), int64(1000+i)))
		}
		for _, id := range []string{"i1", "i3"} {
			if err := o.Settle(ctx, id, turn.OutboxDead, 5, "gone", 9000); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			name  string
			state string
			limit int
			want  []string
		}{
			{"all", "", 0, []string{"i4", "i3", "i2", "i1", "i0"}},
			{"all, limited", "", 2, []string{"i4", "i3"}},
			{"dead", turn.OutboxDead, 0, []string{"i3", "i1"}},
			{"pending, limited", turn.OutboxPending, 2, []string{"i4", "i2"}},
			{"sent", turn.OutboxSent, 10, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				items, err := o.List(ctx, tc.state, tc.limit)
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, item := range items {
					ids = append(ids, item.ID)
				}
				if diff := cmp.Diff(tc.want, ids); diff != "" {
					t.Errorf("List(%q, %d) (-want +got):\n%s", tc.state, tc.limit, diff)
				}
			})
		}
	})
}
