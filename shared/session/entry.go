package session

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
)

// Entry is what the store keeps per session key. JSON names follow the
// upstream store format so sessions can be imported and exported; ZERO-only
// fields are additions, never renames.
type Entry struct {
	SessionID    string `json:"sessionId"`
	UpdatedAt    int64  `json:"updatedAt"` // epoch ms; never moves backwards
	DisplayName  string `json:"displayName,omitempty"`
	Channel      string `json:"channel,omitempty"`
	ChatType     string `json:"chatType,omitempty"`
	GroupID      string `json:"groupId,omitempty"`
	Subject      string `json:"subject,omitempty"`
	GroupChannel string `json:"groupChannel,omitempty"`
	Space        string `json:"space,omitempty"`
	Room         string `json:"room,omitempty"`

	Origin          Origin          `json:"origin,omitzero"`
	DeliveryContext DeliveryContext `json:"deliveryContext,omitzero"`
	LastChannel     string          `json:"lastChannel,omitempty"`
	LastTo          string          `json:"lastTo,omitempty"`
	LastAccountID   string          `json:"lastAccountId,omitempty"`
	LastThreadID    string          `json:"lastThreadId,omitempty"`

	Model         string `json:"model,omitempty"`
	ModelProvider string `json:"modelProvider,omitempty"`
	InputTokens   int64  `json:"inputTokens,omitempty"`
	OutputTokens  int64  `json:"outputTokens,omitempty"`
	TotalTokens   int64  `json:"totalTokens,omitempty"`
	ContextTokens int64  `json:"contextTokens,omitempty"`
	// The cost of the session's turns (ZERO additions, kept across resets
	// like the token totals): the last turn's model tokens, and the
	// infrastructure cost (AWS calls and Lambda time at list prices, USD)
	// of the last turn and of every turn. /status reads them.
	LastInputTokens  int64   `json:"lastInputTokens,omitempty"`
	LastOutputTokens int64   `json:"lastOutputTokens,omitempty"`
	InfraCostUSD     float64 `json:"infraCostUsd,omitempty"`
	LastInfraCostUSD float64 `json:"lastInfraCostUsd,omitempty"`

	// Per-session choices. A reset clears them (see Entry.Reset).
	ModelOverride    string `json:"modelOverride,omitempty"`
	ProviderOverride string `json:"providerOverride,omitempty"`
	ThinkingLevel    string `json:"thinkingLevel,omitempty"`
	VerboseLevel     string `json:"verboseLevel,omitempty"`
	ReasoningLevel   string `json:"reasoningLevel,omitempty"`
	SendPolicy       string `json:"sendPolicy,omitempty"` // "allow" | "deny" | "" (inherit the config)
	QueueMode        string `json:"queueMode,omitempty"`  // collect | followup | steer | interrupt | "" (the config's)

	SystemSent      bool   `json:"systemSent,omitempty"`
	AbortedLastRun  bool   `json:"abortedLastRun,omitempty"`
	Label           string `json:"label,omitempty"`
	SpawnedBy       string `json:"spawnedBy,omitempty"`
	CompactionCount int64  `json:"compactionCount,omitempty"`

	// ZERO additions.
	AgentID string `json:"agentId,omitempty"`
	// TranscriptSeq is the number of transcript parts written so far; the
	// next turn writes part TranscriptSeq+1.
	TranscriptSeq int64 `json:"transcriptSeq,omitempty"`
	// LastEntryID is the id of the newest transcript line, the parentId of
	// the next one.
	LastEntryID string `json:"lastEntryId,omitempty"`
	// ArchiveAt (epoch ms; 0: never) is when a sub-agent session is
	// archived: its last turn's commit plus
	// agents.defaults.subagents.archiveAfterMinutes. Stores treat an entry
	// past it as absent (shared/dynamo writes it as the item's ttl).
	ArchiveAt int64 `json:"archiveAt,omitempty"`
	// Version increases by one on every write; stores use it for
	// compare-and-set so concurrent writers never lose a field.
	Version int64 `json:"version"`
	// Extra holds the fields of an imported upstream entry that ZERO does
	// not know, by their JSON names, so that `zero export` writes them back
	// unchanged (shared/upstream). Stores keep it as it is.
	Extra map[string]json.RawMessage `json:"upstreamExtra,omitempty"`
}

