package gateway

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/webchat"
)

// Limits of the agent method's params.
const (
	// maxMessageBytes keeps a queued message well inside SQS's 256 KiB
	// message limit with room for the other fields.
	maxMessageBytes = 128 << 10
	// maxIdempotencyKey bounds idempotencyKey; the message id is hashed
	// into the queue's dedup id when it does not fit as it is.
	maxIdempotencyKey = 256
	maxLabel          = 200
)

// internalChannel is the channel of a message whose reply is not
// delivered: the runner has no sender for it, so the reply is kept in the
// transcript only.
const internalChannel = inbound.Internal

// thinkingLevels are the values of thinking (agent) and thinkingLevel
// (sessions.patch), as upstream names them.
var thinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh"}

// agent queues a message for a session's agent and answers at once with
// the runId the runner will use; follow it with agent.wait.
//
// The session: sessionId (Sessions.Lookup) when given, else sessionKey
// (default "main") resolved with session.Canonical under agentId (default:
// the configured default agent; an agent:<id>:... key names its own agent).
//
// Idempotency: the message id is "api:" + idempotencyKey (a random id
// without one) and runId = run.NewID(message id), so a retried call with
// the same key gets the same runId, and the queue's deduplication (5
// minutes) and the runner's message record (30 days) make sure the
// message runs once.
//
// deliver (default false): false queues the message on channel "internal",
// for which the runner has no sender, so the reply stays in the
// transcript; with channel "webchat" (the control page's chat box,
// shared/webchat) it is queued on that channel instead, whose sender
// delivers nothing, so the session records WebChat as its channel. true needs channel and to, and session.sendPolicy (with the
// stored entry's override) must allow sending for the session on that
// channel as a direct chat; otherwise the call fails and nothing is queued.
//
// label and spawnedBy are written on the stored entry (Sessions.Update)
// when the session exists; a session that does not exist yet is created
// by the runner without them, so pass them again on a later call.
//
// The message goes through the ingest door, as a channel's do, with the
// caller as an operator: channels.<channel>.allowFrom does not apply (the
// bearer token is the operator's, and allowFrom is who may talk to the
// assistant on a channel), but a message "/stop" (or any message when the
// queue mode of its channel — "internal" without deliver — is interrupt)
// writes the session's stop mark (Deps.Stops) before it is queued, so the
// session's running turn ends at its next step and what is queued behind
// it is dropped. Owner-only commands (/send) are refused by the runner:
// an API message has no sender on any channel; sessions.patch sets a
// session's sendPolicy instead.
//
// Store calls: 1 Lookup with sessionId; 1 Get when deliver, label or
// spawnedBy needs the entry; 1 Update with label/spawnedBy on an existing
// session; 1 MarkStop for a /stop (with Deps.Stops); 1 Enqueue.
func (g *gateway) agent(ctx context.Context, params json.RawMessage) (any, error) {
	var p AgentParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	return g.accept(ctx, p)
}

// chatSend is agent with deliver false: the message is queued for the
// session and the reply is kept in the transcript (read it with
// chat.history).
func (g *gateway) chatSend(ctx context.Context, params json.RawMessage) (any, error) {
	var p ChatSendParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	return g.accept(ctx, AgentParams{Message: p.Message, SessionKey: p.SessionKey, SessionID: p.SessionID, IdempotencyKey: p.IdempotencyKey})
}

// validate checks p's fields; the error names the first bad one.
func (p AgentParams) validate() error {
	switch {
	case strings.TrimSpace(p.Message) == "":
		return invalidf("params.message: required")
	case len(p.Message) > maxMessageBytes:
		return invalidf("params.message: %d bytes, over %d", len(p.Message), maxMessageBytes)
	case len(p.IdempotencyKey) > maxIdempotencyKey:
		return invalidf("params.idempotencyKey: over %d bytes", maxIdempotencyKey)
	case p.Thinking != "" && !oneOf(p.Thinking, thinkingLevels):
		return invalidf("params.thinking: must be one of %s, got %q", strings.Join(thinkingLevels, ", "), p.Thinking)
	case p.Timeout != nil && *p.Timeout < 0:
		return invalidf("params.timeout: must be a number of seconds >= 0, got %d", *p.Timeout)
	case p.Label != nil && len(*p.Label) > maxLabel:
		return invalidf("params.label: over %d bytes", maxLabel)
	case p.Deliver && strings.TrimSpace(p.Channel) == "":
		return invalidf("params.channel: required when deliver is true")
	case p.Deliver && strings.TrimSpace(p.To) == "":
		return invalidf("params.to: required when deliver is true")
	}
	return nil
}

