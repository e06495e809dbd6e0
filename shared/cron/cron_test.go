package cron_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/cron/crontest"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
)

func TestMemoryStore(t *testing.T) {
	crontest.TestStore(t, func(*testing.T) cron.Store { return &cron.Memory{} })
}

func TestMemorySchedules(t *testing.T) {
	crontest.TestSchedules(t, func(*testing.T) crontest.Schedules {
		m := &cron.MemorySchedules{}
		return crontest.Schedules{Schedules: m, Get: func(_ context.Context, name string) (cron.ScheduleSpec, error) {
			spec, ok := m.Specs[name]
			if !ok {
				return cron.ScheduleSpec{}, fault.New(fault.NotFound, "no schedule %s", name)
			}
			return spec, nil
		}}
	})
}

func isolated() cron.Job {
	return cron.Job{ID: "daily", Name: "Daily digest", Enabled: true,
		Schedule: cron.Schedule{Kind: cron.KindCron, Expr: "0 7 * * *", TZ: "Europe/Berlin"},
		Payload:  cron.Payload{Kind: cron.PayloadAgentTurn, Message: "digest please"}}
}

func TestValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(j *cron.Job)
		want   string // prefix of the error; "" valid
	}{
		{"valid isolated", func(*cron.Job) {}, ""},
		{"valid main", func(j *cron.Job) {
			j.Payload = cron.Payload{Kind: cron.PayloadSystemEvent, Text: "check mail"}
			j.SessionTarget = ""
		}, ""},
		{"upper-case id is lowered", func(j *cron.Job) { j.ID = " Daily " }, ""},
		{"no id", func(j *cron.Job) { j.ID = "" }, "id:"},
		{"bad id", func(j *cron.Job) { j.ID = "a b" }, "id:"},
		{"long id", func(j *cron.Job) { j.ID = strings.Repeat("a", 65) }, "id:"},
		{"no name", func(j *cron.Job) { j.Name = " " }, "name:"},
		{"no schedule kind", func(j *cron.Job) { j.Schedule = cron.Schedule{} }, "schedule.kind:"},
		{"unknown schedule kind", func(j *cron.Job) { j.Schedule.Kind = "hourly" }, "schedule.kind:"},
		{"at without atMs", func(j *cron.Job) { j.Schedule = cron.Schedule{Kind: cron.KindAt} }, "schedule.atMs:"},
		{"at with expr", func(j *cron.Job) { j.Schedule.Kind, j.Schedule.AtMs = cron.KindAt, 5 }, "schedule:"},
		{"every without everyMs", func(j *cron.Job) { j.Schedule = cron.Schedule{Kind: cron.KindEvery} }, "schedule.everyMs:"},
		{"every 30 s", func(j *cron.Job) { j.Schedule = cron.Schedule{Kind: cron.KindEvery, EveryMs: 30000} }, "schedule.everyMs:"},
		{"every 90 s", func(j *cron.Job) { j.Schedule = cron.Schedule{Kind: cron.KindEvery, EveryMs: 90000} }, "schedule.everyMs:"},
		{"cron without expr", func(j *cron.Job) { j.Schedule.Expr = "" }, "schedule.expr:"},
		{"cron 4 fields", func(j *cron.Job) { j.Schedule.Expr = "0 7 * *" }, "schedule.expr:"},
		{"cron minute 60", func(j *cron.Job) { j.Schedule.Expr = "60 7 * * *" }, "schedule.expr: minute:"},
		{"cron both days", func(j *cron.Job) { j.Schedule.Expr = "0 7 1 * 1" }, "schedule.expr:"},
		{"cron L", func(j *cron.Job) { j.Schedule.Expr = "0 7 L * *" }, "schedule.expr: day-of-month:"},
		{"cron dow step", func(j *cron.Job) { j.Schedule.Expr = "0 7 * * */2" }, "schedule.expr:"},
		{"cron seconds not 0", func(j *cron.Job) { j.Schedule.Expr = "30 0 7 * * *" }, "schedule.expr:"},
		{"cron aws both ?", func(j *cron.Job) { j.Schedule.Expr = "0 7 ? * ? *" }, "schedule.expr:"},
		{"bad tz", func(j *cron.Job) { j.Schedule.TZ = "Mars/Olympus" }, "schedule.tz:"},
		{"bad target", func(j *cron.Job) { j.SessionTarget = "shared" }, "sessionTarget:"},
		{"main with agentTurn", func(j *cron.Job) { j.SessionTarget = cron.TargetMain }, "payload.kind:"},
		{"isolated with systemEvent", func(j *cron.Job) {
			j.SessionTarget, j.Payload = cron.TargetIsolated, cron.Payload{Kind: cron.PayloadSystemEvent, Text: "x"}
		}, "payload.kind:"},
		{"bad wake mode", func(j *cron.Job) { j.WakeMode = "later" }, "wakeMode:"},
		{"no payload kind", func(j *cron.Job) { j.Payload.Kind = "" }, "payload.kind:"},
		{"no message", func(j *cron.Job) { j.Payload.Message = " " }, "payload.message:"},
		{"negative timeout", func(j *cron.Job) { j.Payload.TimeoutSeconds = -1 }, "payload.timeoutSeconds:"},
		{"deliver without to", func(j *cron.Job) { j.Payload.Deliver, j.Payload.Channel = true, "telegram" }, "payload.to:"},
		{"to without deliver", func(j *cron.Job) { j.Payload.To = "42" }, "payload.deliver:"},
		{"model without provider", func(j *cron.Job) { j.Payload.Model = "sonnet" }, "payload.model:"},
		{"system event without text", func(j *cron.Job) {
			j.SessionTarget, j.Payload = "", cron.Payload{Kind: cron.PayloadSystemEvent}
		}, "payload.text:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := isolated()
			tc.change(&j)
			_, err := cron.New(j, time.Unix(0, 0))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("valid job refused: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("accepted; want an error starting %q", tc.want)
			case tc.want != "" && (!fault.Is(err, fault.Invalid) || !strings.HasPrefix(fault.Message(err), tc.want)):
				t.Fatalf("error %v; want invalid starting %q", err, tc.want)
			}
		})
	}
}

