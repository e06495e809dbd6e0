// Package outboxtest is the conformance suite of outbox.Store, which
// every implementation (MemStore, shared/dynamo's Outbox) runs
// (TestStore), and an in-memory store (MemStore) for unit tests of the
// core.
package outboxtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/outbox"
	"github.com/zero-gateway/zero/shared/session"
)

// Item is a pending item with every field set, created at createdAt.
func Item(id string, createdAt int64) outbox.Item {
	return outbox.Item{
		ID: id, Kind: outbox.KindSubagent, SessionKey: "agent:main:subagent:" + id,
		Delivery: session.DeliveryContext{Channel: "telegram", To: "42", AccountID: "bot", ThreadID: "7"},
		Text:     "result ü <b> & more", State: outbox.Pending, CreatedAt: createdAt, UpdatedAt: createdAt,
	}
}

// TestStore runs the suite; newOutbox returns an empty outbox for each
// subtest.
func TestStore(t *testing.T, newOutbox func(t *testing.T) outbox.Store) {
	ctx := context.Background()
	put := func(t *testing.T, o outbox.Store, items ...outbox.Item) {
		t.Helper()
		for _, item := range items {
			if err := o.Put(ctx, item); err != nil {
				t.Fatalf("Put %s: %v", item.ID, err)
			}
		}
	}
	get := func(t *testing.T, o outbox.Store, id string) outbox.Item {
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
		if err := o.Settle(ctx, "a", outbox.Sent, 1, "", 2000); err != nil {
			t.Fatal(err)
		}
		again := Item("a", 3000)
		again.Text = "other"
		put(t, o, again)
		got := get(t, o, "a")
		if got.Text != first.Text || got.State != outbox.Sent || got.CreatedAt != 1000 {
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
			"Settle":   o.Settle(ctx, "nope", outbox.Dead, 1, "x", 1),
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
		if err := o.Settle(ctx, "a", outbox.Pending, 3, "telegram is down", 5000); err != nil {
			t.Fatal(err)
		}
		want.Sent, want.Attempts, want.LastError, want.UpdatedAt = 2, 3, "telegram is down", 5000
		if diff := cmp.Diff(want, get(t, o, "a")); diff != "" {
			t.Errorf("after Progress and Settle (-want +got):\n%s", diff)
		}
		if err := o.Settle(ctx, "a", outbox.Dead, 5, "chat not found", 6000); err != nil {
			t.Fatal(err)
		}
		want.State, want.Attempts, want.LastError, want.UpdatedAt = outbox.Dead, 5, "chat not found", 6000
		if diff := cmp.Diff(want, get(t, o, "a")); diff != "" {
			t.Errorf("after Settle dead (-want +got):\n%s", diff)
		}
	})
	t.Run("sent is final", func(t *testing.T) {
		o := newOutbox(t)
		put(t, o, Item("a", 1000))
		if err := o.Settle(ctx, "a", outbox.Sent, 1, "", 2000); err != nil {
			t.Fatal(err)
		}
		if err := o.Settle(ctx, "a", outbox.Dead, 5, "late failure report", 3000); err != nil {
			t.Fatalf("Settle of a sent item = %v; want nil", err)
		}
		if got := get(t, o, "a"); got.State != outbox.Sent || got.LastError != "" || got.UpdatedAt != 2000 {
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
			{name: "dead becomes pending", state: outbox.Dead, want: outbox.Pending, retries: 1},
			{name: "pending stays pending", state: outbox.Pending, want: outbox.Pending},
			{name: "sent is final", state: outbox.Sent, code: fault.Conflict, want: outbox.Sent},
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
			if err := o.Settle(ctx, "a", outbox.Dead, 1, "gone", int64(2000*i)); err != nil {
				t.Fatal(err)
			}
			got, err := o.Revive(ctx, "a", int64(2000*i+1))
			if err != nil || got.Retries != i || got.State != outbox.Pending {
				t.Fatalf("revival %d = %+v, %v; want pending with %d retries", i, got, err, i)
			}
		}
		if err := o.Settle(ctx, "a", outbox.Sent, 1, "", 9000); err != nil {
			t.Fatal(err)
		}
		if got := get(t, o, "a"); got.State != outbox.Sent || got.Retries != 2 {
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
			if err := o.Settle(ctx, id, outbox.Dead, 5, "gone", 9000); err != nil {
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
			{"dead", outbox.Dead, 0, []string{"i3", "i1"}},
			{"pending, limited", outbox.Pending, 2, []string{"i4", "i2"}},
			{"sent", outbox.Sent, 10, nil},
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
