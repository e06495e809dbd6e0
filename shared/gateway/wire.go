package gateway

import (
	"encoding/json"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
)

// The wire types of the gateway API: the body of a call (Request), its
// answer (Response, ErrorBody), and every method's params and result. The
// gateway's handlers decode and encode exactly these types, and clients
// (cmd/zero) use them too, so the two cannot drift apart.
//
// Conventions:
//   - Times are int64 Unix epoch milliseconds (UTC); durations say their
//     unit in the name or the comment.
//   - Params are decoded strictly: an unknown field, a wrong type or
//     trailing data is a 400 whose message names the field
//     ("params.limit: must be an integer, got string"). Params fields
//     carry omitempty so that a client sends only what it sets; a pointer
//     tells an absent field from a zero one where the method cares.
//   - The field order of a type is the order of its keys on the wire.
//     Results that have no other contract keep their keys sorted, as the
//     gateway has always written them. testdata/wire pins the bytes.

// Request is the body of POST /rpc. Top-level fields other than method and
// params (a client's "id") are ignored; absent or null params read as {}.
type Request struct {
	Method string          `json:"method"` // e.g. "agent.wait"; required
	Params json.RawMessage `json:"params,omitempty"`
}

// Response is the answer to every call: OK with Result and HTTP 200, or
// not OK with Error and the status of Error.Code (400 invalid, 401
// unauthorized, 404 not_found, 409 conflict, 429 rate_limited, 503
// unavailable, 500 internal; also 405 for a method other than POST, 413
// for a body over MaxBodyBytes and 501 for a capability the store lacks).
// A success reads {"ok":true,"result":...}, an error
// {"error":{...},"ok":false}.
type Response struct {
	Error  *ErrorBody      `json:"error,omitempty"`
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result,omitempty"` // the method's result type, as JSON
}

// ErrorBody is the error of a failed call.
type ErrorBody struct {
	// Code is the fault code: invalid, unauthorized, not_found, conflict,
	// rate_limited, unavailable or internal.
	Code fault.Code `json:"code"`
	// Message is for people; for bad params it starts with the field's
	// path ("params.message: required"). It never carries a store's
	// internal error, which is logged instead.
	Message string `json:"message"`
}

// AgentParams are the params of agent: queue a message for a session's
// agent.
type AgentParams struct {
	Message    string `json:"message,omitempty"`    // the text; required, at most 128 KiB
	SessionKey string `json:"sessionKey,omitempty"` // the session; default "main", resolved under AgentID
	SessionID  string `json:"sessionId,omitempty"`  // the session by id instead (it must exist)
	AgentID    string `json:"agentId,omitempty"`    // default: the configured default agent
	// Channel, To, AccountID and ThreadID address the reply; Channel and
	// To are required when Deliver is true.
	Channel   string `json:"channel,omitempty"`
	To        string `json:"to,omitempty"`
	AccountID string `json:"accountId,omitempty"`
	ThreadID  string `json:"threadId,omitempty"`
	// Deliver sends the reply on Channel to To, when session.sendPolicy
	// allows it; false keeps the reply in the transcript only.
	Deliver bool `json:"deliver,omitempty"`
	// Thinking is off, minimal, low, medium, high or xhigh: the run's
	// thinking level, over the session's (inbound.Message.Thinking).
	Thinking string `json:"thinking,omitempty"`
	// Timeout (seconds, >= 0) tightens agents.defaults.timeoutSeconds for
	// the run.
	Timeout           *int64 `json:"timeout,omitempty"`
	ExtraSystemPrompt string `json:"extraSystemPrompt,omitempty"` // appended to the run's system prompt
	// Label and SpawnedBy are written on the session's entry (nil leaves
	// them, "" clears them); Label is at most 200 bytes.
	Label     *string `json:"label,omitempty"`
	SpawnedBy *string `json:"spawnedBy,omitempty"`
	// IdempotencyKey (at most 256 bytes) makes a retried call answer the
	// same RunID without a second run; empty: a random one.
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
}

