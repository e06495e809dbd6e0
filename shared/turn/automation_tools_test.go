package turn_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
)

// queueIngress records the messages a turn queues.
type queueIngress struct {
	mu   sync.Mutex
	msgs []inbound.Message
}

func (q *queueIngress) Queue(_ context.Context, m inbound.Message) (string, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.msgs = append(q.msgs, m)
	return "run-" + m.ID, nil
}

// memDoc is an in-memory config.DocumentStore with SSM's versions.
// race, when set, is written by "another writer" just before the next
// PutIfVersion (once).
type memDoc struct {
	mu      sync.Mutex
	data    []byte
	version int // 0: none stored
	race    []byte
}

func (d *memDoc) Fetch(context.Context) ([]byte, string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.version == 0 {
		return nil, "", fault.New(fault.NotFound, "no document")
	}
	return d.data, strconv.Itoa(d.version), nil
}

func (d *memDoc) Put(_ context.Context, data []byte) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.data, d.version = data, d.version+1
	return strconv.Itoa(d.version), nil
}

func (d *memDoc) PutIfVersion(ctx context.Context, data []byte, version string) (string, error) {
	if d.race != nil {
		race := d.race
		d.race = nil
		d.Put(ctx, race)
	}
	d.mu.Lock()
	current := ""
	if d.version > 0 {
		current = strconv.Itoa(d.version)
	}
	d.mu.Unlock()
	if current != version {
		return "", fault.New(fault.Conflict, "version %s, not %s", current, version)
	}
	return d.Put(ctx, data)
}

func TestAutomationToolsOffered(t *testing.T) {
	tests := []struct {
		name        string
		config      string
		backends    bool
		wantCron    bool
		wantGateway bool
	}{
		{name: "no backends", config: `{commands: {restart: true}}`},
		{name: "cron; gateway off by default", config: rigConfig, backends: true, wantCron: true},
		{name: "gateway enabled by commands.restart", config: `{commands: {restart: true}}`, backends: true, wantCron: true, wantGateway: true},
		{name: "denied by the policy", config: `{commands: {restart: true}, tools: {deny: ["group:automation"]}}`, backends: true},
		{name: "gateway denied alone", config: `{commands: {restart: true}, tools: {deny: ["gateway"]}}`, backends: true, wantCron: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(tt.config)
			if tt.backends {
				r.proc.Cron, r.proc.ConfigDoc = &cron.Service{Store: &cron.Memory{}}, &memDoc{}
			}
			llm := &scriptModel{answers: []model.Response{final("ok")}}
			r.proc.Models["zero"] = llm
			r.handle(t, msg(1, "hi"))
			names := toolNames(llm.seen[0].Tools)
			got := []bool{slices.Contains(names, "cron"), slices.Contains(names, "gateway")}
			if diff := cmp.Diff([]bool{tt.wantCron, tt.wantGateway}, got); diff != "" {
				t.Errorf("[cron gateway] offered (-want +got):\n%s(tools %v)", diff, names)
			}
		})
	}
}

// cronRig is a rig with the cron core in memory and a recording ingress.
func cronRig() (*rig, *cron.Memory, *cron.MemorySchedules, *queueIngress) {
	r := newRig()
	store, schedules, in := &cron.Memory{}, &cron.MemorySchedules{}, &queueIngress{}
	r.proc.Cron = &cron.Service{Store: store, Schedules: schedules, Now: func() time.Time { return r.clock }}
	r.proc.Ingress = in
	return r, store, schedules, in
}

const dailyJob = `{"action":"add","job":{"id":"daily","name":"Daily","schedule":{"kind":"cron","expr":"0 9 * * *","tz":"UTC"},` +
	`"payload":{"kind":"agentTurn","message":"summarise the day"}}}`

