package firing

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sch "github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/scheduler/types"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/emulator"
)

var client *sch.Client

func TestMain(m *testing.M) {
	os.Exit(emulator.RunTests(m, awsconfig.NewCounter(), func(_ context.Context, cfg aws.Config) (func(), error) {
		client = sch.NewFromConfig(cfg)
		return nil, nil
	}))
}

const fnARN = "arn:aws:lambda:us-east-1:123456789012:function:zt-Cron"

type invokes struct {
	mu   sync.Mutex
	got  []string
	what []string
}

func (i *invokes) invoke(_ context.Context, fn string, payload []byte) ([]byte, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.got, i.what = append(i.got, string(payload)), append(i.what, fn)
	return []byte(`{}`), nil
}

func TestTicker(t *testing.T) {
	ctx := context.Background()
	now := time.Now().UTC()
	next := now.Truncate(time.Minute).Add(time.Minute)
	tests := []struct {
		name      string
		expr      string
		start     *time.Time
		after     bool // ActionAfterCompletion DELETE
		ticks     []time.Duration
		wantFires []time.Time
		wantGone  bool
	}{
		{"a one-shot fires once and is deleted", "at(" + next.Format("2006-01-02T15:04:05") + ")", nil, true,
			[]time.Duration{0, 2 * time.Minute, 3 * time.Minute}, []time.Time{next}, true},
		{"a rate fires at each step from its start", "rate(1 minute)", &next, false,
			[]time.Duration{0, time.Minute + time.Second, 2*time.Minute + time.Second}, []time.Time{next, next.Add(time.Minute)}, false},
		{"a cron expression fires on its minutes", "cron(* * * * ? *)", nil, false,
			[]time.Duration{0, time.Minute + time.Second}, []time.Time{next}, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			group := "zt-firing-" + strings.ToLower(time.Now().Format("150405.000000"))[7:] + string(rune('a'+i))
			if _, err := client.CreateScheduleGroup(ctx, &sch.CreateScheduleGroupInput{Name: aws.String(group)}); err != nil {
				t.Fatal(err)
			}
			in := &sch.CreateScheduleInput{Name: aws.String("job"), GroupName: aws.String(group), ScheduleExpression: aws.String(tt.expr),
				StartDate: tt.start, FlexibleTimeWindow: &types.FlexibleTimeWindow{Mode: types.FlexibleTimeWindowModeOff},
				Target: &types.Target{Arn: aws.String(fnARN), RoleArn: aws.String("arn:aws:iam::123456789012:role/r"), Input: aws.String(cron.FireInput("job"))}}
			if tt.after {
				in.ActionAfterCompletion = types.ActionAfterCompletionDelete
			}
			if _, err := client.CreateSchedule(ctx, in); err != nil {
				t.Fatal(err)
			}
			var clock time.Time
			inv := &invokes{}
			tk := New(Config{API: client, Groups: []string{group}, Functions: map[string]string{fnARN: "Cron"}, Invoke: inv.invoke,
				Now: func() time.Time { return clock }})
			for _, d := range tt.ticks {
				clock = now.Add(d)
				if err := tk.Tick(ctx); err != nil {
					t.Fatal(err)
				}
			}
			var want []string
			for _, f := range tt.wantFires {
				want = append(want, `{"jobId":"job","scheduledTime":"`+f.Format(time.RFC3339)+`"}`)
			}
			if strings.Join(inv.got, "\n") != strings.Join(want, "\n") {
				t.Errorf("fired\n%s\nwant\n%s", strings.Join(inv.got, "\n"), strings.Join(want, "\n"))
			}
			_, err := client.GetSchedule(ctx, &sch.GetScheduleInput{Name: aws.String("job"), GroupName: aws.String(group)})
			if gone := err != nil; gone != tt.wantGone {
				t.Errorf("schedule gone = %v (%v); want %v", gone, err, tt.wantGone)
			}
		})
	}
}