// ChatSendParams are the params of chat.send: agent without delivery.
type ChatSendParams struct {
	Message        string `json:"message,omitempty"` // required, at most 128 KiB
	SessionKey     string `json:"sessionKey,omitempty"`
	SessionID      string `json:"sessionId,omitempty"`
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
}

// AgentAccepted is the result of agent and chat.send: the run that will
// answer the message. Follow it with agent.wait or agent.events.
type AgentAccepted struct {
	RunID      string `json:"runId"`
	Status     string `json:"status"`     // always "accepted"
	AcceptedAt int64  `json:"acceptedAt"` // epoch ms
	SessionKey string `json:"sessionKey"` // the resolved session, as callers see keys
}

// WaitParams are the params of agent.wait.
type WaitParams struct {
	RunID string `json:"runId"` // required
	// TimeoutMs is how long to wait, in milliseconds (>= 0): nil waits
	// 30 s, 0 checks once; every wait is cut to MaxWait.
	TimeoutMs *int64 `json:"timeoutMs,omitempty"`
}

// WaitResult is the result of agent.wait.
type WaitResult struct {
	RunID string `json:"runId"`
	// Status is ok, error (also for an aborted run) or timeout: the run
	// hit its own time limit (EndedAt set) or this wait ended first
	// (EndedAt 0; call again).
	Status    string `json:"status"`
	StartedAt int64  `json:"startedAt,omitempty"` // epoch ms; 0 while the run is queued
	EndedAt   int64  `json:"endedAt,omitempty"`   // epoch ms; 0 while it runs
	Error     string `json:"error,omitempty"`     // why it failed ("aborted" when it was)
}

// waitResultOf is the WaitResult of runID for res.
func waitResultOf(runID string, res run.Result) WaitResult {
	return WaitResult{RunID: runID, Status: res.Status, StartedAt: res.StartedAt, EndedAt: res.EndedAt, Error: res.Error}
}

// EventsParams are the params of agent.events.
type EventsParams struct {
	RunID    string `json:"runId"`              // required
	AfterSeq int64  `json:"afterSeq,omitempty"` // events after this seq (>= 0)
	Limit    int    `json:"limit,omitempty"`    // at most this many (>= 0); 0: run.DefaultLimit, capped at run.MaxLimit
}

// EventsResult is the result of agent.events. NextSeq is the seq of the
// last event returned (AfterSeq when none): pass it as afterSeq to follow
// the run on.
type EventsResult struct {
	Events  []Event `json:"events"` // oldest first; [] when none
	NextSeq int64   `json:"nextSeq"`
	RunID   string  `json:"runId"`
}

// Event is one event of a run, as the runner stored it: {runId, seq,
// stream (lifecycle, assistant, tool, compaction), ts (epoch ms), data}.
type Event = run.Event

// ListParams are the params of sessions.list.
type ListParams struct {
	AgentID string   `json:"agentId,omitempty"` // default: the configured default agent
	Kinds   []string `json:"kinds,omitempty"`   // keep these Row.Kind values only
	// Limit is at most this many rows (>= 1): nil means
	// session.DefaultListLimit; capped at session.MaxListLimit.
	Limit *int `json:"limit,omitempty"`
	// ActiveMinutes (>= 0) keeps the sessions updated in the last N
	// minutes; nil or 0: all.
	ActiveMinutes *int64 `json:"activeMinutes,omitempty"`
	// MessageLimit (0-20) adds each row's last N user and assistant
	// messages.
	MessageLimit   *int `json:"messageLimit,omitempty"`
	IncludeGlobal  bool `json:"includeGlobal,omitempty"`  // add the reserved session "global" when it exists
	IncludeUnknown bool `json:"includeUnknown,omitempty"` // add the reserved session "unknown" when it exists
}

// ListResult is the result of sessions.list: rows newest first.
type ListResult struct {
	Sessions []Row `json:"sessions"`
}

