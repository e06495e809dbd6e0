package gateway

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/run"
)

// cronWireCases run in order against one cron fixture.
var cronWireCases = []wireCase{
	{name: "cron.add", method: "cron.add", params: `{"name":"Daily <digest> & more","agentId":"main","schedule":{"kind":"cron","expr":"0 7 * * 1-5","tz":"Europe/Berlin"},` +
		`"payload":{"kind":"agentTurn","message":"digest","model":"openai/gpt-5","thinking":"low","timeoutSeconds":60,"deliver":true,"channel":"telegram","to":"42"}}`},
	{name: "cron.add.main", method: "cron.add", params: `{"id":"mail","name":"Mail","enabled":false,"deleteAfterRun":true,"schedule":{"kind":"at","atMs":1772452800000},` +
		`"sessionTarget":"main","wakeMode":"next-heartbeat","payload":{"kind":"systemEvent","text":"check mail"}}`},
	{name: "cron.update", method: "cron.update", params: `{"id":"mail","patch":{"enabled":true,"schedule":{"kind":"every","everyMs":3600000}}}`},
	{name: "cron.status", method: "cron.status", params: `{}`},
	{name: "cron.list", method: "cron.list", params: `{"includeDisabled":true}`},
	{name: "cron.run", method: "cron.run", params: `{"id":"job-1"}`},
	{name: "cron.runs", method: "cron.runs", params: `{"id":"job-1","limit":10}`},
	{name: "cron.remove", method: "cron.remove", params: `{"id":"mail"}`},
	{name: "cron.error.params", method: "cron.add", params: `{"name":"x","schedule":{"kind":"every","everyMs":1000},"payload":{"kind":"agentTurn","message":"m"}}`, status: http.StatusBadRequest},
}

// cronFixture is a gateway with an in-memory cron store and ids job-1,
// job-2, ...
func cronFixture(t *testing.T) (*fixture, *cron.Memory) {
	store := &cron.Memory{}
	n := 0
	f := newFixture(t, "", func(d *Deps) {
		d.Cron = &CronDeps{Store: store, NewID: func() string { n++; return fmt.Sprintf("job-%d", n) }}
	})
	return f, store
}

// TestCronWireGolden pins the cron methods' answers as TestWireGolden
// does the others' (-update rewrites testdata/wire/cron.*.json).
func TestCronWireGolden(t *testing.T) {
	f, _ := cronFixture(t)
	checkWireGolden(t, f.handler, cronWireCases)
}

// TestCronWireTypes: the cron golden answers and params round-trip
// through the exported types (as TestWireTypes).
func TestCronWireTypes(t *testing.T) {
	saved := wireCases
	defer func() { wireCases = saved }()
	wireCases = cronWireCases
	TestWireTypes(t)
}

func TestCronNotConfigured(t *testing.T) {
	f := newFixture(t, "")
	for _, m := range []string{"cron.status", "cron.list", "cron.add", "cron.update", "cron.remove", "cron.run", "cron.runs"} {
		t.Run(m, func(t *testing.T) {
			params := map[string]any{}
			switch m {
			case "cron.add":
				params = map[string]any{"name": "x", "schedule": map[string]any{"kind": "every", "everyMs": 60000}, "payload": map[string]any{"kind": "agentTurn", "message": "m"}}
			case "cron.update":
				params = map[string]any{"id": "a", "patch": map[string]any{}}
			case "cron.remove", "cron.run", "cron.runs":
				params = map[string]any{"id": "a"}
			}
			f.call(m, params).wantError(t, http.StatusNotImplemented, fault.Internal, "cron is not configured on this gateway")
		})
	}
}

