package devstack

import (
	"fmt"
	"strings"
	"testing"
)

// TestLanesEndToEnd runs the lanes through the real bootstraps under the
// RIE: the gateway's agent with a sub-agent session's key
// (agent:main:subagent:<id>) queues on the sub-agent queue, whose own
// event source mapping (RunnerSubagents, its own MaximumConcurrency)
// hands it to the runner, which answers it; the work queue's mapping
// (RunnerWork) never sees it. A main-session message takes the work
// queue and never the sub-agent one. startStack's IAM check covers the
// gateway's SendMessage and the runner's polling on the new queue.
func TestLanesEndToEnd(t *testing.T) {
	st, _, _ := e2eStack(t, true, 0)
	for _, id := range []string{"RunnerWork", "RunnerSubagents"} {
		if _, ok := st.Stats(id); !ok {
			t.Fatalf("no event source mapping %s in the local stack", id)
		}
	}
	tests := []struct {
		name, sessionKey, wantLane, otherLane string
	}{
		{name: "sub-agent session", sessionKey: "agent:main:subagent:7c9e6679-7425-40de-944b-e07fc1f90ae7", wantLane: "RunnerSubagents", otherLane: "RunnerWork"},
		{name: "main session", sessionKey: "agent:main:main", wantLane: "RunnerWork", otherLane: "RunnerSubagents"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want0, _ := st.Stats(tt.wantLane)
			other0, _ := st.Stats(tt.otherLane)
			text := "lane check for " + tt.name
			_, out := rpc(t, st, e2eGatewayToken, "agent", map[string]any{"message": text, "sessionKey": tt.sessionKey})
			r := result(t, out)
			if r["sessionKey"] != tt.sessionKey {
				t.Fatalf("agent queued on %v; want %s", r["sessionKey"], tt.sessionKey)
			}
			waitRun(t, st, r["runId"].(string))
			_, hist := rpc(t, st, e2eGatewayToken, "chat.history", map[string]any{"sessionKey": tt.sessionKey})
			if msgs := fmt.Sprint(result(t, hist)["messages"]); !strings.Contains(msgs, "echo: "+text) {
				t.Errorf("history of %s lacks the answer:\n%s", tt.sessionKey, msgs)
			}
			want1, _ := st.Stats(tt.wantLane)
			other1, _ := st.Stats(tt.otherLane)
			if want1.Messages-want0.Messages != 1 || want1.Deleted-want0.Deleted != 1 {
				t.Errorf("%s: %d messages, %d deleted during the run; want the one message, done", tt.wantLane,
					want1.Messages-want0.Messages, want1.Deleted-want0.Deleted)
			}
			if other1.Messages != other0.Messages {
				t.Errorf("%s received %d messages during the run; want none", tt.otherLane, other1.Messages-other0.Messages)
			}
		})
	}
}
