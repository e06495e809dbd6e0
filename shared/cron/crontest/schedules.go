package crontest

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
)

// Schedules is one cron.Schedules implementation under test, empty, with
// a view of what it keeps.
type Schedules struct {
	cron.Schedules
	// Get is the kept schedule of that name as its spec, or fault.NotFound.
	Get func(ctx context.Context, name string) (cron.ScheduleSpec, error)
}

// TestSchedules checks the cron.Schedules contract: Put creates the
// schedule or replaces every field of an existing one of that name
// (a replaced field the new spec leaves empty, such as Start or OneShot,
// is gone); Delete removes it, and a missing one is not an error; both
// are idempotent, so a repeated call succeeds and changes nothing. It
// also runs cron.Sync over the implementation.
//
// Where the port's doc is silent the suite checks what every
// implementation does: a spec without a name is fault.Invalid and keeps
// nothing.
func TestSchedules(t *testing.T, newSchedules func(t *testing.T) Schedules) {
	start := time.Date(2030, 1, 2, 3, 4, 0, 0, time.UTC)
	daily := cron.ScheduleSpec{Name: "daily", Expression: cron.Expression{Expr: "cron(0 7 ? * MON-FRI *)", TimeZone: "Europe/Berlin"},
		Enabled: true, Input: cron.FireInput("daily")}
	every := cron.ScheduleSpec{Name: "every", Expression: cron.Expression{Expr: "rate(5 minutes)", TimeZone: "UTC", Start: &start},
		Enabled: true, Input: cron.FireInput("every")}
	once := cron.ScheduleSpec{Name: "once", Expression: cron.Expression{Expr: "at(2030-01-01T07:00:00)", TimeZone: "UTC", OneShot: true},
		Enabled: true, Input: cron.FireInput("once")}
	as := func(s cron.ScheduleSpec, name string) cron.ScheduleSpec { s.Name = name; return s }
	disabled := func(s cron.ScheduleSpec) cron.ScheduleSpec { s.Enabled = false; return s }

	type op struct {
		put    *cron.ScheduleSpec // else delete
		delete string
		want   fault.Code // "" for success
	}
	put := func(s cron.ScheduleSpec) op { return op{put: &s} }
	del := func(name string) op { return op{delete: name} }
	tests := []struct {
		name string
		ops  []op
		// want is every schedule the case names afterwards; a missing
		// entry (nil) means the name keeps no schedule.
		want map[string]*cron.ScheduleSpec
	}{
		{
			name: "put creates a recurring schedule in its zone",
			ops:  []op{put(daily)},
			want: map[string]*cron.ScheduleSpec{"daily": &daily},
		},
		{
			name: "put creates a rate schedule with its start and a one-shot",
			ops:  []op{put(every), put(once)},
			want: map[string]*cron.ScheduleSpec{"every": &every, "once": &once},
		},
		{
			name: "put creates a disabled schedule, kept disabled",
			ops:  []op{put(disabled(daily))},
			want: map[string]*cron.ScheduleSpec{"daily": ptr(disabled(daily))},
		},
		{
			name: "put of the same spec again succeeds and changes nothing",
			ops:  []op{put(daily), put(daily)},
			want: map[string]*cron.ScheduleSpec{"daily": &daily},
		},
		{
			name: "put replaces every field, dropping the start",
			ops:  []op{put(as(every, "j")), put(as(daily, "j"))},
			want: map[string]*cron.ScheduleSpec{"j": ptr(as(daily, "j"))},
		},
		{
			name: "put replaces a one-shot with a recurring schedule, and back",
			ops:  []op{put(as(once, "a")), put(as(daily, "a")), put(as(daily, "b")), put(as(once, "b"))},
			want: map[string]*cron.ScheduleSpec{"a": ptr(as(daily, "a")), "b": ptr(as(once, "b"))},
		},
		{
			name: "put disables and enables an existing schedule",
			ops:  []op{put(as(daily, "a")), put(disabled(as(daily, "a"))), put(as(every, "b")), put(disabled(as(every, "b"))), put(as(every, "b"))},
			want: map[string]*cron.ScheduleSpec{"a": ptr(disabled(as(daily, "a"))), "b": ptr(as(every, "b"))},
		},
		{
			name: "delete removes the schedule and no other",
			ops:  []op{put(daily), put(every), del("daily")},
			want: map[string]*cron.ScheduleSpec{"daily": nil, "every": &every},
		},
		{
			name: "delete again succeeds",
			ops:  []op{put(daily), del("daily"), del("daily")},
			want: map[string]*cron.ScheduleSpec{"daily": nil},
		},
		{
			name: "delete of a schedule never put succeeds",
			ops:  []op{del("never")},
			want: map[string]*cron.ScheduleSpec{"never": nil},
		},
		{
			name: "put after delete creates the schedule again",
			ops:  []op{put(once), del("once"), put(disabled(once))},
			want: map[string]*cron.ScheduleSpec{"once": ptr(disabled(once))},
		},
		{
			name: "a spec without a name is invalid and keeps nothing",
			ops:  []op{{put: ptr(as(daily, "")), want: fault.Invalid}},
			want: map[string]*cron.ScheduleSpec{"daily": nil},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := newSchedules(t)
			for i, o := range tt.ops {
				var err error
				if o.put != nil {
					err = s.Put(ctx, *o.put)
				} else {
					err = s.Delete(ctx, o.delete)
				}
				if got := fault.CodeOf(err); err != nil && got != o.want || err == nil && o.want != "" {
					t.Fatalf("op %d: %v (code %q); want code %q", i, err, got, o.want)
				}
			}
			if diff := cmp.Diff(tt.want, kept(t, s, tt.want)); diff != "" {
				t.Errorf("kept schedules (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("Sync keeps a job's schedule while it can fire, then deletes it", func(t *testing.T) {
		ctx := context.Background()
		s := newSchedules(t)
		now := time.Date(2030, 1, 1, 6, 0, 0, 0, time.UTC)
		j := cron.Job{ID: "wake", Name: "wake", Enabled: true, Schedule: cron.Schedule{Kind: cron.KindAt, AtMs: now.Add(time.Hour).UnixMilli()},
			SessionTarget: cron.TargetMain, WakeMode: cron.WakeNow, Payload: cron.Payload{Kind: cron.PayloadSystemEvent, Text: "wake up"}}
		want, ok, err := cron.SpecOf(j, now)
		if err != nil || !ok {
			t.Fatalf("SpecOf = %v, %v", ok, err)
		}
		if err := cron.Sync(ctx, s, j, now); err != nil {
			t.Fatalf("Sync before the fire: %v", err)
		}
		if diff := cmp.Diff(map[string]*cron.ScheduleSpec{"wake": &want}, kept(t, s, map[string]*cron.ScheduleSpec{"wake": nil})); diff != "" {
			t.Errorf("before the fire (-want +got):\n%s", diff)
		}
		for range 2 { // idempotent
			if err := cron.Sync(ctx, s, j, now.Add(2*time.Hour)); err != nil {
				t.Fatalf("Sync after the fire: %v", err)
			}
		}
		if diff := cmp.Diff(map[string]*cron.ScheduleSpec{"wake": nil}, kept(t, s, map[string]*cron.ScheduleSpec{"wake": nil})); diff != "" {
			t.Errorf("after the fire (-want +got):\n%s", diff)
		}
	})
}

// kept is the kept schedule of every name in names, nil for none.
func kept(t *testing.T, s Schedules, names map[string]*cron.ScheduleSpec) map[string]*cron.ScheduleSpec {
	t.Helper()
	got := map[string]*cron.ScheduleSpec{}
	for name := range names {
		spec, err := s.Get(context.Background(), name)
		switch {
		case fault.Is(err, fault.NotFound):
			got[name] = nil
		case err != nil:
			t.Fatalf("get %s: %v", name, err)
		default:
			got[name] = &spec
		}
	}
	return got
}

func ptr[T any](v T) *T { return &v }