// Row is one session as sessions.list and status show it: the seed's
// sessions_list row. Token counts are the entry's (the store is the
// source of truth); transcripts are never parsed for them.
type Row struct {
	Key         string `json:"key"`     // as callers see it (session.Display)
	Kind        string `json:"kind"`    // main, group, cron, hook, node or other
	Channel     string `json:"channel"` // a group's channel, a direct chat's last one, "internal" or "unknown"
	DisplayName string `json:"displayName,omitempty"`
	UpdatedAt   int64  `json:"updatedAt"` // epoch ms of the last change
	SessionID   string `json:"sessionId"`
	// Model is provider/model: the session's override, else the model
	// that answered last; "" when neither is known.
	Model          string `json:"model,omitempty"`
	ContextTokens  int64  `json:"contextTokens"` // the model's context window, in tokens
	TotalTokens    int64  `json:"totalTokens"`   // tokens in the context after the last turn
	InputTokens    int64  `json:"inputTokens"`   // summed over the session's turns
	OutputTokens   int64  `json:"outputTokens"`  // summed over the session's turns
	ThinkingLevel  string `json:"thinkingLevel,omitempty"`
	VerboseLevel   string `json:"verboseLevel,omitempty"`
	SystemSent     bool   `json:"systemSent"`
	AbortedLastRun bool   `json:"abortedLastRun"`
	// SendPolicy is the entry's override, allow or deny; "" inherits the
	// config.
	SendPolicy      string           `json:"sendPolicy,omitempty"`
	LastChannel     string           `json:"lastChannel,omitempty"`
	LastTo          string           `json:"lastTo,omitempty"`
	DeliveryContext *DeliveryContext `json:"deliveryContext,omitempty"`
	TranscriptPath  string           `json:"transcriptPath"` // the transcript's logical path
	Label           string           `json:"label,omitempty"`
	// Messages are the transcript's last messages (transcript.Message
	// JSON), only with messageLimit > 0 ([] when none).
	Messages []json.RawMessage `json:"messages,omitzero"`
}

// DeliveryContext is where a session's replies go.
type DeliveryContext struct {
	Channel   string `json:"channel,omitempty"`
	To        string `json:"to,omitempty"`
	AccountID string `json:"accountId,omitempty"`
}

// HistoryParams are the params of chat.history.
type HistoryParams struct {
	// SessionKey is the session (default "main"); a sessionId given here
	// is looked up too.
	SessionKey string `json:"sessionKey,omitempty"`
	SessionID  string `json:"sessionId,omitempty"` // the session by id (not with SessionKey)
	// Limit (>= 1) keeps the last messages: nil means 50, capped at 500.
	Limit        *int `json:"limit,omitempty"`
	IncludeTools bool `json:"includeTools,omitempty"` // also the toolResult messages
}

// HistoryResult is the result of chat.history.
type HistoryResult struct {
	// Messages are transcript.Message JSON (role, content blocks,
	// timestamp, usage, ...), oldest first; [] when none.
	Messages   []json.RawMessage `json:"messages"`
	SessionID  string            `json:"sessionId"`
	SessionKey string            `json:"sessionKey"`
}

// ResolveParams are the params of sessions.resolve: SessionID or Label.
type ResolveParams struct {
	SessionID string `json:"sessionId,omitempty"`
	Label     string `json:"label,omitempty"`   // matched trimmed and case-insensitively
	AgentID   string `json:"agentId,omitempty"` // whose sessions Label is looked for in
}

// ResolveResult is the result of sessions.resolve.
type ResolveResult struct {
	Key       string `json:"key"`
	SessionID string `json:"sessionId"`
}

