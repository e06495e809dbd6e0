package turn_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/transcript"
)

// sessionsConfig has two agents; Telegram admits everyone.
const sessionsConfig = `{agents: {list: [{id: "main", default: true}, {id: "work", name: "Work bot"}]}, channels: {telegram: {allowFrom: ["*"]}}}`

// sessionsRig is a rig with zero.json doc whose store reads other
// sessions (turn.SessionReader), after one turn on the caller's session,
// agent:main:main on Telegram.
func sessionsRig(t *testing.T, doc string) *rig {
	t.Helper()
	r := newRig()
	r.proc.Store = r.store
	r.settings.set(doc)
	r.handle(t, msg(1, "hi"))
	return r
}

// seed stores e under key as a first commit would.
func (r *rig) seed(t *testing.T, key string, e session.Entry) {
	t.Helper()
	e.Version = 1
	if e.SessionID == "" {
		e.SessionID = "s-" + strings.NewReplacer(":", "-").Replace(key)
	}
	rec := receipt.Receipt{MessageID: "seed:" + key, SessionKey: key}
	if err := r.store.Commit(context.Background(), key, e, sessionstate.ModelContext{SessionID: e.SessionID}, rec); err != nil {
		t.Fatal(err)
	}
}

// ago is the epoch ms d before the rig's clock.
func (r *rig) ago(d time.Duration) int64 { return r.clock.Add(-d).UnixMilli() }

// callTool runs a turn of the caller's session (m, or the default
// message when nil) in which the scripted model calls name with args,
// and returns the tool result the model got back.
func (r *rig) callTool(t *testing.T, name, args string) model.Message {
	t.Helper()
	call := model.Response{StopReason: model.StopToolUse, ToolCalls: []model.ToolCall{{ID: "call-1", Name: name, Arguments: args}}}
	llm := &scriptModel{answers: []model.Response{call, final("ok")}}
	r.proc.Models["zero"] = llm
	m := msg(1000+len(r.sender.sent), "go")
	if r.caller != "" {
		m.SessionKey = r.caller
	}
	r.handle(t, m)
	if len(llm.seen) != 2 {
		t.Fatalf("%d model calls; want the tool call and the answer", len(llm.seen))
	}
	msgs := llm.seen[1].Messages
	return msgs[len(msgs)-1]
}

// listOut is sessions_list's result.
type listOut struct {
	Count     int           `json:"count"`
	Sessions  []session.Row `json:"sessions"`
	Truncated bool          `json:"truncated"`
}

// list calls sessions_list and decodes its rows.
func (r *rig) list(t *testing.T, args string) listOut {
	t.Helper()
	res := r.callTool(t, "sessions_list", args)
	var out listOut
	if res.IsError || json.Unmarshal([]byte(res.Content), &out) != nil || out.Count != len(out.Sessions) {
		t.Fatalf("sessions_list(%s) = %+v; want rows", args, res)
	}
	return out
}

// summary is "key kind channel" per row.
func summary(rows []session.Row) []string {
	out := []string{}
	for _, r := range rows {
		out = append(out, r.Key+" "+r.Kind+" "+r.Channel)
	}
	return out
}

