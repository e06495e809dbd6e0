package main

import (
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/zero-gateway/zero/functions/internal/settings"
	"github.com/zero-gateway/zero/shared/sqsqueue"
)

// TestNewConsumer: the consumer takes its limits and backoff from the
// settings (their parsing and defaults: functions/internal/settings).
func TestNewConsumer(t *testing.T) {
	tests := []struct {
		name string
		in   settings.Consumer
		want sqsqueue.Consumer
	}{
		{"template defaults", settings.Consumer{GroupConcurrency: 10, MinBudgetSeconds: 120, MaxReceiveCount: 5, RetryBaseSeconds: 5, RetryMaxSeconds: 300},
			sqsqueue.Consumer{Concurrency: 10, MaxRun: 10, MinBudget: 120 * time.Second, MaxReceives: 5,
				Backoff: sqsqueue.Backoff{Base: 5 * time.Second, Max: 300 * time.Second}}},
		{"set", settings.Consumer{GroupConcurrency: 3, MinBudgetSeconds: 60, MaxReceiveCount: 8, RetryBaseSeconds: 10, RetryMaxSeconds: 600},
			sqsqueue.Consumer{Concurrency: 3, MaxRun: 10, MinBudget: 60 * time.Second, MaxReceives: 8,
				Backoff: sqsqueue.Backoff{Base: 10 * time.Second, Max: 600 * time.Second}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := newConsumer(tt.in, slog.New(slog.DiscardHandler))
			if diff := cmp.Diff(tt.want, *got, cmpopts.IgnoreFields(sqsqueue.Consumer{}, "Log", "Handler", "Failed", "Delayer", "Deleter")); diff != "" {
				t.Errorf("consumer (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWireQueuesDeletesOnBothLanes: with the queues named, the consumer
// deletes a finished session's records (per-record completion) on the
// lane they came from, the work queue by default; without them it leaves
// every record to the event source mapping.
func TestWireQueuesDeletesOnBothLanes(t *testing.T) {
	work, sub := resources.Queues["WorkQueue"], resources.Queues["SubagentQueue"]
	tests := []struct {
		name        string
		env         map[string]string
		wantDefault string
		wantLanes   []string
	}{
		{"both lanes", map[string]string{"ZERO_QUEUE_URL": work.URL, "ZERO_SUBAGENT_QUEUE_URL": sub.URL}, work.Name, []string{sub.Name, work.Name}},
		{"work queue only", map[string]string{"ZERO_QUEUE_URL": work.URL}, work.Name, []string{work.Name}},
		{"no queue", nil, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newRunner(t, "zero/echo", tt.env) // the environment
			app, err := setup(t.Context(), slog.New(slog.DiscardHandler), nil)
			if err != nil {
				t.Fatal(err)
			}
			c := app.consumer
			gotDefault := ""
			if q, ok := c.Deleter.(*sqsqueue.Queue); ok {
				gotDefault = q.Name()
			}
			var gotLanes []string
			for name, d := range c.Deleters {
				if q, ok := d.(*sqsqueue.Queue); !ok || q.Name() != name {
					t.Errorf("Deleters[%q] = %v; want that queue", name, d)
				}
				gotLanes = append(gotLanes, name)
			}
			slices.Sort(gotLanes)
			if gotDefault != tt.wantDefault || !slices.Equal(gotLanes, tt.wantLanes) {
				t.Errorf("deleter %q, lanes %v; want %q, %v", gotDefault, gotLanes, tt.wantDefault, tt.wantLanes)
			}
		})
	}
}