// accept resolves the session of p, checks the send policy, applies label
// and spawnedBy, and hands the message to the ingest door (see agent).
func (g *gateway) accept(ctx context.Context, p AgentParams) (any, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if g.Sessions == nil {
		return nil, missing("Sessions")
	}
	if g.Queue == nil {
		return nil, missing("Queue")
	}
	cfg, err := g.config(ctx)
	if err != nil {
		return nil, err
	}
	target, err := g.resolveTarget(ctx, cfg, p.SessionKey, p.SessionID, p.AgentID, p.Channel)
	if err != nil {
		return nil, err
	}
	needEntry := p.Deliver || p.Label != nil || p.SpawnedBy != nil
	if needEntry && !target.loaded {
		if err := g.loadEntry(ctx, &target); err != nil {
			return nil, err
		}
	}
	channel, chatType := internalChannel, inbound.Direct
	if webChat(p) {
		channel = webchat.Channel // the control page's chat box: a real channel, read back by the page
	}
	if p.Deliver {
		channel, chatType = strings.ToLower(strings.TrimSpace(p.Channel)), deliveredChatType(target, cfg)
		override := ""
		if target.exists {
			override = target.entry.SendPolicy
		}
		if !cfg.SendPolicy().Allows(target.key, channel, chatType, override) {
			return nil, invalidf("sending is denied for this session by session.sendPolicy")
		}
	}
	if err := g.labelEntry(ctx, target, p); err != nil {
		return nil, err
	}
	msg := p.message(target, channel, g.nowMS())
	msg.ChatType = chatType
	return g.enqueue(ctx, cfg, msg)
}

// webChat reports whether p is a WebChat message: channel "webchat"
// without deliver. It is queued on that channel (not "internal"), so its
// session records WebChat as its channel; the runner's WebChat sender
// delivers nothing and the page reads the reply with agent.wait and
// chat.history.
func webChat(p AgentParams) bool {
	return !p.Deliver && strings.EqualFold(strings.TrimSpace(p.Channel), webchat.Channel)
}

// deliveredChatType is the chat type a delivered run keeps: the stored
// entry's, else the shape of its key, so a group session stays a group and
// the group's send policy applies to what the run sends there.
func deliveredChatType(t target, cfg *config.Config) string {
	if t.exists && t.entry.ChatType != "" {
		return t.entry.ChatType
	}
	if session.Kind(t.key, cfg.Keys()) != session.KindGroup {
		return inbound.Direct
	}
	if k := session.Stripped(t.key); strings.HasPrefix(k, "channel:") || strings.Contains(k, ":channel:") {
		return inbound.Channel
	}
	return inbound.Group
}

// labelEntry writes label and spawnedBy on t's stored entry, when t exists
// and p sets them.
func (g *gateway) labelEntry(ctx context.Context, t target, p AgentParams) error {
	if !t.exists || (p.Label == nil && p.SpawnedBy == nil) {
		return nil
	}
	_, err := g.Sessions.Update(ctx, t.key, func(e *session.Entry) error {
		if p.Label != nil {
			e.Label = strings.TrimSpace(*p.Label)
		}
		if p.SpawnedBy != nil {
			e.SpawnedBy = strings.TrimSpace(*p.SpawnedBy)
		}
		return nil
	})
	// Deleted since the Get: the runner recreates it without them, as for
	// a session that did not exist.
	if err != nil && !fault.Is(err, fault.NotFound) {
		return err
	}
	return nil
}