// seedSessions stores sessions of both agents, of every kind, and the
// reserved keys, with the rows they list as (newest first; the caller's
// own session comes first, shown as "main").
func seedSessions(t *testing.T, r *rig) []string {
	for _, s := range []struct {
		key string
		e   session.Entry
	}{
		{groupKey, session.Entry{AgentID: "main", Channel: "telegram", ChatType: "group", DisplayName: "Team", LastChannel: "telegram", UpdatedAt: r.ago(time.Minute)}},
		{"cron:nightly", session.Entry{AgentID: "main", UpdatedAt: r.ago(2 * time.Minute)}},
		{workKey, session.Entry{AgentID: "work", LastChannel: "telegram", UpdatedAt: r.ago(3 * time.Minute)}},
		{"hook:abc", session.Entry{AgentID: "work", UpdatedAt: r.ago(10 * time.Minute)}},
		{"node-pi", session.Entry{AgentID: "main", UpdatedAt: r.ago(30 * time.Minute)}},
		{"agent:main:telegram:dm:9", session.Entry{AgentID: "main", LastChannel: "discord", UpdatedAt: r.ago(2 * time.Hour)}},
		{"agent:main:subagent:u1", session.Entry{AgentID: "main", SpawnedBy: "agent:main:main", UpdatedAt: r.ago(3 * time.Hour)}},
		{"agent:work:subagent:u2", session.Entry{AgentID: "work", SpawnedBy: "agent:main:main", UpdatedAt: r.ago(4 * time.Hour)}},
		{"agent:main:subagent:u3", session.Entry{AgentID: "main", SpawnedBy: "agent:main:telegram:dm:9", UpdatedAt: r.ago(5 * time.Hour)}},
		{"unknown", session.Entry{AgentID: "main", UpdatedAt: r.ago(0)}},
		{"global", session.Entry{AgentID: "main", UpdatedAt: r.ago(0)}},
	} {
		r.seed(t, s.key, s.e)
	}
	return []string{
		"main main telegram", groupKey + " group telegram", "cron:nightly cron internal", workKey + " main telegram",
		"hook:abc hook internal", "node-pi node internal", "agent:main:telegram:dm:9 other discord",
		"agent:main:subagent:u1 other unknown", "agent:work:subagent:u2 other unknown", "agent:main:subagent:u3 other unknown",
	}
}

// TestSessionsList: a turn whose model calls sessions_list gets every
// agent's sessions, newest first, filtered and cut as its arguments say;
// "global" and "unknown" never appear.
func TestSessionsList(t *testing.T) {
	tests := []struct {
		name string
		args string
		want func(all []string) []string
	}{
		{"every agent's sessions, newest first", `{}`, func(all []string) []string { return all }},
		{"limit", `{"limit": 2}`, func(all []string) []string { return all[:2] }},
		{"limit 0 is clamped to 1", `{"limit": 0}`, func(all []string) []string { return all[:1] }},
		{"a huge limit is clamped", `{"limit": 1e9}`, func(all []string) []string { return all }},
		{"kinds", `{"kinds": ["group", "cron"]}`, func(all []string) []string { return all[1:3] }},
		{"main: every agent's main session", `{"kinds": ["main"]}`, func(all []string) []string { return []string{all[0], all[3]} }},
		{"kinds and limit", `{"kinds": ["other"], "limit": 2}`, func(all []string) []string { return all[6:8] }},
		{"internal kinds", `{"kinds": ["hook", "node"]}`, func(all []string) []string { return all[4:6] }},
		{"only unknown kinds filter nothing", `{"kinds": ["dm"]}`, func(all []string) []string { return all }},
		{"activeMinutes", `{"activeMinutes": 5}`, func(all []string) []string { return all[:4] }},
		{"activeMinutes 0 is clamped to 1", `{"activeMinutes": 0}`, func(all []string) []string { return all[:1] }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sessionsRig(t, sessionsConfig)
			all := seedSessions(t, r)
			got := r.list(t, tt.args)
			if diff := cmp.Diff(tt.want(all), summary(got.Sessions)); diff != "" || got.Truncated {
				t.Errorf("rows (-want +got):\n%s truncated %v", diff, got.Truncated)
			}
		})
	}
}

