package cron

import (
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/session"
)

// AgentOf is the job's agent: its agentId, else the configured default.
func AgentOf(j Job, cfg *config.Config) string {
	if j.AgentID != "" {
		return j.AgentID
	}
	return session.NormalizeAgentID(cfg.Routing().Default)
}

// SessionKey is the session a run of j lands in: for an isolated job
// agent:<agentId>:cron:<jobId> (the runner starts a fresh sessionId on
// every run's message, Fired, to a cron key: turn.ResetCron), for a main
// job the agent's main session.
func SessionKey(j Job, cfg *config.Config) string {
	agentID := AgentOf(j, cfg)
	if j.SessionTarget == TargetMain {
		return session.Canonical(agentID, session.DefaultMainKey, "", cfg.Keys())
	}
	return "agent:" + agentID + ":cron:" + j.ID
}

// MessageID is the inbound message id (the queue's dedup id and the
// runner's record key) of one run of job jobID: fireKey must be unique
// per fire and the same on every delivery of it (the scheduled time of a
// schedule's fire; a fresh id for cron.run).
func MessageID(jobID, fireKey string) string { return messagePrefix + jobID + ":" + fireKey }

// messagePrefix starts the id of every message a job's run queues.
const messagePrefix = "cron:"

// sender is the From (and To and SenderName) of a job's messages.
const sender = "cron"

// Fired reports whether m is the message of one run of a job (Message:
// a schedule's fire or cron.run), as opposed to anything else that lands
// in a job's session: a sessions_send, an agent-to-agent reply-back
// round, a chat.send or agent call. Only a fired message starts the
// job's session afresh (turn.ResetCron). Channels, the gateway and the
// flows mint other ids ("telegram:…", "api:…", "a2a:…"), and none sends
// from "cron".
func Fired(m inbound.Message) bool {
	return strings.HasPrefix(m.ID, messagePrefix) && m.From == sender && m.Flow == nil
}

// SystemEvent is the text a main-session job queues.
func SystemEvent(j Job) string {
	return "System event (source: cron job " + j.Name + "): " + strings.TrimSpace(j.Payload.Text)
}

// Message is the inbound message of one run of j, fired at firedAt: an
// agentTurn in the job's isolated session, delivered to payload.channel /
// payload.to when deliver is set (else kept internal), or a system event
// in the agent's main session. An operator's job runs as the owner's; a
// job the cron tool created (CreatedBy "tool") runs as untrusted text. payload.model becomes the fresh session's
// model override (inbound.Message.Model), payload.thinking the run's
// thinking level (inbound.Message.Thinking).
func Message(j Job, cfg *config.Config, fireKey string, firedAt time.Time) inbound.Message {
	m := inbound.Message{
		ID:         MessageID(j.ID, fireKey),
		AgentID:    AgentOf(j, cfg),
		SessionKey: SessionKey(j, cfg),
		Channel:    inbound.Internal,
		ChatType:   inbound.Direct,
		From:       sender,
		To:         sender,
		SenderName: sender,
		ReceivedAt: firedAt.UnixMilli(),
		Provenance: inbound.Owner, // the operator's job
	}
	if j.CreatedBy == CreatedByTool {
		m.Provenance = inbound.Untrusted // text a model wrote
	}
	if j.SessionTarget == TargetMain {
		m.Text = SystemEvent(j)
		return m
	}
	m.Text = j.Payload.Message
	m.TimeoutSeconds = j.Payload.TimeoutSeconds
	m.Model, m.Thinking = j.Payload.Model, j.Payload.Thinking
	m.Label = "cron: " + j.Name
	if j.Payload.Deliver {
		m.Channel, m.To = j.Payload.Channel, j.Payload.To
	}
	return m
}
