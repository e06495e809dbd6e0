package cron

import (
	"context"
	"testing"
	"time"
)

func TestNextFire(t *testing.T) {
	created := time.Date(2026, 11, 26, 7, 0, 30, 0, time.UTC)
	start := time.Date(2026, 11, 26, 7, 1, 0, 0, time.UTC)
	after := time.Date(2026, 11, 26, 7, 0, 40, 0, time.UTC)
	tests := []struct {
		name   string
		expr   string
		tz     string
		start  *time.Time
		want   time.Time
		wantOK bool
	}{
		{"at ahead", "at(2026-11-26T07:05:00)", "", nil, time.Date(2026, 11, 26, 7, 5, 0, 0, time.UTC), true},
		{"at passed", "at(2026-11-26T07:00:00)", "", nil, time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC), false},
		{"at in a zone", "at(2026-11-26T08:05:00)", "Europe/Berlin", nil, time.Date(2026, 11, 26, 7, 5, 0, 0, time.UTC), true},
		{"rate from its start date, the start itself included", "rate(1 minute)", "", &start, start, true},
		{"rate from creation, the creation excluded", "rate(2 minutes)", "", nil, created.Add(2 * time.Minute), true},
		{"cron every minute", "cron(* * * * ? *)", "", nil, time.Date(2026, 11, 26, 7, 1, 0, 0, time.UTC), true},
		{"cron weekdays at 9 in Berlin", "cron(0 9 ? * MON-FRI *)", "Europe/Berlin", nil, time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := NextFire(tt.expr, tt.tz, tt.start, created, after)
			if err != nil || ok != tt.wantOK || (ok && !got.Equal(tt.want)) {
				t.Errorf("NextFire(%s) = %v, %v, %v; want %v, %v", tt.expr, got, ok, err, tt.want, tt.wantOK)
			}
		})
	}
	for _, bad := range []string{"every(5)", "rate(0 minutes)", "rate(5 weeks)", "at(tomorrow)"} {
		if _, _, err := NextFire(bad, "", nil, created, after); err == nil {
			t.Errorf("NextFire(%s): no error", bad)
		}
	}
}

func TestSync(t *testing.T) {
	now := time.Date(2026, 11, 26, 7, 0, 30, 0, time.UTC)
	mk := func(s Schedule, enabled bool) Job {
		return Job{ID: "j", Name: "j", Enabled: enabled, Schedule: s, SessionTarget: TargetIsolated, WakeMode: WakeNow,
			Payload: Payload{Kind: PayloadAgentTurn, Message: "m"}}
	}
	tests := []struct {
		name        string
		job         Job
		wantPut     bool
		wantExpr    string
		wantEnabled bool
		wantStart   *time.Time
	}{
		{"an every job starts at its next run", mk(Schedule{Kind: KindEvery, EveryMs: 120000}, true), true, "rate(2 minutes)", true,
			func() *time.Time { t := time.Date(2026, 11, 26, 7, 2, 0, 0, time.UTC); return &t }()},
		{"a disabled job keeps a disabled schedule", mk(Schedule{Kind: KindCron, Expr: "0 7 * * *"}, false), true, "cron(0 7 * * ? *)", false, nil},
		{"a future one-shot", mk(Schedule{Kind: KindAt, AtMs: now.Add(time.Hour).UnixMilli()}, true), true, "at(2026-11-26T08:00:30)", true, nil},
		{"a passed one-shot has no schedule", mk(Schedule{Kind: KindAt, AtMs: now.Add(-time.Hour).UnixMilli()}, true), false, "", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &MemorySchedules{Specs: map[string]ScheduleSpec{"j": {Name: "j"}}}
			if err := Sync(context.Background(), s, tt.job, now); err != nil {
				t.Fatal(err)
			}
			spec, ok := s.Specs["j"]
			if ok != tt.wantPut {
				t.Fatalf("schedule present = %v; want %v", ok, tt.wantPut)
			}
			if !ok {
				return
			}
			if spec.Expression.Expr != tt.wantExpr || spec.Enabled != tt.wantEnabled || spec.Input != `{"jobId":"j","scheduledTime":"<aws.scheduler.scheduled-time>"}` {
				t.Errorf("spec %+v", spec)
			}
			if (tt.wantStart == nil) != (spec.Expression.Start == nil) || (tt.wantStart != nil && !tt.wantStart.Equal(*spec.Expression.Start)) {
				t.Errorf("start %v; want %v", spec.Expression.Start, tt.wantStart)
			}
		})
	}
}