func TestNewFillsDefaultsAndNextRun(t *testing.T) {
	now := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC) // 09:00 in Berlin
	j, err := cron.New(isolated(), now)
	if err != nil {
		t.Fatal(err)
	}
	if j.SessionTarget != cron.TargetIsolated || j.WakeMode != cron.WakeNow || j.CreatedAtMs != now.UnixMilli() {
		t.Errorf("defaults: %+v", j)
	}
	want := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC).UnixMilli() // 07:00 CET next day
	if j.State.NextRunAtMs != want {
		t.Errorf("nextRunAtMs = %v; want %v", time.UnixMilli(j.State.NextRunAtMs).UTC(), time.UnixMilli(want).UTC())
	}
	off := isolated()
	off.Enabled = false
	if j, _ := cron.New(off, now); j.State.NextRunAtMs != 0 {
		t.Errorf("a disabled job has a next run: %d", j.State.NextRunAtMs)
	}
}

func TestNextRunAtMs(t *testing.T) {
	now := time.Date(2026, 11, 26, 8, 0, 30, 0, time.UTC) // a Thursday
	ms := func(t time.Time) int64 { return t.UnixMilli() }
	for _, tc := range []struct {
		name string
		s    cron.Schedule
		want int64
	}{
		{"at in the future", cron.Schedule{Kind: cron.KindAt, AtMs: ms(now) + 5000}, ms(now) + 5000},
		{"at in the past", cron.Schedule{Kind: cron.KindAt, AtMs: ms(now) - 5000}, 0},
		{"every from epoch", cron.Schedule{Kind: cron.KindEvery, EveryMs: 3600000}, ms(time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC))},
		{"every from a future anchor", cron.Schedule{Kind: cron.KindEvery, EveryMs: 60000, AnchorMs: ms(now) + 1}, ms(now) + 1},
		{"every from a past anchor", cron.Schedule{Kind: cron.KindEvery, EveryMs: 600000, AnchorMs: ms(now) - 1000}, ms(now) - 1000 + 600000},
		{"cron every 5 minutes", cron.Schedule{Kind: cron.KindCron, Expr: "*/5 * * * *"}, ms(time.Date(2026, 11, 26, 8, 5, 0, 0, time.UTC))},
		{"cron weekdays 7:00 New York", cron.Schedule{Kind: cron.KindCron, Expr: "0 7 * * 1-5", TZ: "America/New_York"},
			ms(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))},
		{"cron Sunday as 7", cron.Schedule{Kind: cron.KindCron, Expr: "0 0 * * 7"}, ms(time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC))},
		{"cron Sunday as SUN", cron.Schedule{Kind: cron.KindCron, Expr: "0 0 * * sun"}, ms(time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC))},
		{"cron 1st of month", cron.Schedule{Kind: cron.KindCron, Expr: "30 6 1 * *"}, ms(time.Date(2026, 12, 1, 6, 30, 0, 0, time.UTC))},
		{"cron Feb 29", cron.Schedule{Kind: cron.KindCron, Expr: "0 0 29 FEB *"}, ms(time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC))},
		{"aws form, Sunday 1", cron.Schedule{Kind: cron.KindCron, Expr: "0 0 ? * 1 *"}, ms(time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC))},
		{"aws form, a past year", cron.Schedule{Kind: cron.KindCron, Expr: "0 0 1 1 ? 2020"}, 0},
		{"seconds form", cron.Schedule{Kind: cron.KindCron, Expr: "0 15 8 * * *"}, ms(time.Date(2026, 11, 26, 8, 15, 0, 0, time.UTC))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cron.NextRunAtMs(tc.s, now); got != tc.want {
				t.Errorf("next = %v; want %v", time.UnixMilli(got).UTC(), time.UnixMilli(tc.want).UTC())
			}
		})
	}
}