// TestSessionsListRow: a row carries every field of the page, as
// session.RowOf builds it, with the caller's main session keyed "main".
func TestSessionsListRow(t *testing.T) {
	r := sessionsRig(t, sessionsConfig)
	e := session.Entry{
		AgentID: "main", SessionID: "s-team", UpdatedAt: r.ago(time.Minute), DisplayName: "Team", Channel: "telegram", ChatType: "group",
		Model: "echo", ModelProvider: "zero", ModelOverride: "big", ProviderOverride: "zero", ContextTokens: 128000, TotalTokens: 321,
		ThinkingLevel: "high", VerboseLevel: "on", SystemSent: true, AbortedLastRun: true, SendPolicy: "deny",
		DeliveryContext: session.DeliveryContext{Channel: "telegram", To: "-100", AccountID: "bot"}, LastChannel: "telegram", LastTo: "-100",
	}
	r.seed(t, groupKey, e)
	mainRow := r.mainRow(t) // as the listing turn reads it, before it commits
	got := r.list(t, `{}`)
	want := []session.Row{mainRow, {
		Key: groupKey, Kind: "group", Channel: "telegram", DisplayName: "Team", UpdatedAt: e.UpdatedAt, SessionID: "s-team",
		Model: "zero/big", ContextTokens: 128000, TotalTokens: 321, ThinkingLevel: "high", VerboseLevel: "on",
		SystemSent: true, AbortedLastRun: true, SendPolicy: "deny", LastChannel: "telegram", LastTo: "-100",
		DeliveryContext: &session.RowDelivery{Channel: "telegram", To: "-100", AccountID: "bot"},
		TranscriptPath:  "agents/main/sessions/s-team.jsonl",
	}}
	if diff := cmp.Diff(want, got.Sessions); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// mainRow is the caller's main session's row as sessions_list shows it
// (read before the listing turn commits).
func (r *rig) mainRow(t *testing.T) session.Row {
	e := r.entry(t, "agent:main:main")
	row := session.RowOf("agent:main:main", *e, session.KeyConfig{})
	row.Key = "main"
	return row
}

// writeTranscript writes parts (one per turn) of key's transcript, as
// message lines "role:text", and records them on its entry.
func (r *rig) writeTranscript(t *testing.T, key string, e session.Entry, parts ...[]string) session.Entry {
	t.Helper()
	log := transcript.NewLog(r.bucket)
	for i, part := range parts {
		var lines []any
		for j, m := range part {
			role, text, _ := strings.Cut(m, ":")
			lines = append(lines, transcript.Line{Type: "message", ID: fmt.Sprintf("%d-%d", i, j),
				Message: &transcript.Message{Role: role, Content: []transcript.Content{{Type: "text", Text: text}}}})
		}
		if err := log.WritePart(context.Background(), session.TranscriptPath(key, e), int64(i+1), lines); err != nil {
			t.Fatal(err)
		}
	}
	e.TranscriptSeq = int64(len(parts))
	return e
}

// messagesOf is "role:text" per raw transcript message.
func messagesOf(t *testing.T, raws []json.RawMessage) []string {
	t.Helper()
	if raws == nil {
		return nil
	}
	out := []string{}
	for _, raw := range raws {
		var m transcript.Message
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m.Role+":"+m.Text())
	}
	return out
}