func TestCronBadParamsNameTheField(t *testing.T) {
	f, _ := cronFixture(t)
	agentTurn := map[string]any{"kind": "agentTurn", "message": "m"}
	every := map[string]any{"kind": "every", "everyMs": 60000}
	if r := f.call("cron.add", map[string]any{"id": "a", "name": "a", "schedule": every, "payload": agentTurn}); r.status != http.StatusOK {
		t.Fatalf("seed: %d %+v", r.status, r.Error)
	}
	for _, tc := range []struct {
		name, method string
		params       map[string]any
		status       int
		code         fault.Code
		prefix       string
	}{
		{"add: unknown field", "cron.add", map[string]any{"name": "x", "schedule": every, "payload": agentTurn, "state": map[string]any{}}, 400, fault.Invalid, "params.state: unknown field"},
		{"add: no name", "cron.add", map[string]any{"schedule": every, "payload": agentTurn}, 400, fault.Invalid, "params.name: required"},
		{"add: wrong type", "cron.add", map[string]any{"name": "x", "schedule": every, "payload": agentTurn, "enabled": "yes"}, 400, fault.Invalid, "params.enabled: must be a boolean"},
		{"add: bad schedule kind", "cron.add", map[string]any{"name": "x", "schedule": map[string]any{"kind": "weekly"}, "payload": agentTurn}, 400, fault.Invalid, "params.schedule.kind:"},
		{"add: bad cron", "cron.add", map[string]any{"name": "x", "schedule": map[string]any{"kind": "cron", "expr": "0 25 * * *"}, "payload": agentTurn}, 400, fault.Invalid, "params.schedule.expr: hour:"},
		{"add: bad tz", "cron.add", map[string]any{"name": "x", "schedule": map[string]any{"kind": "cron", "expr": "0 5 * * *", "tz": "Nowhere"}, "payload": agentTurn}, 400, fault.Invalid, "params.schedule.tz:"},
		{"add: payload without message", "cron.add", map[string]any{"name": "x", "schedule": every, "payload": map[string]any{"kind": "agentTurn"}}, 400, fault.Invalid, "params.payload.message:"},
		{"add: bad id", "cron.add", map[string]any{"id": "a/b", "name": "x", "schedule": every, "payload": agentTurn}, 400, fault.Invalid, "params.id:"},
		{"add: existing id", "cron.add", map[string]any{"id": "a", "name": "x", "schedule": every, "payload": agentTurn}, 409, fault.Conflict, ""},
		{"update: no id", "cron.update", map[string]any{"patch": map[string]any{}}, 400, fault.Invalid, "params.id: required"},
		{"update: no patch", "cron.update", map[string]any{"id": "a"}, 400, fault.Invalid, "params.patch: required"},
		{"update: bad patch", "cron.update", map[string]any{"id": "a", "patch": map[string]any{"wakeMode": "soon"}}, 400, fault.Invalid, "params.patch.wakeMode:"},
		{"update: missing job", "cron.update", map[string]any{"id": "zz", "patch": map[string]any{}}, 404, fault.NotFound, ""},
		{"remove: no id", "cron.remove", map[string]any{}, 400, fault.Invalid, "params.id: required"},
		{"remove: missing job", "cron.remove", map[string]any{"id": "zz"}, 404, fault.NotFound, ""},
		{"run: no id", "cron.run", map[string]any{}, 400, fault.Invalid, "params.id: required"},
		{"run: missing job", "cron.run", map[string]any{"id": "zz"}, 404, fault.NotFound, ""},
		{"runs: no id", "cron.runs", map[string]any{}, 400, fault.Invalid, "params.id: required"},
		{"runs: negative limit", "cron.runs", map[string]any{"id": "a", "limit": -1}, 400, fault.Invalid, "params.limit:"},
		{"list: unknown field", "cron.list", map[string]any{"all": true}, 400, fault.Invalid, "params.all: unknown field"},
		{"status: unknown field", "cron.status", map[string]any{"x": 1}, 400, fault.Invalid, "params.x: unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := f.call(tc.method, tc.params)
			r.wantError(t, tc.status, tc.code, "")
			if !strings.HasPrefix(r.Error.Message, tc.prefix) {
				t.Errorf("message %q; want it to start with %q", r.Error.Message, tc.prefix)
			}
		})
	}
}

