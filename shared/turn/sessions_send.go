package turn

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// Ingress is the ingest door as a turn uses it to queue a message for
// another session (sessions_send). The runner wires it to ingest.Door
// (which imports this package, hence the interface): the message, whose
// session it names, is accepted as an operator's (allowFrom does not
// apply; stop marks and the queue mode do) and queued on the target
// session's FIFO group, deduplicated on its id. Queue returns the id of
// the run the message starts. A message the door refuses or ignores is an
// error saying why; nothing is queued then.
type Ingress interface {
	Queue(ctx context.Context, m inbound.Message) (runID string, err error)
}

const sessionsSendName = "sessions_send"

// Limits of sessions_send.
const (
	// maxSendBytes keeps a queued message well inside SQS's 256 KiB, as
	// the gateway's agent method does.
	maxSendBytes = 128 << 10
	// DefaultSendTimeoutSeconds is the spec's default wait (> 0). The
	// wait is not built: any timeoutSeconds other than 0 is answered as
	// 0, with a note.
	DefaultSendTimeoutSeconds = 30
)

// a2aTo is the To of a message sessions_send queues: it is on channel
// internal, so nothing is delivered anywhere.
const a2aTo = "a2a"

// sessionsSendTool is sessions_send (the session tools page), fire and
// forget only: the message goes through the ingest door onto the target
// session's own FIFO group, never the caller's, and the call answers at
// once; the caller's turn never waits on the target.
type sessionsSendTool struct {
	p       *Processor
	store   SessionReader
	view    sessionView
	ingress Ingress
	caller  inbound.Message // the caller's turn's message
	sends   *sendCounter
}

// sendCounter numbers a run's sends per target: the n-th send of a run to
// a session has the same message id on every attempt of the turn.
type sendCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *sendCounter) next(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[key]++
	return c.n[key]
}

type sendArgs struct {
	SessionKey     string  `json:"sessionKey"`
	Message        string  `json:"message"`
	TimeoutSeconds *number `json:"timeoutSeconds"`
}

// sendResult is sessions_send's answer.
type sendResult struct {
	RunID      string `json:"runId"`
	Status     string `json:"status"` // "accepted"
	SessionKey string `json:"sessionKey"`
	Note       string `json:"note,omitempty"`
}

// noWaitNote is the note of a send asked to wait (timeoutSeconds omitted
// or > 0): the wait is not built.
const noWaitNote = "not waited for: this deployment only queues (as timeoutSeconds 0); the target's run goes on; " +
	"read its reply later with sessions_history"

const sendSchema = `{"type":"object","properties":{` +
	`"sessionKey":{"type":"string","description":"the target: a session key as sessions_list shows it (\"main\" is this agent's direct chat) or a sessionId"},` +
	`"message":{"type":"string","description":"the message the target session's agent receives"},` +
	`"timeoutSeconds":{"type":"integer","minimum":0,"description":"0: queue and return at once. Waiting for the reply is not available yet: any value is treated as 0"}` +
	`},"required":["sessionKey","message"],"additionalProperties":false}`

func (s sessionsSendTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: sessionsSendName,
		Description: "Send a message to another session; its agent runs on it with agent-to-agent context. " +
			"Returns {runId, status: \"accepted\"} at once (the reply is not waited for: read it later with sessions_history).",
		Schema: json.RawMessage(sendSchema),
	}
}

