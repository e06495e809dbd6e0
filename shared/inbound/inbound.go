// Package inbound defines the message a channel function puts on the work
// queue and the runner takes off it. It is the contract between the two, so
// its JSON shape only ever gains fields.
package inbound

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
)

// Chat types, as the session seed names them.
const (
	Direct  = "direct"
	Group   = "group"
	Channel = "channel"
)

// Internal is the channel of a run requested through the gateway API
// without delivery: the runner has no sender for it, so the reply stays in
// the transcript.
const Internal = "internal"

// Kinds of message. The zero value is an ordinary message that starts a turn.
const (
	// KindMigrate moves the session at MigrateFrom to SessionKey (a
	// Telegram group that became a supergroup changes its chat id).
	KindMigrate = "migrate"
	// KindDeliver delivers the outbox item OutboxID (an announce): it is
	// queued on its own FIFO group (QueueGroup), never a session's, so a
	// channel that refuses it holds back nothing else.
	KindDeliver = "deliver"
)

// Message is one inbound turn for a session.
type Message struct {
	// ID identifies the inbound event across redeliveries, e.g.
	// "telegram:<botID>:<updateID>". The runner processes each ID once.
	ID         string `json:"id"`
	AgentID    string `json:"agentId"`
	SessionKey string `json:"sessionKey"`
	Channel    string `json:"channel"`
	AccountID  string `json:"accountId,omitempty"`
	ChatType   string `json:"chatType"`
	// From is the sender's route id ("telegram:42"); To is where replies go
	// (a chat id); ThreadID is a topic or thread within To.
	From       string `json:"from,omitempty"`
	To         string `json:"to"`
	ThreadID   string `json:"threadId,omitempty"`
	GroupID    string `json:"groupId,omitempty"`
	Subject    string `json:"subject,omitempty"`
	SenderName string `json:"senderName,omitempty"`
	Text       string `json:"text"`
	ReceivedAt int64  `json:"receivedAt"` // epoch ms at the edge
	// QueuedAt is when the message reached the work queue (epoch ms): the
	// consumer sets it from the record's SentTimestamp as it decodes it
	// (sqsqueue). Debounce measures a chat's quiet time by it, as
	// ReceivedAt may be the channel's own stamp in whole seconds
	// (Telegram's message date). 0 when unknown.
	QueuedAt int64 `json:"queuedAt,omitempty"`
	// ReplyToken is a short-lived handle the channel gave for answering
	// this message (Discord: the interaction token, valid 15 minutes from
	// ReceivedAt). The runner hands it to the channel's sender with the
	// reply; it is never stored on the session.
	ReplyToken string `json:"replyToken,omitempty"`

	Kind        string `json:"kind,omitempty"`        // "" or KindMigrate
	MigrateFrom string `json:"migrateFrom,omitempty"` // KindMigrate: the old session key

	// Per-run choices of a run requested through the gateway API.
	ExtraSystemPrompt string `json:"extraSystemPrompt,omitempty"` // appended to the system prompt
	TimeoutSeconds    int64  `json:"timeoutSeconds,omitempty"`    // tighter than agents.defaults.timeoutSeconds
	Label             string `json:"label,omitempty"`             // sets the session's label
	SpawnedBy         string `json:"spawnedBy,omitempty"`         // sets the session's spawnedBy
	// Model, "provider/name", sets the session's model override (a
	// sub-agent's sessions_spawn model).
	Model string `json:"model,omitempty"`
	// Thinking is this run's own thinking level (the gateway's agent, a
	// hook's or a cron job's thinking), over the session's thinkingLevel
	// for this run only; "" for the session's.
	Thinking string `json:"thinking,omitempty"`
	// Provenance is who asked, where the door knows it (hooks, tool-made
	// cron jobs and agent-to-agent text: Untrusted; the gateway: Owner);
	// "" for a channel message, whose sender the runner judges against
	// the configuration in force.
	Provenance Provenance `json:"provenance,omitempty"`

	// Flow, when set, makes the turn one step of an agent-to-agent flow
	// (sessions_send's rounds and announce, a sub-agent's run): when the
	// turn is committed the runner queues the flow's next step.
	Flow *Flow `json:"flow,omitempty"`
	// OutboxID is the outbox item a KindDeliver message delivers.
	OutboxID string `json:"outboxId,omitempty"`

	// Attachments are the files that came with the message (a Telegram
	// photo, a Discord /ask attachment), as references: the runner fetches their bytes from the
	// channel when the turn needs them. Text may be empty when there are
	// attachments.
	Attachments []Attachment `json:"attachments,omitempty"`
}

// AttachmentImage is the kind of an attached picture.
const AttachmentImage = "image"

// Attachment is a reference to a file on the channel, never its bytes
// (the queue's messages are at most 1 MB).
type Attachment struct {
	Kind string `json:"kind"` // AttachmentImage
	// FileID is the channel's handle for the file (Telegram: file_id,
	// valid for fetching it through the channel's bot; Discord: the
	// attachment's id, for the record only).
	FileID string `json:"fileId"`
	// URL is where the file is fetched from when the channel names one
	// (Discord: the attachment's signed CDN URL, https, valid about a
	// day); "" when FileID is the way (Telegram).
	URL      string `json:"url,omitempty"`
	MimeType string `json:"mimeType,omitempty"` // as the channel reports it; "" when unknown
	Size     int64  `json:"size,omitempty"`     // bytes as the channel reports it; 0 when unknown
}

