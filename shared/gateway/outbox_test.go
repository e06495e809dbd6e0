package gateway

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/turn"
	"github.com/zero-gateway/zero/shared/turn/turntest"
)

func init() {
	wireTypes["outbox.list"] = typesOf[OutboxListParams, OutboxListResult]()
}

// outboxWireCases run against outboxFixture.
var outboxWireCases = []wireCase{
	{name: "outbox.list", method: "outbox.list", params: `{}`},
	{name: "outbox.list.dead", method: "outbox.list", params: `{"state":"dead","limit":1}`},
	{name: "outbox.error.params", method: "outbox.list", params: `{"state":"lost"}`, status: http.StatusBadRequest},
}

// outboxFixture is a gateway whose outbox holds a sent, a pending and two
// dead items, one with a long text.
func outboxFixture(t *testing.T) (*fixture, *turntest.MemOutbox) {
	t.Helper()
	o := &turntest.MemOutbox{}
	ctx := context.Background()
	to := session.DeliveryContext{Channel: "telegram", To: "42", ThreadID: "7"}
	items := []struct {
		item      turn.OutboxItem
		state     string
		attempts  int
		lastError string
	}{
		{turn.OutboxItem{ID: "s1", Kind: turn.OutboxA2A, SessionKey: "agent:main:main", Delivery: to, Text: "done <b> & ok", CreatedAt: nowMS - 4000}, turn.OutboxSent, 1, ""},
		{turn.OutboxItem{ID: "p1", Kind: turn.OutboxSubagent, SessionKey: "agent:main:subagent:p1", Delivery: to, Text: "pending", CreatedAt: nowMS - 3000}, turn.OutboxPending, 2, "unavailable: telegram is down"},
		{turn.OutboxItem{ID: "d1", Kind: turn.OutboxSubagent, SessionKey: "agent:main:subagent:d1", Delivery: to, Text: "old", CreatedAt: nowMS - 2000}, turn.OutboxDead, 5, "not_found: chat not found"},
		{turn.OutboxItem{ID: "d2", Kind: turn.OutboxA2A, SessionKey: "agent:ops:main", Delivery: session.DeliveryContext{Channel: "discord", To: "123", AccountID: "app"},
			Text: strings.Repeat("ü", 250), CreatedAt: nowMS - 1000}, turn.OutboxDead, 1, `no sender for channel "discord"`},
	}
	for _, it := range items {
		if err := o.Put(ctx, it.item); err != nil {
			t.Fatal(err)
		}
		if err := o.Settle(ctx, it.item.ID, it.state, it.attempts, it.lastError, it.item.CreatedAt+500); err != nil {
			t.Fatal(err)
		}
	}
	return newFixture(t, "", func(d *Deps) { d.Outbox = o }), o
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
		{"store down", func(d *Deps) { d.Outbox = &turntest.MemOutbox{Fail: fault.New(fault.Unavailable, "dynamodb is down")} }, nil,
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