func TestSchedulerExpression(t *testing.T) {
	anchor := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		s    cron.Schedule
		want cron.Expression
	}{
		{"at", cron.Schedule{Kind: cron.KindAt, AtMs: time.Date(2026, 12, 24, 18, 30, 0, 0, time.UTC).UnixMilli(), TZ: "Europe/Berlin"},
			cron.Expression{Expr: "at(2026-12-24T18:30:00)", TimeZone: "UTC", OneShot: true}},
		{"every minute", cron.Schedule{Kind: cron.KindEvery, EveryMs: 60000}, cron.Expression{Expr: "rate(1 minute)", TimeZone: "UTC"}},
		{"every 90 minutes", cron.Schedule{Kind: cron.KindEvery, EveryMs: 90 * 60000}, cron.Expression{Expr: "rate(90 minutes)", TimeZone: "UTC"}},
		{"every 2 hours", cron.Schedule{Kind: cron.KindEvery, EveryMs: 2 * 3600000}, cron.Expression{Expr: "rate(2 hours)", TimeZone: "UTC"}},
		{"every day, anchored", cron.Schedule{Kind: cron.KindEvery, EveryMs: 86400000, AnchorMs: anchor.UnixMilli()},
			cron.Expression{Expr: "rate(1 day)", TimeZone: "UTC", Start: &anchor}},
		{"5 fields, every day", cron.Schedule{Kind: cron.KindCron, Expr: "0 7 * * *", TZ: "Europe/Berlin"},
			cron.Expression{Expr: "cron(0 7 * * ? *)", TimeZone: "Europe/Berlin"}},
		{"5 fields, weekdays", cron.Schedule{Kind: cron.KindCron, Expr: "15 9 * * 1-5"}, cron.Expression{Expr: "cron(15 9 ? * 2-6 *)", TimeZone: "UTC"}},
		{"5 fields, Sunday 0 and 7", cron.Schedule{Kind: cron.KindCron, Expr: "0 9 * * 0,7"}, cron.Expression{Expr: "cron(0 9 ? * 1,1 *)", TimeZone: "UTC"}},
		{"5 fields, Fri-Sun", cron.Schedule{Kind: cron.KindCron, Expr: "0 9 * * 5-7"}, cron.Expression{Expr: "cron(0 9 ? * 1,6-7 *)", TimeZone: "UTC"}},
		{"5 fields, names", cron.Schedule{Kind: cron.KindCron, Expr: "0 9 * JAN mon-fri"}, cron.Expression{Expr: "cron(0 9 ? JAN MON-FRI *)", TimeZone: "UTC"}},
		{"5 fields, day of month", cron.Schedule{Kind: cron.KindCron, Expr: "*/10 0-6 1,15 * *"}, cron.Expression{Expr: "cron(*/10 0-6 1,15 * ? *)", TimeZone: "UTC"}},
		{"6 fields, EventBridge form kept", cron.Schedule{Kind: cron.KindCron, Expr: "0 12 ? * MON-FRI 2027"}, cron.Expression{Expr: "cron(0 12 ? * MON-FRI 2027)", TimeZone: "UTC"}},
		{"6 fields, seconds dropped", cron.Schedule{Kind: cron.KindCron, Expr: "0 0 12 * * *"}, cron.Expression{Expr: "cron(0 12 * * ? *)", TimeZone: "UTC"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cron.SchedulerExpression(tc.s)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if _, err := cron.SchedulerExpression(cron.Schedule{Kind: cron.KindEvery, EveryMs: 1000}); !fault.Is(err, fault.Invalid) {
		t.Errorf("a 1 s rate: %v; want invalid", err)
	}
}

func TestMessageOfARun(t *testing.T) {
	cfg := config.Default()
	fired := time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC)
	iso, _ := cron.New(isolated(), fired)
	iso.AgentID = "ops"
	iso.Payload.TimeoutSeconds = 60
	iso.Payload.Model = "openai/gpt-4o-mini"
	iso.Payload.Thinking = "low"
	main, _ := cron.New(cron.Job{ID: "mail", Name: "Mail", Schedule: cron.Schedule{Kind: cron.KindEvery, EveryMs: 3600000},
		Payload: cron.Payload{Kind: cron.PayloadSystemEvent, Text: " check mail "}}, fired)
	deliver := iso
	deliver.Payload.Deliver, deliver.Payload.Channel, deliver.Payload.To = true, "telegram", "42"
	byTool := iso
	byTool.CreatedBy = cron.CreatedByTool
	for _, tc := range []struct {
		name string
		job  cron.Job
		want inbound.Message
	}{
		{"isolated", iso, inbound.Message{ID: "cron:daily:1764140400000", AgentID: "ops", SessionKey: "agent:ops:cron:daily",
			Channel: inbound.Internal, ChatType: inbound.Direct, From: "cron", To: "cron", SenderName: "cron",
			Text: "digest please", ReceivedAt: fired.UnixMilli(), TimeoutSeconds: 60, Label: "cron: Daily digest", Model: "openai/gpt-4o-mini", Thinking: "low", Provenance: inbound.Owner}},
		{"a job the cron tool created runs as untrusted", byTool, inbound.Message{ID: "cron:daily:1764140400000", AgentID: "ops", SessionKey: "agent:ops:cron:daily",
			Channel: inbound.Internal, ChatType: inbound.Direct, From: "cron", To: "cron", SenderName: "cron",
			Text: "digest please", ReceivedAt: fired.UnixMilli(), TimeoutSeconds: 60, Label: "cron: Daily digest", Model: "openai/gpt-4o-mini", Thinking: "low", Provenance: inbound.Untrusted}},
		{"isolated, delivered", deliver, inbound.Message{ID: "cron:daily:1764140400000", AgentID: "ops", SessionKey: "agent:ops:cron:daily",
			Channel: "telegram", ChatType: inbound.Direct, From: "cron", To: "42", SenderName: "cron",
			Text: "digest please", ReceivedAt: fired.UnixMilli(), TimeoutSeconds: 60, Label: "cron: Daily digest", Model: "openai/gpt-4o-mini", Thinking: "low", Provenance: inbound.Owner}},
		{"main: a system event in the default agent's main session", main, inbound.Message{ID: "cron:mail:1764140400000", AgentID: "main",
			SessionKey: "agent:main:main", Channel: inbound.Internal, ChatType: inbound.Direct, From: "cron", To: "cron", SenderName: "cron",
			Text: "System event (source: cron job Mail): check mail", ReceivedAt: fired.UnixMilli(), Provenance: inbound.Owner}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := cron.Message(tc.job, cfg, "1764140400000", fired)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if err := got.Validate(); err != nil {
				t.Error(err)
			}
			if !cron.Fired(got) {
				t.Error("cron.Fired(the run's message) = false")
			}
		})
	}
}