// message is the inbound message of p for session t on channel, received
// at nowMS. Its id is "api:" + idempotencyKey, or a random one without a
// key.
func (p AgentParams) message(t target, channel string, nowMS int64) inbound.Message {
	messageID := "api:" + p.IdempotencyKey
	if p.IdempotencyKey == "" {
		messageID = "api:" + rand.Text()
	}
	to := strings.TrimSpace(p.To)
	switch {
	case to == "" && channel == webchat.Channel:
		to = webchat.To
	case to == "":
		to = "api"
	}
	msg := inbound.Message{
		ID:         messageID,
		AgentID:    t.agentID,
		SessionKey: t.key,
		Channel:    channel,
		AccountID:  strings.TrimSpace(p.AccountID),
		ChatType:   inbound.Direct,
		To:         to,
		ThreadID:   strings.TrimSpace(p.ThreadID),
		Text:       p.Message,
		ReceivedAt: nowMS,
		Provenance: inbound.Owner, // the gateway token's holder: the operator

		ExtraSystemPrompt: p.ExtraSystemPrompt,
		Thinking:          p.Thinking,
	}
	if p.Timeout != nil {
		msg.TimeoutSeconds = *p.Timeout
	}
	// The runner sets them too, so a session the run creates gets them.
	if p.Label != nil {
		msg.Label = strings.TrimSpace(*p.Label)
	}
	if p.SpawnedBy != nil {
		msg.SpawnedBy = strings.TrimSpace(*p.SpawnedBy)
	}
	return msg
}

// enqueue hands msg, whose session the call named, to the ingest door as
// the operator's and answers with the run it starts. The door decides
// with cfg, the document the call resolved the session with.
//
// API callers are operators (the bearer token is theirs), so
// channels.<channel>.allowFrom does not apply to them; a /stop (or any
// message in queue mode interrupt on msg's channel) writes the session's
// stop mark through Deps.Stops, as on a channel. The door's errors (stop
// mark, enqueue) are returned as they are; nothing is queued then.
func (g *gateway) enqueue(ctx context.Context, cfg *config.Config, msg inbound.Message) (any, error) {
	door := ingest.NewDoor(ingest.Deps{Settings: pinned{cfg}, Queue: g.Queue, Stops: g.Stops, Now: g.Now})
	out, err := door.Accept(ctx, ingest.Request{Message: msg, Origin: ingest.Operator})
	if err != nil {
		return nil, err
	}
	switch o := out.(type) {
	case ingest.Queued:
		return AgentAccepted{RunID: o.RunID, Status: "accepted", AcceptedAt: msg.ReceivedAt,
			SessionKey: session.Display(o.Message.SessionKey, cfg.Keys())}, nil
	case ingest.Refused:
		return nil, invalidf("params.message: refused: %s (%s)", o.Reason, o.Hint)
	case ingest.Ignored:
		return nil, invalidf("params.message: %s", o.Reason)
	}
	return nil, fault.New(fault.Internal, "ingest: unknown outcome %T", out)
}

// pinned serves one already loaded configuration.
type pinned struct{ cfg *config.Config }

func (p pinned) Current(context.Context) (*config.Config, error) { return p.cfg, nil }

// target is a resolved session.
type target struct {
	key     string
	agentID string
	entry   session.Entry
	loaded  bool // entry/exists are known
	exists  bool
}

// resolveTarget resolves sessionId (Lookup; a missing id is NotFound) or
// sessionKey (default "main") under agentID (default: the configured
// default agent). An agent:<id>:... key names its agent; an agentId that
// contradicts it is invalid. The entry is loaded only with sessionId.
func (g *gateway) resolveTarget(ctx context.Context, cfg *config.Config, sessionKey, sessionID, agentID, channel string) (target, error) {
	agentID = strings.TrimSpace(agentID)
	if sessionID = strings.TrimSpace(sessionID); sessionID != "" {
		key, e, err := g.Sessions.Lookup(ctx, sessionID)
		if err != nil {
			if fault.Is(err, fault.NotFound) {
				return target{}, fault.Wrap(fault.NotFound, err, "params.sessionId: no session has id %q", sessionID)
			}
			return target{}, err
		}
		if sessionKey != "" {
			if k := session.Canonical(agentOr(cfg, agentID), sessionKey, channel, cfg.Keys()); k != key {
				return target{}, invalidf("params.sessionKey: %q does not name the session of sessionId %q", sessionKey, sessionID)
			}
		}
		agent := e.AgentID
		if agent == "" {
			agent = agentOf(cfg, key, agentID)
		}
		return target{key: key, agentID: agent, entry: e, loaded: true, exists: true}, nil
	}
	if strings.TrimSpace(sessionKey) == "" {
		sessionKey = session.DefaultMainKey
	}
	key := session.Canonical(agentOr(cfg, agentID), sessionKey, channel, cfg.Keys())
	if strings.HasPrefix(key, "agent:") && agentID != "" && session.AgentOf(key) != session.NormalizeAgentID(agentID) {
		return target{}, invalidf("params.agentId: %q, but sessionKey %q belongs to agent %q", agentID, sessionKey, session.AgentOf(key))
	}
	return target{key: key, agentID: agentOf(cfg, key, agentID)}, nil
}