func (s sessionsSendTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a sendArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be {sessionKey: string, message: string, timeoutSeconds?: number}: %v", err)
	}
	text := strings.TrimSpace(a.Message)
	switch {
	case text == "":
		return "", errors.New("message is required and must not be blank")
	case len(a.Message) > maxSendBytes:
		return "", fmt.Errorf("message is %d bytes, over %d", len(a.Message), maxSendBytes)
	case strings.HasPrefix(text, "/"):
		return "", errors.New("message must not be a command (it starts with \"/\"): another session's commands are not the agent's to run")
	}
	key, e, err := sessionsHistoryTool{p: s.p, store: s.store, view: s.view}.find(ctx, strings.TrimSpace(a.SessionKey))
	if err != nil {
		return "", err
	}
	if key == s.caller.SessionKey {
		return "", errors.New("sessionKey names this session: answer in your reply instead of sending to yourself")
	}
	target := agentOf(key, e)
	if err := agentToAgentAllowed(s.view.cfg.Tools.AgentToAgent, s.view.agentID, target); err != nil {
		return "", err
	}
	m := inbound.Message{
		ID:         sendMessageID(s.caller.ID, key, s.sends.next(key)),
		AgentID:    target,
		SessionKey: key,
		Channel:    inbound.Internal,
		ChatType:   inbound.Direct,
		To:         a2aTo,
		Text:       a.Message,
		ReceivedAt: s.p.Now().UnixMilli(),

		ExtraSystemPrompt: a2aContext(s.view, s.caller, key),
	}
	runID, err := s.ingress.Queue(ctx, m)
	if err != nil {
		return "", fmt.Errorf("queue the message for %s: %w", key, err)
	}
	res := sendResult{RunID: runID, Status: "accepted", SessionKey: session.ShownKey(s.view.agentID, key, s.view.keys)}
	if a.TimeoutSeconds == nil || float64(*a.TimeoutSeconds) > 0 {
		res.Note = noWaitNote
	}
	return jsonResult(res)
}

// sendMessageID is the id of the n-th message a turn (its message
// callerID) sends to the session key: the same on every attempt of the
// turn, so a retried turn that runs its tools again queues the message
// once (the queue deduplicates the id for 5 minutes, the target's message
// record for 30 days). It does not use the provider's tool call id, which
// a model called again on a retry does not repeat.
func sendMessageID(callerID, key string, n int) string {
	sum := sha256.Sum256([]byte(callerID + "\x00" + key + "\x00" + strconv.Itoa(n)))
	return "a2a:" + hex.EncodeToString(sum[:16])
}

// a2aContext is the agent-to-agent context the target's run gets as an
// extra system prompt: who asked, from which session and channel.
func a2aContext(v sessionView, caller inbound.Message, target string) string {
	channel := caller.Channel
	if channel == "" {
		channel = "unknown"
	}
	return strings.Join([]string{
		"Agent-to-agent message context:",
		fmt.Sprintf("Agent 1 (requester) agent: %s.", v.agentID),
		fmt.Sprintf("Agent 1 (requester) session: %s.", caller.SessionKey),
		fmt.Sprintf("Agent 1 (requester) channel: %s.", channel),
		fmt.Sprintf("Agent 2 (target) session: %s.", target),
		"The user message of this run was sent by Agent 1 with sessions_send, not by a person; your reply is kept in this session's transcript.",
	}, "\n")
}

// agentToAgentAllowed applies tools.agentToAgent to a send from agent
// from to agent to: within one agent always allowed; across agents only
// when enabled and both match allow (empty: any agent).
func agentToAgentAllowed(a config.ToolsAgentToAgent, from, to string) error {
	from, to = session.NormalizeAgentID(from), session.NormalizeAgentID(to)
	if from == to {
		return nil
	}
	if !a.Enabled {
		return fmt.Errorf("sending to agent %q's sessions is refused: agent-to-agent messaging is disabled (set tools.agentToAgent.enabled to true to allow cross-agent sends)", to)
	}
	for _, id := range []string{from, to} {
		if !agentAllowed(a.Allow, id) {
			return fmt.Errorf("sending from agent %q to agent %q is refused: %q is not in tools.agentToAgent.allow", from, to, id)
		}
	}
	return nil
}

// agentAllowed reports whether id matches one of patterns ("*"
// wildcards, case-insensitive); no patterns match every id.
func agentAllowed(patterns []string, id string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		p = strings.ToLower(strings.TrimSpace(p))
		if ok, err := path.Match(p, id); p == id || (err == nil && ok) {
			return true
		}
	}
	return false
}
