package automation_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/automation"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
)

// recordingIngress queues every message and records it.
type recordingIngress struct {
	mu   sync.Mutex
	msgs []inbound.Message
}

func (q *recordingIngress) Queue(_ context.Context, m inbound.Message) (string, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.msgs = append(q.msgs, m)
	return "run-" + m.ID, nil
}

// cronRig is the cron core in memory and a recording ingress; each tool
// it makes is the cron tool of a new turn (a new caller message), as
// when every call is its own turn.
type cronRig struct {
	svc     *cron.Service
	ingress tools.Ingress
	clock   time.Time
	turns   int
}

func newCronRig() (*cronRig, *cron.Memory, *cron.MemorySchedules, *recordingIngress) {
	store, schedules, in := &cron.Memory{}, &cron.MemorySchedules{}, &recordingIngress{}
	c := &cronRig{ingress: in, clock: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
	c.svc = &cron.Service{Store: store, Schedules: schedules, Now: func() time.Time { return c.clock }}
	return c, store, schedules, in
}

// tool is the cron tool of the agent main's next turn.
func (c *cronRig) tool() automation.CronTool {
	c.turns++
	c.clock = c.clock.Add(time.Second)
	msg := inbound.Message{ID: fmt.Sprintf("telegram:42:%d", 1000+c.turns), SessionKey: "agent:main:main"}
	run := tools.Run{Config: config.Default(), Message: msg, AgentID: "main", Ingress: c.ingress, Now: func() time.Time { return c.clock }}
	return automation.NewCronTool(c.svc, run)
}

const dailyJob = `{"action":"add","job":{"id":"daily","name":"Daily","schedule":{"kind":"cron","expr":"0 9 * * *","tz":"UTC"},` +
	`"payload":{"kind":"agentTurn","message":"summarise the day"}}}`

func TestCronTool(t *testing.T) {
	c, store, schedules, in := newCronRig()
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
			res := tooltest.Call(t, c.tool(), s.args)
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
	c, _, _, _ := newCronRig()
	c.ingress = nil
	if res := tooltest.Call(t, c.tool(), dailyJob); res.IsError {
		t.Fatalf("add: %s", res.Content)
	}
	for _, args := range []string{`{"action":"run","id":"daily"}`, `{"action":"wake","text":"hi"}`} {
		if res := tooltest.Call(t, c.tool(), args); !res.IsError || !strings.Contains(res.Content, "cannot queue") {
			t.Errorf("%s: %+v, want a tool error saying it cannot queue", args, res)
		}
	}
}