// Origin records where a session came from, for UIs to explain it.
type Origin struct {
	Label     string `json:"label,omitempty"`
	Provider  string `json:"provider,omitempty"`
	From      string `json:"from,omitempty"`
	To        string `json:"to,omitempty"`
	AccountID string `json:"accountId,omitempty"`
	ThreadID  string `json:"threadId,omitempty"`
}

// Merge returns o updated field by field with the non-empty values of newer.
func (o Origin) Merge(newer Origin) Origin {
	pick := func(old, new string) string {
		if new != "" {
			return new
		}
		return old
	}
	return Origin{
		Label:     pick(o.Label, newer.Label),
		Provider:  pick(o.Provider, newer.Provider),
		From:      pick(o.From, newer.From),
		To:        pick(o.To, newer.To),
		AccountID: pick(o.AccountID, newer.AccountID),
		ThreadID:  pick(o.ThreadID, newer.ThreadID),
	}
}

// DeliveryContext is where replies for the session go.
type DeliveryContext struct {
	Channel   string `json:"channel,omitempty"`
	To        string `json:"to,omitempty"`
	AccountID string `json:"accountId,omitempty"`
	ThreadID  string `json:"threadId,omitempty"`
	// ReplyToken and ReplyTokenAt (epoch ms) are the reply handle of the
	// message being answered (inbound.Message.ReplyToken) and when it was
	// issued. Only a turn's record carries them, never the entry: the
	// channel's sender decides whether the handle is still good.
	ReplyToken   string `json:"replyToken,omitempty"`
	ReplyTokenAt int64  `json:"replyTokenAt,omitempty"`
}

// SetDelivery points replies at d and keeps the last* fields in step.
func (e *Entry) SetDelivery(d DeliveryContext) {
	e.DeliveryContext = d
	e.LastChannel, e.LastTo, e.LastAccountID, e.LastThreadID = d.Channel, d.To, d.AccountID, d.ThreadID
}

// Touch moves UpdatedAt to now unless it is already later.
func (e *Entry) Touch(nowMS int64) {
	if nowMS > e.UpdatedAt {
		e.UpdatedAt = nowMS
	}
}

// NewID returns the sessionId for a session started by the inbound message
// seed: a UUID (version 4 layout) derived from it, so every retry of the
// same message names the same session.
func NewID(seed string) string {
	sum := sha256.Sum256([]byte("zero-session:" + seed))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Reset returns the entry a reset starts: a new sessionId with an empty
// transcript. It clears the per-session choices (model and provider
// overrides, thinking/verbose/reasoning levels, the sendPolicy override)
// and the display and group fields (the next message fills them again),
// and carries over what describes the session rather than the
// conversation: label, spawnedBy, the agent, origin and delivery routing,
// usage counters and the model that last answered, as the upstream store
// does. UpdatedAt and Version carry over (the store's version check and
// the clock rule still apply).
func (e Entry) Reset(sessionID string) Entry {
	return Entry{
		SessionID: sessionID, UpdatedAt: e.UpdatedAt, Version: e.Version,
		AgentID: e.AgentID, Label: e.Label, SpawnedBy: e.SpawnedBy,
		Origin: e.Origin, DeliveryContext: e.DeliveryContext,
		LastChannel: e.LastChannel, LastTo: e.LastTo, LastAccountID: e.LastAccountID, LastThreadID: e.LastThreadID,
		Model: e.Model, ModelProvider: e.ModelProvider,
		InputTokens: e.InputTokens, OutputTokens: e.OutputTokens, TotalTokens: e.TotalTokens, ContextTokens: e.ContextTokens,
		LastInputTokens: e.LastInputTokens, LastOutputTokens: e.LastOutputTokens, InfraCostUSD: e.InfraCostUSD, LastInfraCostUSD: e.LastInfraCostUSD,
	}
}
