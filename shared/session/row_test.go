package session_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/transcript"
	"github.com/zero-gateway/zero/shared/transcript/transcripttest"
)

// TestRowOf: every field of a row, and the key, kind, channel and
// transcriptPath of canonical and legacy keys.
func TestRowOf(t *testing.T) {
	full := session.Entry{
		SessionID: "s-1", UpdatedAt: 1700000000000, DisplayName: "Team", Channel: "telegram", ChatType: "group",
		Model: "gpt-4o", ModelProvider: "openai", ContextTokens: 128000, TotalTokens: 900, InputTokens: 5, OutputTokens: 6,
		ThinkingLevel: "high", VerboseLevel: "on", SystemSent: true, AbortedLastRun: true, SendPolicy: "deny",
		LastChannel: "telegram", LastTo: "-100", Label: "not in rows", AgentID: "main",
		DeliveryContext: session.DeliveryContext{Channel: "telegram", To: "-100", AccountID: "bot", ThreadID: "3"},
	}
	global := session.KeyConfig{Scope: session.ScopeGlobal}
	tests := []struct {
		name  string
		key   string
		entry session.Entry
		cfg   session.KeyConfig
		want  session.Row
	}{
		{name: "every field of a group", key: "agent:main:telegram:group:-100", entry: full, want: session.Row{
			Key: "agent:main:telegram:group:-100", Kind: "group", Channel: "telegram", DisplayName: "Team",
			UpdatedAt: 1700000000000, SessionID: "s-1", Model: "openai/gpt-4o", ContextTokens: 128000, TotalTokens: 900,
			ThinkingLevel: "high", VerboseLevel: "on", SystemSent: true, AbortedLastRun: true, SendPolicy: "deny",
			LastChannel: "telegram", LastTo: "-100", DeliveryContext: &session.RowDelivery{Channel: "telegram", To: "-100", AccountID: "bot"},
			TranscriptPath: "agents/main/sessions/s-1.jsonl",
		}},
		{name: "the override is the model", key: "agent:main:main",
			entry: session.Entry{SessionID: "s-2", Model: "gpt-4o", ModelProvider: "openai", ModelOverride: "claude", ProviderOverride: "anthropic", LastChannel: "telegram"},
			want:  session.Row{Key: "agent:main:main", Kind: "main", Channel: "telegram", LastChannel: "telegram", SessionID: "s-2", Model: "anthropic/claude", TranscriptPath: "agents/main/sessions/s-2.jsonl"}},
		{name: "a direct chat without a last channel", key: "agent:main:telegram:dm:7", entry: session.Entry{SessionID: "s-3"},
			want: session.Row{Key: "agent:main:telegram:dm:7", Kind: "other", Channel: "unknown", SessionID: "s-3", TranscriptPath: "agents/main/sessions/s-3.jsonl"}},
		{name: "a forum topic", key: "agent:main:telegram:group:-100:topic:9", entry: session.Entry{SessionID: "s-4", Channel: "telegram"},
			want: session.Row{Key: "agent:main:telegram:group:-100:topic:9", Kind: "group", Channel: "telegram", SessionID: "s-4", TranscriptPath: "agents/main/sessions/s-4-topic-9.jsonl"}},
		{name: "a legacy group key of agent work", key: "group:-5", entry: session.Entry{SessionID: "s-5", Channel: "discord", LastChannel: "telegram", AgentID: "work"},
			want: session.Row{Key: "group:-5", Kind: "group", Channel: "discord", LastChannel: "telegram", SessionID: "s-5", TranscriptPath: "agents/work/sessions/s-5.jsonl"}},
		{name: "a group without a channel", key: "agent:main:telegram:group:-6", entry: session.Entry{SessionID: "s-6", LastChannel: "telegram"},
			want: session.Row{Key: "agent:main:telegram:group:-6", Kind: "group", Channel: "unknown", LastChannel: "telegram", SessionID: "s-6", TranscriptPath: "agents/main/sessions/s-6.jsonl"}},
		{name: "a legacy cron key", key: "cron:nightly", entry: session.Entry{SessionID: "s-7", LastChannel: "telegram"},
			want: session.Row{Key: "cron:nightly", Kind: "cron", Channel: "internal", LastChannel: "telegram", SessionID: "s-7", TranscriptPath: "agents/main/sessions/s-7.jsonl"}},
		{name: "an agent-prefixed cron key", key: "agent:ops:cron:nightly", entry: session.Entry{SessionID: "s-8"},
			want: session.Row{Key: "agent:ops:cron:nightly", Kind: "cron", Channel: "internal", SessionID: "s-8", TranscriptPath: "agents/ops/sessions/s-8.jsonl"}},
		{name: "a hook", key: "hook:abc", entry: session.Entry{SessionID: "s-9"},
			want: session.Row{Key: "hook:abc", Kind: "hook", Channel: "internal", SessionID: "s-9", TranscriptPath: "agents/main/sessions/s-9.jsonl"}},
		{name: "a node", key: "node-pi", entry: session.Entry{SessionID: "s-10"},
			want: session.Row{Key: "node-pi", Kind: "node", Channel: "internal", SessionID: "s-10", TranscriptPath: "agents/main/sessions/s-10.jsonl"}},
		{name: "a sub-agent", key: "agent:work:subagent:u1", entry: session.Entry{SessionID: "s-11", SpawnedBy: "agent:main:main"},
			want: session.Row{Key: "agent:work:subagent:u1", Kind: "other", Channel: "unknown", SessionID: "s-11", TranscriptPath: "agents/work/sessions/s-11.jsonl"}},
		{name: "global under global scope is main", key: "global", cfg: global, entry: session.Entry{SessionID: "s-12", LastChannel: "telegram", AgentID: "main"},
			want: session.Row{Key: "main", Kind: "main", Channel: "telegram", LastChannel: "telegram", SessionID: "s-12", TranscriptPath: "agents/main/sessions/s-12.jsonl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, session.RowOf(tt.key, tt.entry, tt.cfg)); diff != "" {
				t.Errorf("RowOf(%q) (-want +got):\n%s", tt.key, diff)
			}
		})
	}
}

