package session

import (
	"encoding/json"
	"strings"
)

// ChannelInternal is the channel rows give cron, hook and node sessions
// (inbound.Internal).
const ChannelInternal = "internal"

// Row is one session as the session tools list it, in the row format of
// the session tools page (sessions_list); the gateway's sessions.list
// builds its rows from it. Build it with RowOf, so a row's key, kind,
// channel, model and transcriptPath are computed in one place.
type Row struct {
	Key         string `json:"key"`     // as callers see it: see RowOf and ShownKey
	Kind        string `json:"kind"`    // main, group, cron, hook, node or other
	Channel     string `json:"channel"` // see RowChannel
	DisplayName string `json:"displayName,omitempty"`
	UpdatedAt   int64  `json:"updatedAt"` // epoch ms
	SessionID   string `json:"sessionId"`
	// Model is provider/model: the session's override, else the model that
	// answered last; "" when neither is known.
	Model          string `json:"model,omitempty"`
	ContextTokens  int64  `json:"contextTokens"`
	TotalTokens    int64  `json:"totalTokens"`
	ThinkingLevel  string `json:"thinkingLevel,omitempty"`
	VerboseLevel   string `json:"verboseLevel,omitempty"`
	SystemSent     bool   `json:"systemSent"`
	AbortedLastRun bool   `json:"abortedLastRun"`
	// SendPolicy is the entry's override (allow or deny); "" inherits.
	SendPolicy      string       `json:"sendPolicy,omitempty"`
	LastChannel     string       `json:"lastChannel,omitempty"`
	LastTo          string       `json:"lastTo,omitempty"`
	DeliveryContext *RowDelivery `json:"deliveryContext,omitempty"`
	TranscriptPath  string       `json:"transcriptPath"` // TranscriptPath
	// Messages are the session's last messages (transcript message
	// objects), only when asked for ([] when it has none).
	Messages []json.RawMessage `json:"messages,omitzero"`
}

// RowDelivery is a row's normalised delivery context.
type RowDelivery struct {
	Channel   string `json:"channel,omitempty"`
	To        string `json:"to,omitempty"`
	AccountID string `json:"accountId,omitempty"`
}

// RowOf builds the row of the entry e stored under key. Its Key is
// Display(key): "global" shows as "main" under global scope. Pure.
func RowOf(key string, e Entry, cfg KeyConfig) Row {
	kind := Kind(key, cfg)
	r := Row{
		Key: Display(key, cfg), Kind: kind, Channel: RowChannel(kind, e), DisplayName: e.DisplayName,
		UpdatedAt: e.UpdatedAt, SessionID: e.SessionID, Model: ModelOf(e),
		ContextTokens: e.ContextTokens, TotalTokens: e.TotalTokens,
		ThinkingLevel: e.ThinkingLevel, VerboseLevel: e.VerboseLevel, SystemSent: e.SystemSent, AbortedLastRun: e.AbortedLastRun,
		SendPolicy: e.SendPolicy, LastChannel: e.LastChannel, LastTo: e.LastTo,
		TranscriptPath: TranscriptPath(key, e),
	}
	if d := e.DeliveryContext; d.Channel != "" || d.To != "" || d.AccountID != "" {
		r.DeliveryContext = &RowDelivery{Channel: d.Channel, To: d.To, AccountID: d.AccountID}
	}
	return r
}

// RowChannel is a row's channel, by the session tools page's rule: a
// group's own channel (the entry's), a direct chat's last channel,
// ChannelInternal for cron, hook and node sessions, and "unknown" when
// absent.
func RowChannel(kind string, e Entry) string {
	var ch string
	switch kind {
	case KindGroup:
		ch = e.Channel
	case KindCron, KindHook, KindNode:
		ch = ChannelInternal
	default:
		ch = e.LastChannel
	}
	if ch == "" {
		return KeyUnknown
	}
	return ch
}

// ModelOf is the model a session shows, provider/model: its override,
// else the model that answered last; "" when neither is known.
func ModelOf(e Entry) string {
	switch {
	case e.ModelOverride != "":
		return e.ProviderOverride + "/" + e.ModelOverride
	case e.Model != "":
		return e.ModelProvider + "/" + e.Model
	}
	return ""
}

// ShownKey is key as the session tools show it to a session of agent
// agentID: "main" for that agent's main session (under global scope, for
// "global"), which is also the key those tools resolve "main" to; every
// other key as it is. Another agent's main session keeps its full key.
func ShownKey(agentID, key string, cfg KeyConfig) string {
	if normalizeID(key) == Canonical(agentID, DefaultMainKey, "", cfg) {
		return DefaultMainKey
	}
	return Display(key, cfg)
}

// IsSubagent reports whether key is a sub-agent session's,
// agent:<agentId>:subagent:<id> (see SubagentKey).
func IsSubagent(key string) bool {
	return strings.HasPrefix(Stripped(normalizeID(key)), "subagent:") && strings.HasPrefix(normalizeID(key), "agent:")
}
