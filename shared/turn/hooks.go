package turn

import (
	"context"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
)

// Hooks are a turn's plugin extension points, typed Go functions set once
// with the Processor. Each list runs in order. Delivery is at least once,
// so a hook may see the same turn again when a turn is retried; hooks that
// have effects outside ZERO should key them on the message or run id.
type Hooks struct {
	// Tools are the agent loop's before_tool_call, after_tool_call and
	// tool_result_persist.
	Tools agent.Hooks

	// MessageReceived (message_received) sees every new inbound message
	// (not duplicates) before anything else happens.
	MessageReceived []func(ctx context.Context, m inbound.Message)
	// SessionStart (session_start) runs when a message starts a session:
	// a new key, a reset or an expired session. SessionEnd (session_end)
	// runs for the session a reset or expiry ended.
	SessionStart []func(ctx context.Context, s SessionEvent)
	SessionEnd   []func(ctx context.Context, s SessionEvent)
	// BeforeAgentStart (before_agent_start) may override the system
	// prompt or add context to it before the run starts.
	BeforeAgentStart []func(ctx context.Context, s *AgentStart)
	// AgentEnd (agent_end) sees the run's messages and outcome.
	AgentEnd []func(ctx context.Context, e AgentEnd)
	// BeforeCompaction and AfterCompaction (before_compaction,
	// after_compaction) observe a compaction.
	BeforeCompaction []func(ctx context.Context, c CompactionEvent)
	AfterCompaction  []func(ctx context.Context, c CompactionEvent)
	// MessageSending (message_sending) may rewrite the reply, or cancel it
	// by setting Text to "", before it is committed (so a retry sends the
	// same text). MessageSent (message_sent) runs once the reply is out.
	MessageSending []func(ctx context.Context, o *Outgoing)
	MessageSent    []func(ctx context.Context, o Outgoing)
}

// SessionEvent names a session that starts or ends.
type SessionEvent struct {
	SessionKey, SessionID, AgentID string
	Reason                         string // "new-key", "new" (a reset trigger), "stale", "cron"
}

// AgentStart is what before_agent_start may change.
type AgentStart struct {
	SessionKey, AgentID string
	Model               model.Ref
	Prompt              string   // the user's message for this run (read only)
	System              string   // the assembled system prompt; set to override it
	Context             []string // extra context, appended to the system prompt
}

// AgentEnd is what agent_end sees.
type AgentEnd struct {
	SessionKey, AgentID string
	Model               model.Ref
	Messages            []model.Message // the run's new messages
	Reply               string
	Usage               model.Usage
	Stop                string
}

// CompactionEvent describes a compaction.
type CompactionEvent struct {
	SessionKey   string
	TokensBefore int64
	Summary      string // after_compaction only
	Manual       bool   // /compact
}

// Outgoing is a reply on its way to a channel.
type Outgoing struct {
	SessionKey, MessageID string
	Channel, To           string
	Text                  string
}
