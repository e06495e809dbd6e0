package sessions

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
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
)

// Limits of sessions_send.
const (
	// maxSendBytes keeps a queued message well inside SQS's 256 KiB, as
	// the gateway's agent method does.
	maxSendBytes = 128 << 10
	// DefaultSendTimeoutSeconds is the wait when timeoutSeconds is
	// omitted.
	DefaultSendTimeoutSeconds = 30
	// MaxSendTimeoutSeconds bounds the wait: the waiting turn holds its
	// runner slot and its own session's group, so a longer timeoutSeconds
	// is clamped; the reply still comes back through the reply-back
	// round, however long the target takes.
	MaxSendTimeoutSeconds = 60
	// sendWaitMargin is kept between the wait's end and the run's own
	// deadline, for the model's next call.
	sendWaitMargin = 20 * time.Second
)

// SendTool is sessions_send (the session tools page). The message goes
// through the ingest door onto the target session's own FIFO group,
// never the caller's, as round 1 of an agent-to-agent flow (the turn
// engine runs the reply-back rounds and the announce as queued turns,
// whatever the caller does). With timeoutSeconds 0 the call answers at
// once; otherwise it waits for the target's run, bounded (see wait), and
// a wait that expires loses nothing: the flow goes on.
type SendTool struct {
	store   Reader
	runs    run.Getter // nil: no run records, no wait
	ingress tools.Ingress
	view    view
	caller  inbound.Message // the caller's turn's message
	now     func() time.Time
	sends   *tools.Counter
}

// NewSendTool is sessions_send of run over store, queueing through
// run.Ingress (which must be set) and waiting on runs (nil: never).
func NewSendTool(run tools.Run, store Reader, runs run.Getter) SendTool {
	return SendTool{store: store, runs: runs, ingress: run.Ingress, view: viewOf(run), caller: run.Message, now: run.Now, sends: &tools.Counter{}}
}

type sendArgs struct {
	SessionKey     string        `json:"sessionKey"`
	Message        string        `json:"message"`
	TimeoutSeconds *tools.Number `json:"timeoutSeconds"`
}

// sendResult is sessions_send's answer.
type sendResult struct {
	RunID      string `json:"runId"`
	Status     string `json:"status"` // accepted | ok | timeout | error
	SessionKey string `json:"sessionKey"`
	Reply      string `json:"reply,omitempty"`
	Error      string `json:"error,omitempty"`
	Note       string `json:"note,omitempty"`
}

// timeoutNote tells the agent a wait that expired lost nothing.
const timeoutNote = "the target's run goes on; its reply comes back to this session in a reply-back round, " +
	"or read it later with sessions_history"

const sendSchema = `{"type":"object","properties":{` +
	`"sessionKey":{"type":"string","description":"the target: a session key as sessions_list shows it (\"main\" is this agent's direct chat) or a sessionId"},` +
	`"message":{"type":"string","description":"the message the target session's agent receives"},` +
	`"timeoutSeconds":{"type":"integer","minimum":0,"description":"seconds to wait for the target's reply (default 30, at most 60); 0: queue and return at once"}` +
	`},"required":["sessionKey","message"],"additionalProperties":false}`

// Spec implements tools.Tool.
func (SendTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: SendName,
		Description: "Send a message to another session; its agent runs on it with agent-to-agent context. " +
			"Waits up to timeoutSeconds for the reply ({runId, status: \"ok\", reply}; \"timeout\" or \"error\" otherwise); " +
			"timeoutSeconds 0 returns {runId, status: \"accepted\"} at once. The target's reply also comes back in " +
			"reply-back rounds (answer exactly " + inbound.ReplySkip + " to end them), then the target may announce the outcome on its channel.",
		Schema: json.RawMessage(sendSchema),
	}
}

