package devstack

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
)

// cronJob adds a job through the gateway and returns it.
func cronJob(t *testing.T, st *Stack, job map[string]any) map[string]any {
	t.Helper()
	code, out := rpc(t, st, e2eGatewayToken, "cron.add", job)
	if code != http.StatusOK {
		t.Fatalf("cron.add = %d %v", code, out)
	}
	return result(t, out)
}

// cronRuns is the job's run history through the gateway.
func cronRuns(t *testing.T, st *Stack, id string) []map[string]any {
	t.Helper()
	_, out := rpc(t, st, e2eGatewayToken, "cron.runs", map[string]any{"id": id})
	raw, _ := json.Marshal(result(t, out)["entries"])
	var runs []map[string]any
	_ = json.Unmarshal(raw, &runs)
	return runs
}

// waitRuns waits until the job's history holds n records matching ok.
func waitRuns(t *testing.T, st *Stack, id string, n int, ok func(map[string]any) bool) []map[string]any {
	t.Helper()
	var runs []map[string]any
	waitUntil(t, func() bool {
		runs = cronRuns(t, st, id)
		m := 0
		for _, r := range runs {
			if ok(r) {
				m++
			}
		}
		return m >= n
	})
	return runs
}

func finishedOK(r map[string]any) bool { return r["status"] == "ok" }

// TestCronEndToEnd: jobs added through the gateway get a schedule in the
// stack's group, the local Scheduler emulation fires them through the
// Cron function's RIE, each fire runs in a fresh session and delivers to
// a fake Telegram chat, and the history shows it; a one-shot with
// deleteAfterRun fires once and is gone with its schedule; a fire while
// the previous run still goes is skipped and recorded. The stack's IAM
// check (startStack) covers the Cron and Gateway roles, Scheduler calls
// included.
func TestCronEndToEnd(t *testing.T) {
	st, tg := a2aStack(t, 8*time.Second, a2aConfig)
	ctx := context.Background()
	sched := scheduler.NewFromConfig(st.AWSConfig)
	group := st.Resources.ScheduleGroups["CronScheduleGroup"].Name
	soon := func() int64 { return time.Now().Add(3 * time.Second).UnixMilli() }
	agentTurn := func(msg string, chat int) map[string]any {
		return map[string]any{"kind": "agentTurn", "message": msg, "deliver": true, "channel": "telegram", "to": fmt.Sprint(chat)}
	}

	t.Run("a job fires within its minute, in a fresh session each time, and delivers", func(t *testing.T) {
		cronJob(t, st, map[string]any{"id": "digest", "name": "Digest", "schedule": map[string]any{"kind": "at", "atMs": soon()},
			"payload": agentTurn("morning digest", 4242)})
		if _, err := sched.GetSchedule(ctx, &scheduler.GetScheduleInput{Name: aws.String("digest"), GroupName: aws.String(group)}); err != nil {
			t.Fatalf("no schedule for the job: %v", err)
		}
		sentTo(t, tg, 4242, "reply to: morning digest")
		first := waitRuns(t, st, "digest", 1, finishedOK)
		// Fire it again: re-enable with a new time (a one-shot is disabled after its fire).
		code, out := rpc(t, st, e2eGatewayToken, "cron.update", map[string]any{"id": "digest",
			"patch": map[string]any{"enabled": true, "schedule": map[string]any{"kind": "at", "atMs": soon()}}})
		if code != http.StatusOK {
			t.Fatalf("cron.update = %d %v", code, out)
		}
		runs := waitRuns(t, st, "digest", 2, finishedOK)
		if countSent(tg, 4242, "reply to: morning digest") != 2 {
			t.Errorf("chat 4242 got %d digests; want 2", countSent(tg, 4242, "reply to: morning digest"))
		}
		a, b := runs[0]["sessionId"], runs[1]["sessionId"]
		if a == nil || a == "" || a == b || runs[0]["sessionKey"] != "agent:main:cron:digest" {
			t.Errorf("runs %v (first %v); want two sessions of agent:main:cron:digest", runs, first)
		}
	})

	t.Run("a one-shot with deleteAfterRun fires once and is deleted", func(t *testing.T) {
		cronJob(t, st, map[string]any{"id": "once", "name": "Once", "deleteAfterRun": true, "schedule": map[string]any{"kind": "at", "atMs": soon()},
			"payload": agentTurn("just once", 4343)})
		sentTo(t, tg, 4343, "reply to: just once")
		waitRuns(t, st, "once", 1, finishedOK)
		waitUntil(t, func() bool {
			_, err := sched.GetSchedule(ctx, &scheduler.GetScheduleInput{Name: aws.String("once"), GroupName: aws.String(group)})
			return err != nil
		})
		_, out := rpc(t, st, e2eGatewayToken, "cron.list", map[string]any{"includeDisabled": true})
		for _, j := range result(t, out)["jobs"].([]any) {
			if j.(map[string]any)["id"] == "once" {
				t.Errorf("the one-shot job is still listed: %v", j)
			}
		}
		time.Sleep(2 * time.Second)
		if n := countSent(tg, 4343, "reply to: just once"); n != 1 {
			t.Errorf("the one-shot delivered %d times; want 1", n)
		}
	})

	t.Run("a fire while the previous run still goes is skipped and recorded", func(t *testing.T) {
		cronJob(t, st, map[string]any{"id": "slow", "name": "Slow", "schedule": map[string]any{"kind": "every", "everyMs": 3600000},
			"payload": map[string]any{"kind": "agentTurn", "message": "think slowly"}})
		fire := func(at time.Time) map[string]any {
			out, err := st.Invoke(ctx, "Cron", []byte(fmt.Sprintf(`{"jobId":"slow","scheduledTime":%q}`, at.UTC().Format(time.RFC3339))))
			if err != nil {
				t.Fatalf("invoke Cron: %v", err)
			}
			var res map[string]any
			_ = json.Unmarshal(out, &res)
			return res
		}
		t0 := time.Now().Truncate(time.Second)
		if res := fire(t0); res["outcome"] != "queued" {
			t.Fatalf("first fire = %v; want queued", res)
		}
		if res := fire(t0.Add(time.Second)); res["outcome"] != "skipped" {
			t.Fatalf("second fire = %v; want skipped", res)
		}
		if res := fire(t0); res["outcome"] != "duplicate" {
			t.Errorf("the first fire again = %v; want duplicate", res)
		}
		runs := waitRuns(t, st, "slow", 1, finishedOK)
		if len(runs) != 2 || runs[0]["status"] != "skipped" {
			t.Errorf("history %v; want the skipped fire and the finished run", runs)
		}
	})
}