// loadEntry reads t's entry; a missing one is not an error.
func (g *gateway) loadEntry(ctx context.Context, t *target) error {
	e, err := g.Sessions.Get(ctx, t.key)
	switch {
	case err == nil:
		t.entry, t.exists = e, true
		if e.AgentID != "" {
			t.agentID = e.AgentID // a session keeps the agent it started with
		}
	case !fault.Is(err, fault.NotFound):
		return err
	}
	t.loaded = true
	return nil
}

// agentOr is agentID normalised, or the configured default agent.
func agentOr(cfg *config.Config, agentID string) string {
	if strings.TrimSpace(agentID) == "" {
		return session.NormalizeAgentID(cfg.Routing().Default)
	}
	return session.NormalizeAgentID(agentID)
}

// agentOf is the agent of key: the one an agent:<id>:... key names, else
// agentID or the default agent (cron:, hook:, node- and reserved keys name
// none).
func agentOf(cfg *config.Config, key, agentID string) string {
	if strings.HasPrefix(key, "agent:") {
		return session.AgentOf(key)
	}
	return agentOr(cfg, agentID)
}

func oneOf(v string, allowed []string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

// agentWait waits for a run to end, at most timeoutMs (default 30000,
// clamped to MaxWait; 0 checks once), and answers
// {runId, status: ok|error|timeout, startedAt?, endedAt?, error?}. A run
// that has not started yet (still queued) is waited for like a running
// one. Waiting never affects the run: a timeout only ends the wait.
//
// Cost: run.Wait reads the record at once, then after 100, 200, 400, 800
// ms and every second after that: about 4 Gets in the first second, then
// 1 per second, about 29 for a full 25 s wait.
func (g *gateway) agentWait(ctx context.Context, params json.RawMessage) (any, error) {
	var p WaitParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	p.RunID = strings.TrimSpace(p.RunID)
	if p.RunID == "" {
		return nil, invalidf("params.runId: required")
	}
	if err := run.CheckID(p.RunID); err != nil {
		return nil, invalidf("params.runId: %s", fault.Message(err))
	}
	if p.TimeoutMs != nil && *p.TimeoutMs < 0 {
		return nil, invalidf("params.timeoutMs: must be >= 0, got %d", *p.TimeoutMs)
	}
	timeout := waitTimeout(p.TimeoutMs)
	if g.Runs == nil {
		return nil, missing("Runs")
	}
	res, err := run.Wait(ctx, g.Runs, p.RunID, timeout)
	if err != nil {
		return nil, err
	}
	return waitResultOf(p.RunID, res), nil
}

// waitTimeout is how long agent.wait waits for timeoutMs (>= 0 or nil):
// run.DefaultWaitTimeout when nil, at least 1 ms (run.Wait reads <= 0 as
// its default; 1 ms reads the record twice and returns) and at most
// MaxWait.
func waitTimeout(timeoutMs *int64) time.Duration {
	timeout := run.DefaultWaitTimeout
	if timeoutMs != nil {
		timeout = time.Duration(min(*timeoutMs, int64(MaxWait/time.Millisecond))) * time.Millisecond
	}
	return min(max(timeout, time.Millisecond), MaxWait)
}
