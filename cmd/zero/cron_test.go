package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/gateway"
)

// TestJobParams: --job is cron.add's params object, decoded as strictly
// as the gateway decodes it.
func TestJobParams(t *testing.T) {
	tests := []struct {
		name    string
		job     string
		want    gateway.CronAddParams
		wantErr string
	}{
		{name: "a job", job: `{"name":"N","schedule":{"kind":"every","everyMs":3600000},"payload":{"kind":"agentTurn","message":"m"}}`,
			want: gateway.CronAddParams{Name: "N", Schedule: cron.Schedule{Kind: cron.KindEvery, EveryMs: 3600000},
				Payload: cron.Payload{Kind: cron.PayloadAgentTurn, Message: "m"}}},
		{name: "unknown field", job: `{"name":"N","nmae":"typo"}`, wantErr: `--job: json: unknown field "nmae"`},
		{name: "not an object", job: `[1]`, wantErr: "--job must be a JSON object"},
		{name: "null", job: `null`, wantErr: "--job must be a JSON object"},
		{name: "malformed", job: `{"name":`, wantErr: "--job must be a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jobParams(tt.job)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("jobParams (-want +got):\n%s", diff)
			}
		})
	}
}