// Run checks the message and the target, queues round 1 and, unless
// timeoutSeconds is 0, waits for the target's reply. Errors queue
// nothing.
func (s SendTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a sendArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be {sessionKey: string, message: string, timeoutSeconds?: number}: %v", err)
	}
	if err := checkText("message", a.Message, "another session's commands are not the agent's to run"); err != nil {
		return "", err
	}
	key, e, err := s.view.find(ctx, s.store, strings.TrimSpace(a.SessionKey))
	if err != nil {
		return "", err
	}
	if key == s.caller.SessionKey {
		return "", errors.New("sessionKey names this session: answer in your reply instead of sending to yourself")
	}
	target := session.OwnerOf(key, e)
	if err := agentToAgentAllowed(s.view.cfg.Tools.AgentToAgent, s.view.agentID, target); err != nil {
		return "", err
	}
	runID, err := s.ingress.Queue(ctx, s.firstRound(key, target, a.Message))
	if err != nil {
		return "", fmt.Errorf("queue the message for %s: %w", key, err)
	}
	res := sendResult{RunID: runID, Status: "accepted", SessionKey: session.ShownKey(s.view.agentID, key, s.view.keys)}
	if wait := sendTimeout(a.TimeoutSeconds); wait > 0 {
		s.wait(ctx, &res, wait)
	}
	return tools.JSONResult(res)
}

// checkText refuses a blank, oversized or command text (what, the
// argument's name; why, why a command is refused).
func checkText(what, text, why string) error {
	trimmed := strings.TrimSpace(text)
	switch {
	case trimmed == "":
		return fmt.Errorf("%s is required and must not be blank", what)
	case len(text) > maxSendBytes:
		return fmt.Errorf("%s is %d bytes, over %d", what, len(text), maxSendBytes)
	case strings.HasPrefix(trimmed, "/"):
		return fmt.Errorf("%s must not be a command (it starts with \"/\"): %s", what, why)
	}
	return nil
}

// firstRound is the message that starts the flow: round 1, run by the
// target session's agent.
func (s SendTool) firstRound(key, target, text string) inbound.Message {
	id := sendMessageID(s.caller.ID, key, s.sends.Next(key))
	return inbound.Message{
		ID:         id,
		AgentID:    target,
		SessionKey: key,
		Channel:    inbound.Internal,
		ChatType:   inbound.Direct,
		To:         inbound.FlowTo,
		Text:       text,
		ReceivedAt: s.now().UnixMilli(),

		ExtraSystemPrompt: a2aContext(s.view, s.caller, key),
		Flow: &inbound.Flow{
			Kind: inbound.FlowSend, ID: id, Round: 1, MaxTurns: s.view.cfg.Session.AgentToAgent.MaxPingPongTurns,
			Requester: s.caller.SessionKey, RequesterAgent: s.view.agentID, RequesterChannel: s.caller.Channel,
			Target: key, TargetAgent: target, Request: text,
		},
	}
}

// sendTimeout is the wait timeoutSeconds asks for: the default when
// omitted, clamped to MaxSendTimeoutSeconds; 0 for none.
func sendTimeout(n *tools.Number) time.Duration {
	secs := float64(DefaultSendTimeoutSeconds)
	if n != nil {
		secs = float64(*n)
	}
	secs = min(max(secs, 0), MaxSendTimeoutSeconds)
	return time.Duration(secs * float64(time.Second))
}

// wait polls the target's run record (run.Wait: about one read a second)
// until it ends or the wait is over, and fills res. The wait is bounded
// by timeout and by the caller's own deadline less sendWaitMargin, so it
// can never deadlock: two sessions sending to each other at once (each
// one's message queued behind the other's waiting turn) both time out,
// then each answers the other, and the reply-back rounds carry the
// replies. A retried caller turn queues the same message (same id, same
// run id) and so waits on the same run, finding it done if it is.
func (s SendTool) wait(ctx context.Context, res *sendResult, timeout time.Duration) {
	if s.runs == nil {
		res.Note = "not waited for: this deployment keeps no run records; " + timeoutNote
		return
	}
	if deadline, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(deadline)-sendWaitMargin)
	}
	if timeout <= 0 {
		res.Status, res.Error, res.Note = run.StatusTimeout, "no time left in this run to wait", timeoutNote
		return
	}
	out, err := run.Wait(ctx, s.runs, res.RunID, timeout)
	if err == nil && out.Status == run.StatusOK {
		rec, gerr := s.runs.Get(ctx, res.RunID)
		out.Error, err = "", gerr
		res.Reply = rec.Reply
	}
	switch {
	case err != nil:
		res.Status, res.Error, res.Note = run.StatusError, "could not follow the target's run: "+fault.Message(err), timeoutNote
	case out.Status == run.StatusTimeout:
		res.Status, res.Error, res.Note = run.StatusTimeout, fmt.Sprintf("no reply within %s", timeout.Round(time.Second)), timeoutNote
	default:
		res.Status, res.Error = out.Status, out.Error
	}
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
func a2aContext(v view, caller inbound.Message, target string) string {
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