func TestCronTool(t *testing.T) {
	r, store, schedules, in := cronRig()
	steps := []struct {
		name      string
		args      string
		wantErr   bool
		wantIn    []string // substrings of the result
		wantJobs  []string // stored job ids after the step
		wantSched []string // schedule names after the step
	}{
		{name: "empty status", args: `{"action":"status"}`, wantIn: []string{`"jobs":0`}, wantJobs: []string{}, wantSched: []string{}},
		{name: "add", args: dailyJob, wantIn: []string{`"id":"daily"`, `"nextRunAtMs"`}, wantJobs: []string{"daily"}, wantSched: []string{"daily"}},
		{name: "add again, same job: idempotent", args: dailyJob, wantIn: []string{`"id":"daily"`}, wantJobs: []string{"daily"}, wantSched: []string{"daily"}},
		{name: "add an invalid job", args: `{"action":"add","job":{"name":"x","schedule":{"kind":"weekly"},"payload":{"kind":"agentTurn","message":"m"}}}`,
			wantErr: true, wantIn: []string{"schedule"}, wantJobs: []string{"daily"}, wantSched: []string{"daily"}},
		{name: "add without a job", args: `{"action":"add"}`, wantErr: true, wantIn: []string{"job: required"}, wantJobs: []string{"daily"}, wantSched: []string{"daily"}},
		{name: "list", args: `{"action":"list"}`, wantIn: []string{`"id":"daily"`}, wantJobs: []string{"daily"}, wantSched: []string{"daily"}},
		{name: "update", args: `{"action":"update","id":"daily","patch":{"enabled":false}}`, wantIn: []string{`"enabled":false`}, wantJobs: []string{"daily"}, wantSched: []string{"daily"}},
		{name: "list hides the disabled job", args: `{"action":"list"}`, wantIn: []string{`"jobs":[]`}, wantJobs: []string{"daily"}, wantSched: []string{"daily"}},
		{name: "update a missing job", args: `{"action":"update","id":"nope","patch":{"enabled":true}}`, wantErr: true, wantJobs: []string{"daily"}, wantSched: []string{"daily"}},
		{name: "run", args: `{"action":"run","id":"daily"}`, wantIn: []string{`"status":"queued"`, `agent:main:cron:daily`}, wantJobs: []string{"daily"}, wantSched: []string{"daily"}},
		{name: "runs", args: `{"action":"runs","id":"daily"}`, wantIn: []string{`"action":"queued"`}, wantJobs: []string{"daily"}, wantSched: []string{"daily"}},
		{name: "runs limit out of range", args: `{"action":"runs","id":"daily","limit":1000}`, wantErr: true, wantJobs: []string{"daily"}, wantSched: []string{"daily"}},
		{name: "wake", args: `{"action":"wake","text":"check the mail"}`, wantIn: []string{`"status":"queued"`, `agent:main:main`}, wantJobs: []string{"daily"}, wantSched: []string{"daily"}},
		{name: "wake without text", args: `{"action":"wake"}`, wantErr: true, wantIn: []string{"text: required"}, wantJobs: []string{"daily"}, wantSched: []string{"daily"}},
		{name: "remove", args: `{"action":"remove","id":"daily"}`, wantIn: []string{`"removed":true`}, wantJobs: []string{}, wantSched: []string{}},
		{name: "unknown action", args: `{"action":"explode"}`, wantErr: true, wantIn: []string{"unknown"}, wantJobs: []string{}, wantSched: []string{}},
		{name: "unknown argument", args: `{"action":"list","bogus":1}`, wantErr: true, wantJobs: []string{}, wantSched: []string{}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			res := r.callTool(t, "cron", s.args)
			if res.IsError != s.wantErr {
				t.Fatalf("IsError = %v, want %v: %s", res.IsError, s.wantErr, res.Content)
			}
			for _, w := range s.wantIn {
				if !strings.Contains(res.Content, w) {
					t.Errorf("result %s lacks %q", res.Content, w)
				}
			}
			jobs, _ := store.List(context.Background())
			ids := []string{}
			for _, j := range jobs {
				ids = append(ids, j.ID)
			}
			if diff := cmp.Diff(s.wantJobs, ids); diff != "" {
				t.Errorf("stored jobs (-want +got):\n%s", diff)
			}
			names := []string{}
			for name := range schedules.Specs {
				names = append(names, name)
			}
			if diff := cmp.Diff(s.wantSched, names); diff != "" {
				t.Errorf("schedules (-want +got):\n%s", diff)
			}
		})
	}
	var kinds []string
	for _, m := range in.msgs {
		kinds = append(kinds, fmt.Sprintf("%s %s", m.SessionKey, strings.SplitN(m.ID, ":", 2)[0]))
	}
	if diff := cmp.Diff([]string{"agent:main:cron:daily cron", "agent:main:main wake"}, kinds); diff != "" {
		t.Errorf("queued messages (-want +got):\n%s", diff)
	}
}

func TestCronToolWithoutIngress(t *testing.T) {
	r, _, _, _ := cronRig()
	r.proc.Ingress = nil
	if res := r.callTool(t, "cron", dailyJob); res.IsError {
		t.Fatalf("add: %s", res.Content)
	}
	for _, args := range []string{`{"action":"run","id":"daily"}`, `{"action":"wake","text":"hi"}`} {
		if res := r.callTool(t, "cron", args); !res.IsError || !strings.Contains(res.Content, "cannot queue") {
			t.Errorf("%s: %+v, want a tool error saying it cannot queue", args, res)
		}
	}
}