// Images returns the attachments of kind AttachmentImage, in order.
func (m Message) Images() []Attachment {
	var out []Attachment
	for _, a := range m.Attachments {
		if a.Kind == AttachmentImage {
			out = append(out, a)
		}
	}
	return out
}

// Flow kinds: the step a message is in an agent-to-agent flow.
const (
	FlowSend     = "send"     // round 1: the target answers the requester's message
	FlowReply    = "reply"    // rounds 2+: requester and target alternate (ping-pong)
	FlowAnnounce = "announce" // the target's announce step
	FlowSubagent = "subagent" // a sub-agent's run (sessions_spawn)
	// FlowResult carries a finished sub-agent's announce to its
	// requester's FIFO group, where it becomes a wake turn (the requester
	// yielded waiting for it) or the announce (turn: subagentResult).
	FlowResult = "subagent_result"
)

// Flow is the state an agent-to-agent flow carries from step to step, so
// each step is an ordinary queued turn and no process waits between them.
type Flow struct {
	Kind string `json:"kind"`
	// ID names the flow: the id of its first message. Every later step's
	// message id derives from it and the step, so a replayed step queues
	// its successor once.
	ID    string `json:"id"`
	Round int    `json:"round,omitempty"` // 1 for FlowSend, 2+ for FlowReply
	// MaxTurns is session.agentToAgent.maxPingPongTurns when the flow
	// started.
	MaxTurns         int    `json:"maxTurns,omitempty"`
	Requester        string `json:"requester"`                  // the requesting session's key
	RequesterAgent   string `json:"requesterAgent,omitempty"`   // its agent id
	RequesterChannel string `json:"requesterChannel,omitempty"` // the channel of its turn
	Target           string `json:"target"`                     // the target (or child) session's key
	TargetAgent      string `json:"targetAgent,omitempty"`
	Request          string `json:"request"`              // the original message or task
	FirstReply       string `json:"firstReply,omitempty"` // the target's round-1 reply
	LastReply        string `json:"lastReply,omitempty"`  // the latest ping-pong reply

	// Sub-agent flows (FlowSubagent).
	Route     *Route `json:"route,omitempty"` // where the announce goes: the requester's route at spawn
	Label     string `json:"label,omitempty"`
	Cleanup   string `json:"cleanup,omitempty"`   // "delete" | "keep"
	StartedAt int64  `json:"startedAt,omitempty"` // epoch ms of the spawn
}

// Route is where a message is delivered on a channel.
type Route struct {
	Channel   string `json:"channel"`
	To        string `json:"to"`
	AccountID string `json:"accountId,omitempty"`
	ThreadID  string `json:"threadId,omitempty"`
}

// Validate reports the first missing field by name.
func (m Message) Validate() error {
	for _, f := range []struct{ name, v string }{
		{"id", m.ID}, {"agentId", m.AgentID}, {"sessionKey", m.SessionKey},
		{"channel", m.Channel}, {"chatType", m.ChatType}, {"to", m.To},
	} {
		if strings.TrimSpace(f.v) == "" {
			return fault.New(fault.Invalid, "inbound message: %s is required", f.name)
		}
	}
	if !m.Provenance.Valid() {
		return fault.New(fault.Invalid, "inbound message: unknown provenance %q", m.Provenance)
	}
	switch m.Kind {
	case "":
	case KindMigrate:
		if strings.TrimSpace(m.MigrateFrom) == "" {
			return fault.New(fault.Invalid, "inbound message: migrateFrom is required for kind migrate")
		}
	case KindDeliver:
		if strings.TrimSpace(m.OutboxID) == "" {
			return fault.New(fault.Invalid, "inbound message: outboxId is required for kind deliver")
		}
	default:
		return fault.New(fault.Invalid, "inbound message: unknown kind %q", m.Kind)
	}
	return nil
}

// Decode parses and validates a queued message body.
func Decode(body []byte) (Message, error) {
	var m Message
	if err := json.Unmarshal(body, &m); err != nil {
		return Message{}, fault.Wrap(fault.Invalid, err, "inbound message: malformed JSON")
	}
	return m, m.Validate()
}

// QueueGroup is the FIFO MessageGroupId for the message's session: the session
// key itself when it fits SQS's alphabet and 128-character limit, else a
// stable hash of it. Same session, same group, so turns run in order.
// A KindDeliver message has a group of its own ("outbox:<id>").
func (m Message) QueueGroup() string {
	if m.Kind == KindDeliver {
		return queueID("o", "outbox:"+m.OutboxID)
	}
	return queueID("s", m.SessionKey)
}

// QueueDedup is the FIFO MessageDeduplicationId: the message ID, hashed when it
// does not fit SQS's alphabet or length.
func (m Message) QueueDedup() string { return queueID("d", m.ID) }

func queueID(prefix, s string) string {
	if s != "" && len(s) <= 128 && fitsQueueAlphabet(s) {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%s-%s", prefix, hex.EncodeToString(sum[:]))
}

// fitsQueueAlphabet: SQS group and dedup ids allow alphanumerics and ASCII
// punctuation only.
func fitsQueueAlphabet(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '!' || c > '~' {
			return false
		}
	}
	return true
}