// PatchParams are the params of sessions.patch. Every field but Key is a
// pointer: nil leaves the entry's field as it is, "" clears it.
type PatchParams struct {
	Key            string  `json:"key"`                      // required
	Label          *string `json:"label,omitempty"`          // at most 200 bytes
	SendPolicy     *string `json:"sendPolicy,omitempty"`     // allow, deny or inherit
	Model          *string `json:"model,omitempty"`          // an alias or provider/model
	ThinkingLevel  *string `json:"thinkingLevel,omitempty"`  // off, minimal, low, medium, high, xhigh
	VerboseLevel   *string `json:"verboseLevel,omitempty"`   // off, on, full
	ReasoningLevel *string `json:"reasoningLevel,omitempty"` // off, on, stream
	QueueMode      *string `json:"queueMode,omitempty"`      // one of config.QueueModes
}

// PatchResult is the result of sessions.patch: the entry as written.
type PatchResult struct {
	Entry session.Entry `json:"entry"`
	Key   string        `json:"key"`
}

// DeleteParams are the params of sessions.delete.
type DeleteParams struct {
	Key              string `json:"key"`                        // required
	DeleteTranscript bool   `json:"deleteTranscript,omitempty"` // also delete the transcript
}

// DeleteResult is the result of sessions.delete.
type DeleteResult struct {
	Deleted           bool   `json:"deleted"` // always true: deleting is idempotent
	Key               string `json:"key"`
	TranscriptDeleted string `json:"transcriptDeleted,omitempty"` // the transcript path deleted, with deleteTranscript
}

// StatusResult is the result of status (which takes no params).
type StatusResult struct {
	ConfigVersion string `json:"configVersion"` // of the stored zero.json; "" when none is stored
	OK            bool   `json:"ok"`            // always true
	Sessions      []Row  `json:"sessions"`      // the default agent's newest sessions
	Store         string `json:"store,omitempty"`
	// DeadLetters are the dead-letter queues' depths (the work lane's,
	// then the sub-agent lane's), when the gateway is given them.
	DeadLetters []DeadLetterDepth `json:"deadLetters,omitempty"`
}

// DeadLetterDepth is one dead-letter queue's approximate size.
type DeadLetterDepth struct {
	Name     string `json:"name"`     // "work" or "subagent"
	Visible  int    `json:"visible"`  // messages waiting (ApproximateNumberOfMessages)
	InFlight int    `json:"inFlight"` // held by a look or a redrive
	// Error is why the depth could not be read (the counts are then 0);
	// status still answers.
	Error string `json:"error,omitempty"`
}

// SessionRunsParams are the params of sessions.runs.
type SessionRunsParams struct {
	SessionKey string `json:"sessionKey,omitempty"` // default "main"
	SessionID  string `json:"sessionId,omitempty"`  // the session by id (not with SessionKey)
	// Limit is how many of the newest turns to look at: default 10, at
	// most 50 (a turn is normally one run).
	Limit *int `json:"limit,omitempty"`
}

// SessionRunsResult is the result of sessions.runs.
type SessionRunsResult struct {
	SessionKey string       `json:"sessionKey"`
	SessionID  string       `json:"sessionId"`
	Runs       []SessionRun `json:"runs"` // newest first; [] when none
}

// RunStatusUnknown is a SessionRun's status when its run record is gone
// (expired) or was never written.
const RunStatusUnknown = "unknown"

// SessionRun is one run of a session: its record's state and the turn
// (transcript part) it wrote. Times are Unix milliseconds.
type SessionRun struct {
	RunID     string `json:"runId"`
	MessageID string `json:"messageId"` // the inbound message that started it
	Seq       int64  `json:"seq"`       // its transcript part
	// Status is running, ok, error, timeout, aborted or unknown.
	Status     string    `json:"status"`
	StartedAt  int64     `json:"startedAt,omitempty"`
	EndedAt    int64     `json:"endedAt,omitempty"`
	DurationMs int64     `json:"durationMs,omitempty"` // EndedAt - StartedAt; absent until it ends
	Model      string    `json:"model,omitempty"`
	Usage      run.Usage `json:"usage,omitzero"`
	Error      string    `json:"error,omitempty"`
	// ModelCostUSD prices Usage at the model's price in models.providers
	// (absent when it has none); InfraCostUSD is the run record's
	// infrastructure cost (absent when not measured).
	ModelCostUSD *float64 `json:"modelCostUsd,omitempty"`
	InfraCostUSD *float64 `json:"infraCostUsd,omitempty"`
}

