package cron

import (
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/session"
)

// AddParams is the job object of cron.add (the gateway method) and of
// the cron tool's add: the job without its state and times. id is
// optional (the caller makes one); enabled defaults to true;
// sessionTarget to "isolated" for an agentTurn and "main" for a
// systemEvent; wakeMode to "now".
type AddParams struct {
	ID             string   `json:"id,omitempty"`
	Name           string   `json:"name"`
	Description    string   `json:"description,omitempty"`
	AgentID        string   `json:"agentId,omitempty"`
	Enabled        *bool    `json:"enabled,omitempty"`
	DeleteAfterRun bool     `json:"deleteAfterRun,omitempty"`
	Schedule       Schedule `json:"schedule"`
	SessionTarget  string   `json:"sessionTarget,omitempty"`
	WakeMode       string   `json:"wakeMode,omitempty"`
	Payload        Payload  `json:"payload"`
}

// Job is the job p describes, not yet validated (New, through
// Service.Add, does that).
func (p AddParams) Job() Job {
	return Job{
		ID: p.ID, Name: p.Name, Description: p.Description, AgentID: p.AgentID, Enabled: p.Enabled == nil || *p.Enabled,
		DeleteAfterRun: p.DeleteAfterRun, Schedule: p.Schedule, SessionTarget: p.SessionTarget, WakeMode: p.WakeMode, Payload: p.Payload,
	}
}

// WakeMessage is the system event a wake queues into agentID's main
// session (the cron tool's wake): id must be unique per wake (the
// queue's dedup id).
func WakeMessage(cfg *config.Config, agentID, text, id string, now time.Time) inbound.Message {
	return inbound.Message{
		ID:         "wake:" + id,
		AgentID:    agentID,
		SessionKey: session.Canonical(agentID, session.DefaultMainKey, "", cfg.Keys()),
		Channel:    inbound.Internal,
		ChatType:   inbound.Direct,
		From:       "cron",
		To:         "cron",
		SenderName: "cron",
		ReceivedAt: now.UnixMilli(),
		Text:       "System event (source: wake): " + text,
		Provenance: inbound.Untrusted, // the cron tool's: text a model wrote
	}
}
