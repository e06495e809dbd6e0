package devstack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/ssmparam"
)

// rpc calls the gateway API on the local stack's front and decodes the
// answer.
func rpc(t *testing.T, st *Stack, token, method string, params any) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, st.FrontURL+"/rpc", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST /rpc %s: %v", method, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: undecodable answer (status %d): %v", method, resp.StatusCode, err)
	}
	return resp.StatusCode, out
}

func result(t *testing.T, out map[string]any) map[string]any {
	t.Helper()
	r, ok := out["result"].(map[string]any)
	if !ok || out["ok"] != true {
		t.Fatalf("answer %v; want ok with a result", out)
	}
	return r
}

// TestGatewayAPI runs the gateway through the real bootstrap under the RIE
// and the front, with the runner answering through the queue.
func TestGatewayAPI(t *testing.T) {
	st, _, _ := e2eStack(t, true, 0)

	t.Run("auth", func(t *testing.T) {
		for _, token := range []string{"", "wrong-token"} {
			if code, out := rpc(t, st, token, "status", map[string]any{}); code != http.StatusUnauthorized || out["ok"] != false {
				t.Fatalf("token %q: %d %v; want 401", token, code, out)
			}
		}
	})
	t.Run("bad requests", func(t *testing.T) {
		if code, out := rpc(t, st, e2eGatewayToken, "no.such.method", map[string]any{}); code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out), "no.such.method") {
			t.Fatalf("unknown method: %d %v", code, out)
		}
		if code, out := rpc(t, st, e2eGatewayToken, "agent", map[string]any{}); code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out), "message") {
			t.Fatalf("agent without message: %d %v; want 400 naming the field", code, out)
		}
	})

	var runID string
	t.Run("agent is idempotent", func(t *testing.T) {
		params := map[string]any{"message": "hello gateway", "sessionKey": "main", "idempotencyKey": "e2e-1"}
		code, out := rpc(t, st, e2eGatewayToken, "agent", params)
		if code != http.StatusOK {
			t.Fatalf("agent: %d %v", code, out)
		}
		first := result(t, out)
		runID, _ = first["runId"].(string)
		if runID == "" || first["status"] != "accepted" || first["sessionKey"] != "agent:main:main" {
			t.Fatalf("agent result %v", first)
		}
		_, again := rpc(t, st, e2eGatewayToken, "agent", params)
		if got := result(t, again)["runId"]; got != runID {
			t.Fatalf("same idempotencyKey gave run %v, then %v", runID, got)
		}
	})
	t.Run("agent.wait", func(t *testing.T) {
		_, out := rpc(t, st, e2eGatewayToken, "agent.wait", map[string]any{"runId": runID, "timeoutMs": 20000})
		if r := result(t, out); r["status"] != "ok" || r["runId"] != runID {
			t.Fatalf("agent.wait = %v; want ok", r)
		}
		// After the run ended, waiting answers at once.
		_, out = rpc(t, st, e2eGatewayToken, "agent.wait", map[string]any{"runId": runID, "timeoutMs": 1})
		if r := result(t, out); r["status"] != "ok" {
			t.Fatalf("agent.wait after the end = %v", r)
		}
		_, out = rpc(t, st, e2eGatewayToken, "agent.wait", map[string]any{"runId": "run_00000000000000000000", "timeoutMs": 500})
		if r := result(t, out); r["status"] != "timeout" {
			t.Fatalf("agent.wait of an unknown run = %v; want timeout", r)
		}
	})
	t.Run("chat.history", func(t *testing.T) {
		_, out := rpc(t, st, e2eGatewayToken, "chat.history", map[string]any{"sessionKey": "main"})
		msgs, _ := result(t, out)["messages"].([]any)
		if !strings.Contains(fmt.Sprint(msgs), "echo: hello gateway") {
			t.Fatalf("history %v; want the run's answer", msgs)
		}
	})
	t.Run("sessions.runs", func(t *testing.T) {
		// The run agent started, found through the transcript's sourceId
		// and read back with one BatchGetItem (allowed by the template).
		_, out := rpc(t, st, e2eGatewayToken, "sessions.runs", map[string]any{"sessionKey": "main"})
		runs, _ := result(t, out)["runs"].([]any)
		found := false
		for _, r := range runs {
			row := r.(map[string]any)
			if row["runId"] == runID && row["status"] == "ok" && row["durationMs"] != nil {
				found = true
			}
		}
		if !found {
			t.Fatalf("sessions.runs %v; want run %s, ok with a duration", runs, runID)
		}
	})
	t.Run("sessions", func(t *testing.T) {
		_, out := rpc(t, st, e2eGatewayToken, "sessions.patch", map[string]any{"key": "main", "label": "kitchen"})
		result(t, out)
		_, out = rpc(t, st, e2eGatewayToken, "sessions.list", map[string]any{})
		rows, _ := result(t, out)["sessions"].([]any)
		found := false
		for _, r := range rows {
			row := r.(map[string]any)
			if row["key"] == "agent:main:main" && row["label"] == "kitchen" && row["totalTokens"] != nil {
				found = true
			}
		}
		if !found {
			t.Fatalf("sessions.list %v; want the labelled main session", rows)
		}
		_, out = rpc(t, st, e2eGatewayToken, "sessions.resolve", map[string]any{"label": "kitchen"})
		if r := result(t, out); r["key"] != "agent:main:main" {
			t.Fatalf("sessions.resolve = %v", r)
		}
	})
	t.Run("config", func(t *testing.T) {
		code, out := rpc(t, st, e2eGatewayToken, "config.patch", map[string]any{"raw": `{session: {dmScope: "nope"}}`})
		if code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out), "session.dmScope") {
			t.Fatalf("invalid config.patch: %d %v; want 400 naming the key", code, out)
		}
		_, out = rpc(t, st, e2eGatewayToken, "config.get", map[string]any{})
		if raw, _ := result(t, out)["raw"].(string); !strings.Contains(raw, "allowFrom") {
			t.Fatalf("config.get raw %q; the invalid patch must change nothing", raw)
		}
		_, out = rpc(t, st, e2eGatewayToken, "status", map[string]any{})
		if store, _ := result(t, out)["store"].(string); !strings.Contains(store, st.Resources.Tables["SessionTable"].Name) {
			t.Fatalf("status store %q; want the session table named", store)
		}
		// Both dead-letter queues' depth, read with the Gateway's role.
		if dlqs := fmt.Sprint(result(t, out)["deadLetters"]); !strings.Contains(dlqs, "name:work") || !strings.Contains(dlqs, "name:subagent") || strings.Contains(dlqs, "error") {
			t.Fatalf("status deadLetters %s; want both queues read", dlqs)
		}
	})
}

