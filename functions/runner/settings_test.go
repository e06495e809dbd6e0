package main

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/zero-gateway/zero/shared/sqsqueue"
)

func TestConsumerFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    sqsqueue.Consumer
		wantErr string
	}{
		{"defaults", nil, sqsqueue.Consumer{Concurrency: 10, MaxRun: 10, MinBudget: 120 * time.Second, MaxReceives: 5,
			Backoff: sqsqueue.Backoff{Base: 5 * time.Second, Max: 300 * time.Second}}, ""},
		{"set", map[string]string{"ZERO_GROUP_CONCURRENCY": "3", "ZERO_MIN_BUDGET_SECONDS": "60", "ZERO_MAX_RECEIVE_COUNT": "8",
			"ZERO_RETRY_BASE_SECONDS": "10", "ZERO_RETRY_MAX_SECONDS": "600"},
			sqsqueue.Consumer{Concurrency: 3, MaxRun: 10, MinBudget: 60 * time.Second, MaxReceives: 8,
				Backoff: sqsqueue.Backoff{Base: 10 * time.Second, Max: 600 * time.Second}}, ""},
		{"not a number", map[string]string{"ZERO_RETRY_BASE_SECONDS": "ten"}, sqsqueue.Consumer{}, "ZERO_RETRY_BASE_SECONDS"},
		{"no concurrency", map[string]string{"ZERO_GROUP_CONCURRENCY": "0"}, sqsqueue.Consumer{}, "ZERO_GROUP_CONCURRENCY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			got, err := consumerFromEnv(slog.New(slog.DiscardHandler))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v; want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, *got, cmpopts.IgnoreFields(sqsqueue.Consumer{}, "Log", "Handler", "Failed", "Delayer")); diff != "" {
				t.Errorf("consumer (-want +got):\n%s", diff)
			}
		})
	}
}
