package main

import (
	"log/slog"
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
			if diff := cmp.Diff(tt.want, *got, cmpopts.IgnoreFields(sqsqueue.Consumer{}, "Log", "Handler", "Failed", "Delayer")); diff != "" {
				t.Errorf("consumer (-want +got):\n%s", diff)
			}
		})
	}
}
