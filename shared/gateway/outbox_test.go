package gateway

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/outbox"
	"github.com/zero-gateway/zero/shared/outbox/outboxtest"
	"github.com/zero-gateway/zero/shared/session"
)

// outboxWireCases run against outboxFixture.
var outboxWireCases = []wireCase{
	{name: "outbox.list", method: "outbox.list", params: `{}`},
	{name: "outbox.list.dead", method: "outbox.list", params: `{"state":"dead","limit":1}`},
	{name: "outbox.error.params", method: "outbox.list", params: `{"state":"lost"}`, status: http.StatusBadRequest},
	// After the lists: it changes d1.
	{name: "outbox.retry", method: "outbox.retry", params: `{"id":"d1"}`},
	{name: "outbox.retry.error.sent", method: "outbox.retry", params: `{"id":"s1"}`, status: http.StatusConflict},
}

// outboxFixture is a gateway whose outbox holds a sent, a pending and two
// dead items, one with a long text.
func outboxFixture(t *testing.T, deps ...func(*Deps)) (*fixture, *outboxtest.MemStore) {
	t.Helper()
	o := &outboxtest.MemStore{}
	ctx := context.Background()
	to := session.DeliveryContext{Channel: "telegram", To: "42", ThreadID: "7"}
	items := []struct {
		item      outbox.Item
		state     string
		attempts  int
		lastError string
	}{
		{outbox.Item{ID: "s1", Kind: outbox.KindA2A, SessionKey: "agent:main:main", Delivery: to, Text: "done <b> & ok", CreatedAt: nowMS - 4000}, outbox.Sent, 1, ""},
		{outbox.Item{ID: "p1", Kind: outbox.KindSubagent, SessionKey: "agent:main:subagent:p1", Delivery: to, Text: "pending", CreatedAt: nowMS - 3000}, outbox.Pending, 2, "unavailable: telegram is down"},
		{outbox.Item{ID: "d1", Kind: outbox.KindSubagent, SessionKey: "agent:main:subagent:d1", Delivery: to, Text: "old", CreatedAt: nowMS - 2000}, outbox.Dead, 5, "not_found: chat not found"},
		{outbox.Item{ID: "d2", Kind: outbox.KindA2A, SessionKey: "agent:ops:main", Delivery: session.DeliveryContext{Channel: "discord", To: "123", AccountID: "app"},
			Text: strings.Repeat("ü", 250), CreatedAt: nowMS - 1000}, outbox.Dead, 1, `no sender for channel "discord"`},
	}
	for _, it := range items {
		if err := o.Put(ctx, it.item); err != nil {
			t.Fatal(err)
		}
		if err := o.Settle(ctx, it.item.ID, it.state, it.attempts, it.lastError, it.item.CreatedAt+500); err != nil {
			t.Fatal(err)
		}
	}
	return newFixture(t, "", append([]func(*Deps){func(d *Deps) { d.Outbox = o }}, deps...)...), o
}

// TestOutboxWireGolden pins outbox.list's answers (-update rewrites
// testdata/wire/outbox.*.json).
func TestOutboxWireGolden(t *testing.T) {
	f, _ := outboxFixture(t)
	checkWireGolden(t, f.handler, outboxWireCases)
}

// TestOutboxWireTypes: the golden answers and params round-trip through
// the exported types (as TestWireTypes).
func TestOutboxWireTypes(t *testing.T) {
	saved := wireCases
	defer func() { wireCases = saved }()
	wireCases = outboxWireCases
	TestWireTypes(t)
}

func TestOutboxList(t *testing.T) {
	tests := []struct {
		name    string
		params  map[string]any
		wantIDs []string
	}{
		{"every state, newest first", nil, []string{"d2", "d1", "p1", "s1"}},
		{"dead", map[string]any{"state": "dead"}, []string{"d2", "d1"}},
		{"pending", map[string]any{"state": "pending"}, []string{"p1"}},
		{"limited", map[string]any{"limit": 2}, []string{"d2", "d1"}},
	}
	f, _ := outboxFixture(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var res OutboxListResult
			f.call("outbox.list", tc.params).decode(t, &res)
			var ids []string
			for _, row := range res.Items {
				ids = append(ids, row.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tc.wantIDs, ",") {
				t.Errorf("items %v; want %v", ids, tc.wantIDs)
			}
			if res.Counts != (OutboxCounts{Pending: 1, Sent: 1, Dead: 2}) {
				t.Errorf("counts %+v; want 1 pending, 1 sent, 2 dead", res.Counts)
			}
			for _, row := range res.Items {
				if n := len([]rune(row.Text)); n > OutboxTextChars+1 {
					t.Errorf("%s: text of %d characters; want at most %d and …", row.ID, n, OutboxTextChars)
				}
			}
		})
	}
}

