package provision

import (
	"fmt"
	"testing"
)

// TestLaneQueuePrivileges: the sub-agent lane's queue is written only by
// the functions that may queue for a sub-agent session (the runner's
// sessions_spawn/sessions_send, the gateway's agent, /hooks/agent), and
// consumed only by the runner, which polls and delays on both lanes.
func TestLaneQueuePrivileges(t *testing.T) {
	t.Parallel()
	l := loadLP(t, nil)
	queueARN := func(id string) string {
		return fmt.Sprintf("arn:aws:sqs:%s:%s:%s.fifo", lpRegion, lpAccount, physicalName(lpStack, id))
	}
	work, sub := queueARN("WorkQueue"), queueARN("SubagentQueue")
	consume := []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueAttributes"}
	tests := []struct {
		function      string
		sendSubagent  bool
		consumeQueues bool
	}{
		{function: "Runner", sendSubagent: true, consumeQueues: true},
		{function: "Gateway", sendSubagent: true},
		{function: "Hooks", sendSubagent: true},
		{function: "TelegramWebhook"},
		{function: "DiscordInteractions"},
	}
	for _, tt := range tests {
		t.Run(tt.function, func(t *testing.T) {
			sts := l.statements(t, tt.function)
			if !allows(sts, "sqs:SendMessage", work) {
				t.Errorf("%s may not send to the work queue", tt.function)
			}
			if got := allows(sts, "sqs:SendMessage", sub); got != tt.sendSubagent {
				t.Errorf("%s sqs:SendMessage on the sub-agent queue = %v; want %v", tt.function, got, tt.sendSubagent)
			}
			for _, action := range consume {
				for _, q := range []string{work, sub} {
					if got := allows(sts, action, q); got != tt.consumeQueues {
						t.Errorf("%s %s on %s = %v; want %v", tt.function, action, q, got, tt.consumeQueues)
					}
				}
			}
		})
	}
}
