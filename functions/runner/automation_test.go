package main

import (
	"context"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
)

// TestRunnerWiresAutomationTools: the cron tool's core and the gateway
// tool's config document come from the environment as the template sets
// it: schedules only with the cron group, target and role; config writes
// only with ZERO_CONFIG_WRITES=true.
func TestRunnerWiresAutomationTools(t *testing.T) {
	cronEnv := map[string]string{"ZERO_CRON_GROUP": "g", "ZERO_CRON_TARGET_ARN": "arn:aws:lambda:us-east-1:123456789012:function:cron",
		"ZERO_CRON_ROLE_ARN": "arn:aws:iam::123456789012:role/sched"}
	tests := []struct {
		name          string
		env           map[string]string
		wantSchedules bool
		wantWrite     fault.Code // of a compare-and-set write at the current version; "": it succeeds
	}{
		{name: "defaults: stored jobs, read-only config", env: map[string]string{}, wantWrite: fault.Unauthorized},
		{name: "cron schedules", env: cronEnv, wantSchedules: true, wantWrite: fault.Unauthorized},
		{name: "config writes on", env: map[string]string{"ZERO_CONFIG_WRITES": "true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, _ = newRunner(t, "zero/echo", tt.env)
			app, err := setup(context.Background(), slog.New(slog.DiscardHandler), nil)
			if err != nil {
				t.Fatal(err)
			}
			proc := app.proc
			if proc.Tools.Cron == nil || proc.Tools.ConfigDoc == nil {
				t.Fatalf("Cron %v, ConfigDoc %v; want both wired", proc.Tools.Cron, proc.Tools.ConfigDoc)
			}
			if got := proc.Tools.Cron.Schedules != nil; got != tt.wantSchedules {
				t.Errorf("schedules wired %v, want %v", got, tt.wantSchedules)
			}
			_, version, err := config.FetchStored(context.Background(), proc.Tools.ConfigDoc)
			if err != nil {
				t.Fatal(err)
			}
			_, err = proc.Tools.ConfigDoc.PutIfVersion(context.Background(), []byte("{}"), version)
			if diff := cmp.Diff(tt.wantWrite, codeOf(err)); diff != "" {
				t.Errorf("write error code (-want +got):\n%s (%v)", diff, err)
			}
		})
	}
}

func codeOf(err error) fault.Code {
	if err == nil {
		return ""
	}
	return fault.CodeOf(err)
}