func TestOutboxListErrors(t *testing.T) {
	tests := []struct {
		name   string
		deps   func(*Deps)
		params map[string]any
		status int
		code   fault.Code
		msg    string
	}{
		{"not configured", nil, nil, http.StatusNotImplemented, fault.Internal, "the outbox is not configured on this gateway"},
		{"bad limit", nil, map[string]any{"limit": 0}, http.StatusBadRequest, fault.Invalid, "params.limit: must be >= 1, got 0"},
		{"store down", func(d *Deps) { d.Outbox = &outboxtest.MemStore{Fail: fault.New(fault.Unavailable, "dynamodb is down")} }, nil,
			http.StatusServiceUnavailable, fault.Unavailable, "dynamodb is down"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var deps []func(*Deps)
			if tc.deps != nil {
				deps = append(deps, tc.deps)
			}
			newFixture(t, "", deps...).call("outbox.list", tc.params).wantError(t, tc.status, tc.code, tc.msg)
		})
	}
}

// TestOutboxRetry: outbox.retry revives the item and queues a new
// delivery message for it on each revival; a pending item is queued again
// under the last id (the queue deduplicates it).
func TestOutboxRetry(t *testing.T) {
	f, o := outboxFixture(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		id      string
		dieAt   int64 // settle the item dead first, at this time; 0 no
		wantMsg string
		queued  int // messages in the queue after the call
	}{
		{"dead item", "d1", 0, "deliver:d1:retry:1", 1},
		{"pending item again: the same id, deduplicated", "d1", 0, "deliver:d1:retry:1", 1},
		{"dead again: a new id", "d1", nowMS + 1000, "deliver:d1:retry:2", 2},
		{"a pending item never revived", "p1", 0, "deliver:p1:retry:0", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.dieAt != 0 {
				if err := o.Settle(ctx, tc.id, outbox.Dead, 1, "chat not found", tc.dieAt); err != nil {
					t.Fatal(err)
				}
			}
			var res OutboxRetryResult
			f.call("outbox.retry", map[string]any{"id": tc.id}).decode(t, &res)
			if res.MessageID != tc.wantMsg || res.Item.ID != tc.id || res.Item.State != outbox.Pending {
				t.Errorf("answer %+v; want %s pending, message %s", res, tc.id, tc.wantMsg)
			}
			msgs := f.queue.messages()
			if len(msgs) != tc.queued {
				t.Fatalf("%d messages queued; want %d", len(msgs), tc.queued)
			}
			m := msgs[len(msgs)-1]
			if m.ID != tc.wantMsg || m.Kind != inbound.KindDeliver || m.OutboxID != tc.id || m.Validate() != nil {
				t.Errorf("queued %+v; want a valid deliver message %s for %s", m, tc.wantMsg, tc.id)
			}
			if got, _ := o.Get(ctx, tc.id); got.State != outbox.Pending {
				t.Errorf("item %s is %s; want pending", tc.id, got.State)
			}
		})
	}
}

func TestOutboxRetryErrors(t *testing.T) {
	tests := []struct {
		name   string
		deps   func(*Deps)
		params map[string]any
		status int
		code   fault.Code
		msg    string
	}{
		{"no id", nil, map[string]any{}, http.StatusBadRequest, fault.Invalid, "params.id: required"},
		{"not configured", func(d *Deps) { d.Outbox = nil }, map[string]any{"id": "d1"},
			http.StatusNotImplemented, fault.Internal, "the outbox is not configured on this gateway"},
		{"missing item", nil, map[string]any{"id": "nope"}, http.StatusNotFound, fault.NotFound, ""},
		{"sent item", nil, map[string]any{"id": "s1"}, http.StatusConflict, fault.Conflict, ""},
		{"store down", func(d *Deps) { d.Outbox = &outboxtest.MemStore{Fail: fault.New(fault.Unavailable, "dynamodb is down")} },
			map[string]any{"id": "d1"}, http.StatusServiceUnavailable, fault.Unavailable, ""},
		{"queue down", func(d *Deps) { d.Queue = failingQueue{} }, map[string]any{"id": "d1"},
			http.StatusServiceUnavailable, fault.Unavailable, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var deps []func(*Deps)
			if tc.deps != nil {
				deps = append(deps, tc.deps)
			}
			f, o := outboxFixture(t, deps...)
			f.call("outbox.retry", tc.params).wantError(t, tc.status, tc.code, tc.msg)
			if n := len(f.queue.messages()); n != 0 {
				t.Errorf("%d messages queued; want none", n)
			}
			if tc.name == "queue down" { // the item stays pending: retry again
				if got, _ := o.Get(context.Background(), "d1"); got.State != outbox.Pending {
					t.Errorf("d1 is %s; want pending", got.State)
				}
			}
		})
	}
}