func TestGatewayTool(t *testing.T) {
	tests := []struct {
		name      string
		stored    string // "": none
		race      string // another writer's document just before the write
		args      string
		wantErr   string // substring of the tool error; "": success
		wantIn    string // substring of the result
		wantDoc   map[string]any
		wantStore string // the stored document verbatim, when checked
	}{
		{name: "get with nothing stored", args: `{"action":"config.get"}`, wantIn: `"raw":"{}"`},
		{name: "get", stored: `{commands: {restart: true}}`, args: `{"action":"config.get"}`, wantIn: `"version":"1"`},
		{name: "schema under a prefix", args: `{"action":"config.schema","prefix":"commands"}`, wantIn: "commands.restart (boolean, default false)"},
		{name: "schema of an unknown prefix", args: `{"action":"config.schema","prefix":"nope"}`, wantIn: "No configuration key"},
		{name: "apply", stored: `{}`, args: `{"action":"config.apply","raw":"{tools: {web: {search: {enabled: true}}}}"}`,
			wantIn: `"version":"2"`, wantStore: `{tools: {web: {search: {enabled: true}}}}`},
		{name: "apply an invalid document changes nothing", stored: `{}`, args: `{"action":"config.apply","raw":"{session: {scope: 'nope'}}"}`,
			wantErr: "invalid configuration: session.scope", wantStore: `{}`},
		{name: "apply at a stale base version", stored: `{}`, args: `{"action":"config.apply","raw":"{}","baseVersion":"7"}`, wantErr: "version"},
		{name: "patch", stored: `{commands: {restart: true}}`, args: `{"action":"config.patch","patch":{"tools":{"web":{"fetch":{"maxChars":5000}}}}}`,
			wantDoc: map[string]any{"commands": map[string]any{"restart": true}, "tools": map[string]any{"web": map[string]any{"fetch": map[string]any{"maxChars": 5000.0}}}}},
		{name: "an invalid patch changes nothing", stored: `{a: 1}`, args: `{"action":"config.patch","patch":{"session":{"scope":"nope"}}}`,
			wantErr: "invalid configuration", wantStore: `{a: 1}`},
		{name: "patch is merged again onto a racing write", stored: `{}`, race: `{"commands":{"restart":true}}`,
			args:    `{"action":"config.patch","patch":{"tools":{"profile":"coding"}}}`,
			wantDoc: map[string]any{"commands": map[string]any{"restart": true}, "tools": map[string]any{"profile": "coding"}}},
		{name: "patch at a base version that lost the race", stored: `{}`, race: `{"commands":{"restart":true}}`,
			args: `{"action":"config.patch","baseVersion":"1","patch":{"tools":{"profile":"coding"}}}`, wantErr: "version",
			wantDoc: map[string]any{"commands": map[string]any{"restart": true}}},
		{name: "patch that is not an object", stored: `{}`, args: `{"action":"config.patch","patch":"x"}`, wantErr: "patch: must be a JSON object"},
		{name: "restart", args: `{"action":"restart","delayMs":2000}`, wantIn: "Nothing to restart"},
		{name: "update.run", args: `{"action":"update.run"}`, wantIn: "Nothing to restart"},
		{name: "unknown action", args: `{"action":"reboot"}`, wantErr: "unknown action"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(`{commands: {restart: true}}`)
			doc := &memDoc{}
			if tt.stored != "" {
				doc.Put(context.Background(), []byte(tt.stored))
			}
			if tt.race != "" {
				doc.race = []byte(tt.race)
			}
			r.proc.ConfigDoc = doc
			res := r.callTool(t, "gateway", tt.args)
			if got := res.IsError; got != (tt.wantErr != "") || tt.wantErr != "" && !strings.Contains(res.Content, tt.wantErr) {
				t.Fatalf("result %+v; want error %q", res, tt.wantErr)
			}
			if !strings.Contains(res.Content, tt.wantIn) {
				t.Errorf("result %s lacks %q", res.Content, tt.wantIn)
			}
			if tt.wantStore != "" {
				if diff := cmp.Diff(tt.wantStore, string(doc.data)); diff != "" {
					t.Errorf("stored (-want +got):\n%s", diff)
				}
			}
			if tt.wantDoc != nil {
				var got map[string]any
				if err := json.Unmarshal(doc.data, &got); err != nil {
					t.Fatalf("stored %s: %v", doc.data, err)
				}
				if diff := cmp.Diff(tt.wantDoc, got); diff != "" {
					t.Errorf("stored document (-want +got):\n%s", diff)
				}
			}
		})
	}
}