// TestCLIAgainstLocalStack runs the built zero binary against the gateway
// of a local stack: a run through `zero agent --wait`, then `zero sessions
// --json` and `zero gateway call status`.
func TestCLIAgainstLocalStack(t *testing.T) {
	st, _, _ := e2eStack(t, true, 0)
	bin := filepath.Join(t.TempDir(), "zero")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("build zero: %v\n%s", err, out)
	}
	zero := func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "ZERO_GATEWAY_URL="+st.FrontURL, "ZERO_GATEWAY_TOKEN="+e2eGatewayToken)
		out, err := cmd.Output()
		return string(out), err
	}
	if out, err := zero("agent", "--message", "hello from the binary", "--wait", "--timeout", "60s"); err != nil || strings.TrimSpace(out) != "echo: hello from the binary" {
		t.Fatalf("zero agent --wait = %q, %v", out, err)
	}
	out, err := zero("sessions", "--json")
	var listed struct {
		Sessions []map[string]any `json:"sessions"`
	}
	if err != nil || json.Unmarshal([]byte(out), &listed) != nil || len(listed.Sessions) == 0 || listed.Sessions[0]["key"] != "agent:main:main" {
		t.Fatalf("zero sessions --json = %q, %v", out, err)
	}
	if out, err := zero("gateway", "call", "status", "--json"); err != nil || !strings.Contains(out, `"sessions"`) {
		t.Fatalf("zero gateway call status = %q, %v", out, err)
	}
	cmd := exec.Command(bin, "sessions")
	cmd.Env = append(os.Environ(), "ZERO_GATEWAY_URL="+st.FrontURL, "ZERO_GATEWAY_TOKEN=wrong-token-0123456789")
	if err := cmd.Run(); err == nil {
		t.Fatal("zero sessions with a wrong token exited 0")
	}
}

// waitLagBound is how late agent.wait may return after the run it waits
// for ended (or after the wait began, when the run ended first): run.Wait
// reads the run record at 0, 100, 200, 400 and 800 ms, then every second,
// so it sees the end within one poll interval (at most 1 s); the other
// second covers the front, the RIE hop and the read itself. It does not
// depend on how fast the machine runs the turn.
const waitLagBound = 2 * time.Second