// ConfigGetResult is the result of config.get (which takes no params).
type ConfigGetResult struct {
	Raw     string `json:"raw"`     // the stored JSON5 document as written; "{}" when none
	Version string `json:"version"` // opaque, changes on every write; "" when none
	// Warnings are config.Parse's; a document that does not validate has
	// its error first, prefixed "invalid: ".
	Warnings []string `json:"warnings"`
}

// ConfigPatchParams are the params of config.patch: exactly one of Raw
// and Patch.
type ConfigPatchParams struct {
	Raw   *string         `json:"raw,omitempty"`   // a whole new JSON5 document
	Patch json.RawMessage `json:"patch,omitempty"` // a JSON object applied as an RFC 7386 merge patch
}

// ConfigPatchResult is the result of config.patch.
type ConfigPatchResult struct {
	Version  string   `json:"version"`  // of the stored document
	Warnings []string `json:"warnings"` // config.Parse's
}

// ConfigSchemaResult is the result of config.schema (which takes no
// params).
type ConfigSchemaResult struct {
	Keys []SchemaKey `json:"keys"`
}

// SchemaKey is one key ZERO reads from zero.json. In Path, "<name>"
// stands for any key of a map and "[]" for a list's items.
type SchemaKey struct {
	Path        string `json:"path"`
	Type        string `json:"type"`
	Default     any    `json:"default,omitempty"`
	Required    bool   `json:"required,omitempty"`
	Description string `json:"description"`
}

// OutboxListParams are the params of outbox.list.
type OutboxListParams struct {
	State string `json:"state,omitempty"` // pending | sent | dead; "" every state
	Limit *int   `json:"limit,omitempty"` // default DefaultOutboxLimit, at most MaxOutboxLimit
}

// OutboxListResult is the result of outbox.list: the count of items in
// each state (whatever state was asked for) and the newest items asked
// for.
type OutboxListResult struct {
	Counts OutboxCounts `json:"counts"`
	Items  []OutboxRow  `json:"items"`
}

// OutboxCounts counts outbox items by state. Sent items expire from the
// store after a while, so sent counts the recent ones.
type OutboxCounts struct {
	Pending int `json:"pending"`
	Sent    int `json:"sent"`
	Dead    int `json:"dead"`
}

// OutboxRow is one outbox item (outbox.Item) as listed.
type OutboxRow struct {
	ID         string `json:"id"`
	Kind       string `json:"kind"` // a2a | subagent
	SessionKey string `json:"sessionKey"`
	Channel    string `json:"channel"`
	To         string `json:"to"`
	AccountID  string `json:"accountId,omitempty"`
	ThreadID   string `json:"threadId,omitempty"`
	// Text is the announce, cut to OutboxTextChars characters (and "…")
	// when longer.
	Text      string `json:"text"`
	State     string `json:"state"`
	Sent      int    `json:"sent"`              // rendered messages delivered
	Attempts  int    `json:"attempts"`          // delivery attempts made (of the last run of receives)
	Retries   int    `json:"retries,omitempty"` // times re-queued from dead by outbox.retry
	LastError string `json:"lastError,omitempty"`
	CreatedAt int64  `json:"createdAt"`
	UpdatedAt int64  `json:"updatedAt"`
}

// OutboxRetryParams are the params of outbox.retry.
type OutboxRetryParams struct {
	ID string `json:"id"` // the outbox item to re-queue: dead, or pending (re-queued again)
}

// OutboxRetryResult is the result of outbox.retry: the item, now
// pending, and the id of the delivery message queued for it.
type OutboxRetryResult struct {
	Item      OutboxRow `json:"item"`
	MessageID string    `json:"messageId"`
}