// TestSessionsListMessages: messageLimit adds each row's last messages,
// tool results left out, at most 20; 0 (the default) adds none.
func TestSessionsListMessages(t *testing.T) {
	long := []string{}
	for i := range 25 {
		long = append(long, fmt.Sprintf("user:m%d", i))
	}
	tests := []struct {
		name string
		args string
		want [][]string // messages of the group row, then of the cron row
	}{
		{"none by default", `{"kinds": ["group", "cron"]}`, [][]string{nil, nil}},
		{"messageLimit 0 is none", `{"kinds": ["group", "cron"], "messageLimit": 0}`, [][]string{nil, nil}},
		{"the last 3, tool results left out", `{"kinds": ["group", "cron"], "messageLimit": 3}`,
			[][]string{{"assistant:b", "user:c", "assistant:d"}, {"user:m22", "user:m23", "user:m24"}}},
		{"over 20 is 20", `{"kinds": ["group", "cron"], "messageLimit": 99}`,
			[][]string{{"user:a", "assistant:b", "user:c", "assistant:d"}, long[5:]}},
		{"a session without a transcript has none", `{"kinds": ["hook"], "messageLimit": 2}`, [][]string{{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sessionsRig(t, sessionsConfig)
			group := session.Entry{AgentID: "main", SessionID: "s-g", Channel: "telegram", UpdatedAt: r.ago(time.Minute)}
			r.seed(t, groupKey, r.writeTranscript(t, groupKey, group, []string{"user:a", "assistant:b", "toolResult:r"}, []string{"user:c", "assistant:d"}))
			cron := session.Entry{AgentID: "main", SessionID: "s-c", UpdatedAt: r.ago(2 * time.Minute)}
			r.seed(t, "cron:nightly", r.writeTranscript(t, "cron:nightly", cron, long[:10], long[10:]))
			r.seed(t, "hook:h", session.Entry{AgentID: "work", UpdatedAt: r.ago(3 * time.Minute)})
			got := [][]string{}
			for _, row := range r.list(t, tt.args).Sessions {
				got = append(got, messagesOf(t, row.Messages))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("messages per row (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSessionsListFitsAToolResult: rows that would not fit in one tool
// result are left out, the least recent first, and the JSON stays whole.
func TestSessionsListFitsAToolResult(t *testing.T) {
	r := sessionsRig(t, sessionsConfig)
	for i := range 60 {
		r.seed(t, fmt.Sprintf("agent:main:telegram:group:%d", i), session.Entry{AgentID: "main", Channel: "telegram",
			DisplayName: strings.Repeat("x", 500), UpdatedAt: r.ago(time.Duration(i+1) * time.Minute)})
	}
	got := r.list(t, `{"limit": 100}`)
	if !got.Truncated || got.Count >= 61 || got.Count < 10 || got.Sessions[1].Key != "agent:main:telegram:group:0" {
		t.Fatalf("count %d truncated %v; want the newest rows that fit, marked truncated", got.Count, got.Truncated)
	}
}

// TestSessionsListGlobalScope: under session.scope "global" the one
// shared session is listed as "main", never as "global".
func TestSessionsListGlobalScope(t *testing.T) {
	r := newRig()
	r.proc.Store = r.store
	r.settings.set(`{session: {scope: "global"}, channels: {telegram: {allowFrom: ["*"]}}}`)
	r.caller = "global"
	m := msg(1, "hi")
	m.SessionKey = "global"
	r.handle(t, m)
	r.seed(t, "cron:nightly", session.Entry{AgentID: "main", UpdatedAt: r.ago(time.Minute)})
	r.seed(t, "unknown", session.Entry{AgentID: "main", UpdatedAt: r.ago(0)})
	tests := []struct {
		name, args string
		want       []string
	}{
		{"all", `{}`, []string{"main main telegram", "cron:nightly cron internal"}},
		{"main", `{"kinds": ["main"]}`, []string{"main main telegram"}},
		{"activeMinutes keeps global", `{"activeMinutes": 1}`, []string{"main main telegram"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, summary(r.list(t, tt.args).Sessions)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
	res := r.callTool(t, "sessions_history", `{"sessionKey": "main"}`)
	if res.IsError || !strings.Contains(res.Content, `"sessionKey":"main"`) {
		t.Fatalf("sessions_history(main) = %+v; want the global session shown as main", res)
	}
}

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
			r := sessionsRig(t, sessionsConfig)
			group := session.Entry{AgentID: "main", SessionID: "s-g", Channel: "telegram", UpdatedAt: r.ago(time.Minute)}
			r.seed(t, groupKey, r.writeTranscript(t, groupKey, group, []string{"user:a", "assistant:b", "toolResult:r"}, []string{"user:c", "assistant:d"}))
			r.seed(t, workKey, session.Entry{AgentID: "work", UpdatedAt: r.ago(time.Minute)})
			r.seed(t, "unknown", session.Entry{AgentID: "main", UpdatedAt: r.ago(time.Minute)})
			r.seed(t, "global", session.Entry{AgentID: "main", UpdatedAt: r.ago(time.Minute)})
			res := r.callTool(t, "sessions_history", tt.args)
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

// TestSessionsSandboxVisibility: a session of an agent with a sandbox
// block sees only the sessions it spawned, unless its visibility is
// "all"; agents.defaults.sandbox alone sandboxes nobody.
func TestSessionsSandboxVisibility(t *testing.T) {
	spawned := []string{"agent:main:subagent:u1 other unknown", "agent:work:subagent:u2 other unknown"}
	tests := []struct {
		name        string
		agents      string
		wantRows    func(all []string) []string
		wantHistory map[string]string // sessionKey → "" (readable) or an error it contains
	}{
		{name: "sandboxed: only what it spawned", agents: `list: [{id: "main", default: true, sandbox: {}}, {id: "work"}]`,
			wantRows: func([]string) []string { return spawned },
			wantHistory: map[string]string{"agent:work:subagent:u2": "", groupKey: "among those this session spawned",
				"agent:main:subagent:u3": "among those this session spawned", "main": "among those this session spawned",
				"agent:main:telegram:group:-999": "among those this session spawned"}},
		{name: "sandboxed by the agent, visibility from the defaults", agents: `defaults: {sandbox: {sessionToolsVisibility: "all"}}, list: [{id: "main", sandbox: {}}, {id: "work"}]`,
			wantRows: func(all []string) []string { return all }, wantHistory: map[string]string{groupKey: ""}},
		{name: "sandboxed with visibility all", agents: `list: [{id: "main", sandbox: {sessionToolsVisibility: "all"}}, {id: "work"}]`,
			wantRows: func(all []string) []string { return all }, wantHistory: map[string]string{groupKey: "", "agent:main:subagent:u3": ""}},
		{name: "the defaults alone sandbox nobody", agents: `defaults: {sandbox: {sessionToolsVisibility: "spawned"}}, list: [{id: "main"}, {id: "work"}]`,
			wantRows: func(all []string) []string { return all }, wantHistory: map[string]string{groupKey: ""}},
		{name: "another agent's sandbox does not apply", agents: `list: [{id: "main"}, {id: "work", sandbox: {}}]`,
			wantRows: func(all []string) []string { return all }, wantHistory: map[string]string{groupKey: ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sessionsRig(t, `{agents: {`+tt.agents+`}, channels: {telegram: {allowFrom: ["*"]}}}`)
			all := seedSessions(t, r)
			if diff := cmp.Diff(tt.wantRows(all), summary(r.list(t, `{}`).Sessions)); diff != "" {
				t.Errorf("sessions_list rows (-want +got):\n%s", diff)
			}
			for key, wantErr := range tt.wantHistory {
				res := r.callTool(t, "sessions_history", `{"sessionKey": "`+key+`"}`)
				if res.IsError != (wantErr != "") || !strings.Contains(res.Content, wantErr) {
					t.Errorf("sessions_history(%s) = %+v; want error %q", key, res, wantErr)
				}
			}
		})
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
			r := newRig() // agents_list needs no session store
			r.settings.set(`{agents: {` + tt.agents + `}, channels: {telegram: {allowFrom: ["*"]}}}`)
			res := r.callTool(t, "agents_list", `{}`)
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

// TestSessionToolsOffered: sessions_list and sessions_history are offered
// with a store that reads other sessions; agents_list always.
func TestSessionToolsOffered(t *testing.T) {
	for _, tt := range []struct {
		name     string
		readable bool
		want     []string
	}{
		{"a store that reads sessions", true, []string{"session_status", "sessions_list", "sessions_history", "agents_list"}},
		{"a store that cannot", false, []string{"session_status", "agents_list"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			if tt.readable {
				r.proc.Store = r.store
			}
			llm := &scriptModel{answers: []model.Response{final("ok")}}
			r.proc.Models["zero"] = llm
			r.handle(t, msg(1, "hi"))
			if diff := cmp.Diff(tt.want, toolNames(llm.seen[0].Tools)); diff != "" {
				t.Errorf("offered tools (-want +got):\n%s", diff)
			}
		})
	}
}