// TestFiredOnlyForARunsMessage: messages that are not a job's run are
// not fired ones, even in a job's session or with a cron-like id.
func TestFiredOnlyForARunsMessage(t *testing.T) {
	run := inbound.Message{ID: "cron:daily:1764140400000", SessionKey: "agent:ops:cron:daily", From: "cron"}
	for _, tc := range []struct {
		name string
		edit func(m *inbound.Message)
	}{
		{"a chat.send", func(m *inbound.Message) { m.ID, m.From = "api:k1", "" }},
		{"a forged id", func(m *inbound.Message) { m.From = "" }},
		{"another sender", func(m *inbound.Message) { m.From = "telegram:7" }},
		{"a flow step", func(m *inbound.Message) { m.Flow = &inbound.Flow{Kind: inbound.FlowReply} }},
		{"a cron wake", func(m *inbound.Message) { m.ID = "wake:w1" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := run
			tc.edit(&m)
			if cron.Fired(m) {
				t.Errorf("cron.Fired(%+v) = true", m)
			}
		})
	}
}

func TestPatchApply(t *testing.T) {
	now := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	j, _ := cron.New(isolated(), now.Add(-time.Hour))
	off, name := false, "Renamed"
	got, err := cron.Patch{Enabled: &off, Name: &name}.Apply(j, now)
	if err != nil {
		t.Fatal(err)
	}
	if got.Enabled || got.Name != "Renamed" || got.State.NextRunAtMs != 0 || got.UpdatedAtMs != now.UnixMilli() || got.CreatedAtMs != j.CreatedAtMs {
		t.Errorf("patched: %+v", got)
	}
	bad := "shared"
	if _, err := (cron.Patch{SessionTarget: &bad}).Apply(j, now); err == nil || !strings.HasPrefix(fault.Message(err), "sessionTarget:") {
		t.Errorf("bad patch: %v", err)
	}
	every := cron.Schedule{Kind: cron.KindEvery, EveryMs: 600000}
	got, err = cron.Patch{Schedule: &every}.Apply(j, now)
	if err != nil || got.State.NextRunAtMs != now.Add(10*time.Minute).UnixMilli() {
		t.Errorf("new schedule: next %d, %v", got.State.NextRunAtMs, err)
	}
}