// TestRowJSON: the row's wire names are the session tools page's; empty
// optional fields and messages are left out, an empty messages list is not.
func TestRowJSON(t *testing.T) {
	r := session.RowOf("cron:nightly", session.Entry{SessionID: "s-1", UpdatedAt: 5}, session.KeyConfig{})
	b, _ := json.Marshal(r)
	want := `{"key":"cron:nightly","kind":"cron","channel":"internal","updatedAt":5,"sessionId":"s-1","contextTokens":0,"totalTokens":0,` +
		`"systemSent":false,"abortedLastRun":false,"transcriptPath":"agents/main/sessions/s-1.jsonl"}`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("row JSON (-want +got):\n%s", diff)
	}
	r.Messages = []json.RawMessage{}
	if b, _ := json.Marshal(r); !json.Valid(b) || !strings.Contains(string(b), `"messages":[]`) {
		t.Errorf("row JSON %s; want an empty messages list", b)
	}
}

// TestChannelInternalIsInbound: the rows' internal channel is the one
// internal runs carry.
func TestChannelInternalIsInbound(t *testing.T) {
	if session.ChannelInternal != inbound.Internal {
		t.Fatalf("session.ChannelInternal %q, inbound.Internal %q", session.ChannelInternal, inbound.Internal)
	}
}

func TestShownKey(t *testing.T) {
	tests := []struct {
		name, agent, key string
		cfg              session.KeyConfig
		want             string
	}{
		{"the caller's main session", "main", "agent:main:main", session.KeyConfig{}, "main"},
		{"under a custom main key", "main", "agent:main:home", session.KeyConfig{MainKey: "home"}, "main"},
		{"another agent's main session keeps its key", "main", "agent:work:main", session.KeyConfig{}, "agent:work:main"},
		{"that agent's own main session", "work", "agent:work:main", session.KeyConfig{}, "main"},
		{"global under global scope", "work", "global", session.KeyConfig{Scope: session.ScopeGlobal}, "main"},
		{"a group", "main", "agent:main:telegram:group:-1", session.KeyConfig{}, "agent:main:telegram:group:-1"},
		{"a legacy cron key", "main", "cron:nightly", session.KeyConfig{}, "cron:nightly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := session.ShownKey(tt.agent, tt.key, tt.cfg); got != tt.want {
				t.Errorf("ShownKey(%q, %q) = %q; want %q", tt.agent, tt.key, got, tt.want)
			}
		})
	}
}

// TestIsSubagent: only agent:<agentId>:subagent:<id> is a sub-agent
// session's key (it also picks the sub-agent lane, ingest.Lanes).
func TestIsSubagent(t *testing.T) {
	tests := []struct {
		name string
		key  string
		want bool
	}{
		{"sub-agent key", "agent:main:subagent:u1", true},
		{"SubagentKey's own output", session.SubagentKey("Research Bot", "X1"), true},
		{"not lower-cased", "Agent:Work:SubAgent:U2", true},
		{"main session", "agent:main:main", false},
		{"no agent prefix", "subagent:u1", false},
		{"subagent as a peer id", "agent:main:telegram:dm:subagent", false},
		{"cron key", "cron:subagent", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := session.IsSubagent(tt.key); got != tt.want {
				t.Errorf("IsSubagent(%q) = %v; want %v", tt.key, got, tt.want)
			}
		})
	}
}

// TestLastMessages: the last n user/assistant messages over parts, tool
// results only when asked for, compaction lines never, a missing older
// part ending the history.
func TestLastMessages(t *testing.T) {
	log := transcript.NewLog(transcripttest.NewMemBucket())
	const path = "agents/main/sessions/s-1.jsonl"
	write := func(seq int64, lines ...any) {
		if err := log.WritePart(context.Background(), path, seq, lines); err != nil {
			t.Fatal(err)
		}
	}
	write(1, line("user", "a"), line("assistant", "b"), line("toolResult", "r1"), line("assistant", "c"))
	write(2, transcript.Line{Type: "compaction", ID: "x", Summary: "earlier"}, line("user", "d"), line("assistant", "e"))
	tests := []struct {
		name         string
		parts        int64
		includeTools bool
		n            int
		want         []string
	}{
		{name: "the last three", parts: 2, n: 3, want: []string{"assistant:c", "user:d", "assistant:e"}},
		{name: "tool results when asked for", parts: 2, n: 4, includeTools: true, want: []string{"toolResult:r1", "assistant:c", "user:d", "assistant:e"}},
		{name: "more than there are", parts: 2, n: 50, want: []string{"user:a", "assistant:b", "assistant:c", "user:d", "assistant:e"}},
		{name: "no parts", parts: 0, n: 5, want: []string{}},
		{name: "a part deleted by hand ends the history", parts: 4, n: 50, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, err := session.LastMessages(context.Background(), log, path, tt.parts, tt.includeTools, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, raw := range msgs {
				var m transcript.Message
				if err := json.Unmarshal(raw, &m); err != nil {
					t.Fatal(err)
				}
				got = append(got, m.Role+":"+m.Text())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
}

func line(role, text string) transcript.Line {
	return transcript.Line{Type: "message", ID: role + text, Message: &transcript.Message{Role: role, Content: []transcript.Content{{Type: "text", Text: text}}}}
}
