package devstack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// hook posts body to a hook on the local stack's front and decodes the
// answer.
func hook(t *testing.T, st *Stack, token, path, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, st.FrontURL+path, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("POST %s: undecodable answer (status %d): %v", path, resp.StatusCode, err)
	}
	return resp.StatusCode, out
}

// TestHooksEndToEnd runs the Hooks function through the real bootstrap
// under the RIE and the front: POST /hooks/agent with the token answers
// 202 with a runId, the runner runs it (agent.wait through the gateway),
// the transcript shows the untrusted envelope, and a second hook naming
// the returned session key continues that session. The stack's IAM check
// (startStack) covers the Hooks role.
func TestHooksEndToEnd(t *testing.T) {
	st, _, _ := e2eStack(t, true, 0)

	t.Run("refusals", func(t *testing.T) {
		if code, _ := hook(t, st, "", "/hooks/agent", `{"message":"hi"}`); code != http.StatusUnauthorized {
			t.Errorf("no token: %d; want 401", code)
		}
		if code, _ := hook(t, st, "wrong-token-0123456789abcdefghijklm", "/hooks/agent", `{"message":"hi"}`); code != http.StatusUnauthorized {
			t.Errorf("wrong token: %d; want 401", code)
		}
		if code, out := hook(t, st, e2eHooksToken, "/hooks/agent", `{"name":"ci"}`); code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out), "message") {
			t.Errorf("no message: %d %v; want 400 naming the field", code, out)
		}
	})

	code, out := hook(t, st, e2eHooksToken, "/hooks/agent", `{"message":"build 42 failed","name":"CI","idempotencyKey":"e2e-hook-1"}`)
	runID, _ := out["runId"].(string)
	key, _ := out["sessionKey"].(string)
	if code != http.StatusAccepted || out["ok"] != true || runID == "" || !strings.HasPrefix(key, "hook:") {
		t.Fatalf("POST /hooks/agent = %d %v; want 202 with a runId and a hook: session", code, out)
	}
	if _, again := hook(t, st, e2eHooksToken, "/hooks/agent", `{"message":"build 42 failed","name":"CI","idempotencyKey":"e2e-hook-1"}`); again["runId"] != runID {
		t.Errorf("retry with the same idempotencyKey gave run %v; want %s", again["runId"], runID)
	}
	waitRun(t, st, runID)

	code, out = hook(t, st, e2eHooksToken, "/hooks/agent", fmt.Sprintf(`{"message":"build 43 passed","sessionKey":%q}`, key))
	if code != http.StatusAccepted || out["sessionKey"] != key {
		t.Fatalf("continuation = %d %v; want 202 on %s", code, out, key)
	}
	waitRun(t, st, out["runId"].(string))

	_, hist := rpc(t, st, e2eGatewayToken, "chat.history", map[string]any{"sessionKey": key})
	text := fmt.Sprint(result(t, hist)["messages"])
	for _, want := range []string{"External content from hook (CI)", "<<<EXTERNAL_UNTRUSTED_CONTENT>>>", "build 42 failed", "build 43 passed", "echo: "} {
		if !strings.Contains(text, want) {
			t.Errorf("history of %s lacks %q:\n%s", key, want, text)
		}
	}
	if n := strings.Count(text, "build 42 failed"); n > 2 {
		t.Errorf("the retried hook ran more than once: %d mentions", n)
	}
}

// waitRun waits for runID to end ok through the gateway's agent.wait.
func waitRun(t *testing.T, st *Stack, runID string) {
	t.Helper()
	_, out := rpc(t, st, e2eGatewayToken, "agent.wait", map[string]any{"runId": runID, "timeoutMs": 20000})
	if r := result(t, out); r["status"] != "ok" {
		t.Fatalf("agent.wait %s = %v; want ok", runID, r)
	}
}
