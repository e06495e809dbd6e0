package sessions_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/sessions"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
)

// historyOut is sessions_history's result.
type historyOut struct {
	SessionKey string            `json:"sessionKey"`
	SessionID  string            `json:"sessionId"`
	Messages   []json.RawMessage `json:"messages"`
	Truncated  bool              `json:"truncated"`
}

// TestSessionsHistory: by key (as listed, "main", legacy) or sessionId;
// limit and includeTools; unknown ids and reserved keys are errors.
func TestSessionsHistory(t *testing.T) {
	all := []string{"user:a", "assistant:b", "user:c", "assistant:d"}
	tests := []struct {
		name    string
		args    string
		wantKey string
		want    []string
		wantErr string
	}{
		{name: "by key, tool results left out", args: `{"sessionKey": "` + groupKey + `"}`, wantKey: groupKey, want: all},
		{name: "includeTools", args: `{"sessionKey": "` + groupKey + `", "includeTools": true}`, wantKey: groupKey,
			want: []string{"user:a", "assistant:b", "toolResult:r", "user:c", "assistant:d"}},
		{name: "limit keeps the last", args: `{"sessionKey": "` + groupKey + `", "limit": 2}`, wantKey: groupKey, want: all[2:]},
		{name: "limit 0 is clamped to 1", args: `{"sessionKey": "` + groupKey + `", "limit": 0}`, wantKey: groupKey, want: all[3:]},
		{name: "by sessionId", args: `{"sessionKey": "s-g"}`, wantKey: groupKey, want: all},
		{name: "a legacy group key", args: `{"sessionKey": "group:-100"}`, wantKey: groupKey, want: all},
		{name: "main is the caller's main session", args: `{"sessionKey": "main"}`, wantKey: "main", want: []string{"user:hi", "assistant:echo: hi (call 1)"}},
		{name: "another agent's session", args: `{"sessionKey": "` + workKey + `"}`, wantKey: workKey, want: []string{}},
		{name: "an unknown sessionId", args: `{"sessionKey": "0b7e4f4e-0000-4000-8000-000000000000"}`, wantErr: `no session "0b7e4f4e-0000-4000-8000-000000000000"`},
		{name: "an unknown key", args: `{"sessionKey": "agent:main:telegram:group:-999"}`, wantErr: "no session"},
		{name: "unknown is reserved", args: `{"sessionKey": "unknown"}`, wantErr: "reserved"},
		{name: "global is reserved outside global scope", args: `{"sessionKey": "global"}`, wantErr: "reserved"},
		{name: "sessionKey is required", args: `{}`, wantErr: "sessionKey is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, sessionsConfig)
			group := session.Entry{AgentID: "main", SessionID: "s-g", Channel: "telegram", UpdatedAt: r.ago(time.Minute)}
			r.seed(t, groupKey, r.writeTranscript(t, groupKey, group, []string{"user:a", "assistant:b", "toolResult:r"}, []string{"user:c", "assistant:d"}))
			r.seed(t, workKey, session.Entry{AgentID: "work", UpdatedAt: r.ago(time.Minute)})
			r.seed(t, "unknown", session.Entry{AgentID: "main", UpdatedAt: r.ago(time.Minute)})
			r.seed(t, "global", session.Entry{AgentID: "main", UpdatedAt: r.ago(time.Minute)})
			res := tooltest.Call(t, sessions.NewHistoryTool(r.run(t), r.store, r.transcripts()), tt.args)
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Content, tt.wantErr) {
					t.Fatalf("result %+v; want an error containing %q", res, tt.wantErr)
				}
				return
			}
			var got historyOut
			if res.IsError || json.Unmarshal([]byte(res.Content), &got) != nil {
				t.Fatalf("result %+v; want the history", res)
			}
			if diff := cmp.Diff(tt.want, messagesOf(t, got.Messages)); diff != "" || got.SessionKey != tt.wantKey {
				t.Errorf("sessionKey %q (want %q), messages (-want +got):\n%s", got.SessionKey, tt.wantKey, diff)
			}
		})
	}
}

// TestSessionsHistorySandbox: a run that sees only the sessions it
// spawned reads only those; a missing one and one it may not see read
// alike.
func TestSessionsHistorySandbox(t *testing.T) {
	r := newRig(t, sessionsConfig)
	r.visibility = config.VisibilitySpawned
	seedSessions(t, r)
	for key, wantErr := range map[string]string{"agent:work:subagent:u2": "", groupKey: "among those this session spawned",
		"agent:main:subagent:u3": "among those this session spawned", "main": "among those this session spawned",
		"agent:main:telegram:group:-999": "among those this session spawned"} {
		res := tooltest.Call(t, sessions.NewHistoryTool(r.run(t), r.store, r.transcripts()), `{"sessionKey": "`+key+`"}`)
		if res.IsError != (wantErr != "") || !strings.Contains(res.Content, wantErr) {
			t.Errorf("sessions_history(%s) = %+v; want error %q", key, res, wantErr)
		}
	}
}

// agentsOut is agents_list's result.
type agentsOut struct {
	Requester string `json:"requester"`
	AllowAny  bool   `json:"allowAny"`
	Agents    []struct {
		ID         string `json:"id"`
		Name       string `json:"name"`
		Configured bool   `json:"configured"`
	} `json:"agents"`
}

// TestAgentsList: the agent ids sessions_spawn may target, from
// agents.list[].subagents.allowAgents of the caller's agent.
func TestAgentsList(t *testing.T) {
	tests := []struct {
		name   string
		agents string
		want   string // agents_list's JSON
	}{
		{name: "no agents.list: only the default agent", agents: ``,
			want: `{"requester":"main","allowAny":false,"agents":[{"id":"main","configured":false}]}`},
		{name: "no allowAgents: only its own agent", agents: `list: [{id: "main", name: "Main"}, {id: "work"}]`,
			want: `{"requester":"main","allowAny":false,"agents":[{"id":"main","name":"Main","configured":true}]}`},
		{name: "the agents allowAgents names, its own first", agents: `list: [{id: "main", subagents: {allowAgents: ["work", "alpha"]}}, {id: "work", name: "Work bot"}, {id: "alpha"}]`,
			want: `{"requester":"main","allowAny":false,"agents":[{"id":"main","configured":true},{"id":"alpha","configured":true},{"id":"work","name":"Work bot","configured":true}]}`},
		{name: "* allows any listed agent", agents: `list: [{id: "work"}, {id: "main", subagents: {allowAgents: ["*"]}}, {id: "alpha"}]`,
			want: `{"requester":"main","allowAny":true,"agents":[{"id":"main","configured":true},{"id":"alpha","configured":true},{"id":"work","configured":true}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(`{agents: {` + tt.agents + `}}`))
			if err != nil {
				t.Fatal(err)
			}
			res := tooltest.Call(t, sessions.NewAgentsTool(tools.Run{Config: cfg, AgentID: "main"}), `{}`) // no session store
			var got, want agentsOut
			if res.IsError || json.Unmarshal([]byte(res.Content), &got) != nil {
				t.Fatalf("result %+v", res)
			}
			_ = json.Unmarshal([]byte(tt.want), &want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("agents_list (-want +got):\n%s", diff)
			}
		})
	}
}