func TestCronLifecycle(t *testing.T) {
	f, store := cronFixture(t)
	ctx := context.Background()
	var added cron.Job
	f.call("cron.add", map[string]any{"name": "Nightly", "schedule": map[string]any{"kind": "cron", "expr": "0 3 * * *"},
		"payload": map[string]any{"kind": "agentTurn", "message": "tidy up"}}).decode(t, &added)
	if added.ID != "job-1" || !added.Enabled || added.SessionTarget != cron.TargetIsolated || added.State.NextRunAtMs != testNow.Add(15*60*60*1000*1e6).UnixMilli() {
		t.Fatalf("added %+v", added)
	}
	if got, err := store.Get(ctx, "job-1"); err != nil || !cmp.Equal(added, got) {
		t.Fatalf("stored %+v, %v", got, err)
	}

	// Disabled jobs are listed only on request.
	var upd cron.Job
	f.call("cron.update", map[string]any{"id": "JOB-1", "patch": map[string]any{"enabled": false}}).decode(t, &upd)
	if upd.Enabled || upd.State.NextRunAtMs != 0 || upd.Name != "Nightly" {
		t.Fatalf("updated %+v", upd)
	}
	var list CronListResult
	f.call("cron.list", nil).decode(t, &list)
	if len(list.Jobs) != 0 {
		t.Errorf("default list has disabled jobs: %+v", list.Jobs)
	}
	f.call("cron.list", map[string]any{"includeDisabled": true}).decode(t, &list)
	if len(list.Jobs) != 1 {
		t.Errorf("includeDisabled list = %+v", list.Jobs)
	}

	// cron.run queues through the door, disabled or not, a fresh message
	// each time, in the job's cron session; each is recorded.
	var r1, r2 CronRunResult
	f.call("cron.run", map[string]any{"id": "job-1"}).decode(t, &r1)
	f.call("cron.run", map[string]any{"id": "job-1"}).decode(t, &r2)
	msgs := f.queue.messages()
	if len(msgs) != 2 || r1.RunID == r2.RunID {
		t.Fatalf("queued %d messages, runs %s %s; want 2 distinct", len(msgs), r1.RunID, r2.RunID)
	}
	want := inbound.Message{ID: "cron:job-1:manual-job-2", AgentID: "main", SessionKey: "agent:main:cron:job-1", Channel: inbound.Internal,
		ChatType: inbound.Direct, From: "cron", To: "cron", SenderName: "cron", Text: "tidy up", ReceivedAt: testNow.UnixMilli(), Label: "cron: Nightly", Provenance: inbound.Owner}
	if d := cmp.Diff(want, msgs[0]); d != "" {
		t.Errorf("queued message (-want +got):\n%s", d)
	}
	if r1.RunID != run.NewID(want.ID) || r1.SessionKey != "agent:main:cron:job-1" {
		t.Errorf("run result %+v", r1)
	}
	var runs CronRunsResult
	f.call("cron.runs", map[string]any{"id": "job-1"}).decode(t, &runs)
	if len(runs.Entries) != 2 || runs.Entries[0].Action != cron.ActionQueued {
		t.Errorf("runs = %+v", runs.Entries)
	}

	// Removing keeps the history.
	f.call("cron.remove", map[string]any{"id": "job-1"}).decode(t, &CronRemoveResult{})
	if _, err := store.Get(ctx, "job-1"); !fault.Is(err, fault.NotFound) {
		t.Errorf("removed job still there: %v", err)
	}
	f.call("cron.runs", map[string]any{"id": "job-1"}).decode(t, &runs)
	if len(runs.Entries) != 2 {
		t.Errorf("history after remove = %d records", len(runs.Entries))
	}
	var st CronStatusResult
	f.call("cron.status", nil).decode(t, &st)
	if st != (CronStatusResult{Enabled: true}) {
		t.Errorf("status = %+v", st)
	}
}

func TestCronRunMainJobIsASystemEvent(t *testing.T) {
	f, _ := cronFixture(t)
	f.call("cron.add", map[string]any{"id": "mail", "name": "Mail", "schedule": map[string]any{"kind": "every", "everyMs": 600000},
		"payload": map[string]any{"kind": "systemEvent", "text": "check mail"}}).decode(t, &cron.Job{})
	var r CronRunResult
	f.call("cron.run", map[string]any{"id": "mail"}).decode(t, &r)
	msgs := f.queue.messages()
	if len(msgs) != 1 || msgs[0].SessionKey != "agent:main:main" || msgs[0].Text != "System event (source: cron job Mail): check mail" {
		t.Fatalf("queued %+v", msgs)
	}
	if r.SessionKey != "main" && r.SessionKey != "agent:main:main" {
		t.Errorf("session key %q", r.SessionKey)
	}
}