// TestAgentWaitLatency runs `agent` + `agent.wait` end to end on the local
// stack with the instant echo model and asserts, per run, that agent.wait
// returned within waitLagBound of the later of the run's endedAt and the
// start of the wait. It also puts the mean beside the storage round trips
// the path needs (the gateway's SendMessage and run reads, the runner's
// calls), each priced at a measured emulator round trip, in BENCH lines.
// With ZERO_BENCH=1 (make bench) it runs 20 times.
func TestAgentWaitLatency(t *testing.T) {
	n := 2
	if os.Getenv("ZERO_BENCH") != "" {
		n = 20
	}
	st, _, logs := e2eStack(t, true, ssmparam.DefaultTTL)
	// One storage round trip on this emulator: a consistent GetItem.
	ddb := dynamodb.NewFromConfig(st.AWSConfig)
	table := st.Resources.Tables["SessionTable"].Name
	key := map[string]ddbtypes.AttributeValue{"pk": &ddbtypes.AttributeValueMemberS{Value: "bench"}, "sk": &ddbtypes.AttributeValueMemberS{Value: "rtt"}}
	start := time.Now()
	const probes = 20
	for range probes {
		if _, err := ddb.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: &table, Key: key, ConsistentRead: aws.Bool(true)}); err != nil {
			t.Fatal(err)
		}
	}
	rtt := time.Since(start) / probes

	var total, waiting, worstLag time.Duration
	for i := range n {
		begin := time.Now()
		_, out := rpc(t, st, e2eGatewayToken, "agent", map[string]any{"message": fmt.Sprintf("bench %d", i), "sessionKey": "bench"})
		runID := result(t, out)["runId"]
		waitStart := time.Now()
		_, out = rpc(t, st, e2eGatewayToken, "agent.wait", map[string]any{"runId": runID, "timeoutMs": 20000})
		returned := time.Now()
		r := result(t, out)
		if r["status"] != "ok" {
			t.Fatalf("run %d: %v", i, r)
		}
		lag, err := waitLag(r, waitStart, returned)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if lag > waitLagBound {
			t.Errorf("run %d: agent.wait returned %s after the run ended (or the wait began), want at most %s", i, lag.Round(time.Millisecond), waitLagBound)
		}
		worstLag = max(worstLag, lag)
		waiting += returned.Sub(waitStart)
		total += returned.Sub(begin)
	}
	mean := total / time.Duration(n)
	batches, requests := logs.snapshot()
	calls := 0
	for _, r := range requests {
		calls += r.AWSCalls - configReads(r)
	}
	runnerCalls := 0
	for _, b := range batches {
		runnerCalls += turnCalls(b)
	}
	perRun := float64(calls+runnerCalls) / float64(n)
	waitReads := -n // each agent call reads its session's own queue mode (one GetItem)
	for _, r := range requests {
		waitReads += opCount(r, "DynamoDB.GetItem") // else only agent.wait reads runs
	}
	t.Logf("BENCH agent_wait_reads reads=%d waiting=%s reads_per_second=%.1f (consistent GetItem of the run record)",
		waitReads, waiting.Round(time.Millisecond), float64(waitReads)/waiting.Seconds())
	t.Logf("BENCH agent_wait runs=%d mean=%s storage_calls_per_run=%.1f emulator_rtt=%s ratio=%.1f (mean / (calls × rtt); the local queue poller and RIE hops are the rest)",
		n, mean.Round(time.Millisecond), perRun, rtt.Round(time.Microsecond), float64(mean)/(perRun*float64(rtt)))
	t.Logf("BENCH agent_wait_lag worst=%s bound=%s (agent.wait's return after max(endedAt, wait start))", worstLag.Round(time.Millisecond), waitLagBound)
}

// waitLag is how long after the later of the run's end (its endedAt, epoch
// ms) and waitStart agent.wait returned. Both clocks are this machine's.
func waitLag(result map[string]any, waitStart, returned time.Time) (time.Duration, error) {
	ms, ok := result["endedAt"].(float64)
	if !ok || ms <= 0 {
		return 0, fmt.Errorf("agent.wait result %v has no endedAt", result)
	}
	from := time.UnixMilli(int64(ms))
	if waitStart.After(from) {
		from = waitStart
	}
	return returned.Sub(from), nil
}
