package sessions_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools/sessions"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
	"github.com/zero-gateway/zero/shared/transcript/transcripttest"
)

// list calls sessions_list of the rig's run and decodes its rows.
func (r *rig) list(t *testing.T, args string) tooltest.ListOut {
	t.Helper()
	return tooltest.ListResult(t, args, tooltest.Call(t, sessions.NewListTool(r.run(t), r.store, r.transcripts()), args))
}

// seedSessions stores tooltest.SeedSessions' sessions in r and returns
// the rows they list as.
func seedSessions(t *testing.T, r *rig) []string {
	t.Helper()
	return tooltest.SeedSessions(func(key string, e session.Entry) { r.seed(t, key, e) }, r.ago)
}

// TestSessionsList: sessions_list lists every agent's sessions, newest
// first, filtered and cut as its arguments say; "global" and "unknown"
// never appear.
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
			r := newRig(t, sessionsConfig)
			all := seedSessions(t, r)
			got := r.list(t, tt.args)
			if diff := cmp.Diff(tt.want(all), tooltest.Summary(got.Sessions)); diff != "" || got.Truncated {
				t.Errorf("rows (-want +got):\n%s truncated %v", diff, got.Truncated)
			}
		})
	}
}

// TestSessionsListSandbox: in a sandboxed run whose visibility is
// "spawned" the rows are only the sessions it spawned (the tool policy's
// decision, tools.Run.SessionVisibility); otherwise every session.
func TestSessionsListSandbox(t *testing.T) {
	tests := []struct {
		visibility string
		want       func(all []string) []string
	}{
		{"spawned", func(all []string) []string { return all[7:9] }},
		{"all", func(all []string) []string { return all }},
		{"", func(all []string) []string { return all }},
	}
	for _, tt := range tests {
		t.Run(tt.visibility, func(t *testing.T) {
			r := newRig(t, sessionsConfig)
			r.visibility = tt.visibility
			all := seedSessions(t, r)
			if diff := cmp.Diff(tt.want(all), tooltest.Summary(r.list(t, `{}`).Sessions)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSessionsListRow: a row carries every field of the page, as
// session.RowOf builds it, with the caller's main session keyed "main".
func TestSessionsListRow(t *testing.T) {
	r := newRig(t, sessionsConfig)
	e := session.Entry{
		AgentID: "main", SessionID: "s-team", UpdatedAt: r.ago(time.Minute), DisplayName: "Team", Channel: "telegram", ChatType: "group",
		Model: "echo", ModelProvider: "zero", ModelOverride: "big", ProviderOverride: "zero", ContextTokens: 128000, TotalTokens: 321,
		ThinkingLevel: "high", VerboseLevel: "on", SystemSent: true, AbortedLastRun: true, SendPolicy: "deny",
		DeliveryContext: session.DeliveryContext{Channel: "telegram", To: "-100", AccountID: "bot"}, LastChannel: "telegram", LastTo: "-100",
	}
	r.seed(t, groupKey, e)
	mainRow := session.RowOf(mainKey, r.entry(t, mainKey), session.KeyConfig{})
	mainRow.Key = "main"
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
			r := newRig(t, sessionsConfig)
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

// TestSessionsListWithoutTranscripts: messageLimit needs the transcript
// store; without one the call is an error, without it the list works.
func TestSessionsListWithoutTranscripts(t *testing.T) {
	r := newRig(t, sessionsConfig)
	tl := sessions.NewListTool(r.run(t), r.store, nil)
	if res := tooltest.Call(t, tl, `{"messageLimit": 1}`); !res.IsError || !strings.Contains(res.Content, "messageLimit cannot be served") {
		t.Errorf("with messageLimit: %+v; want the error", res)
	}
	if res := tooltest.Call(t, tl, `{}`); res.IsError {
		t.Errorf("without messageLimit: %s", res.Content)
	}
}

// TestSessionsListFitsAToolResult: rows that would not fit in one tool
// result are left out, the least recent first, and the JSON stays whole.
func TestSessionsListFitsAToolResult(t *testing.T) {
	r := newRig(t, sessionsConfig)
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
	r := newRig(t, `{session: {scope: "global"}, channels: {telegram: {allowFrom: ["*"]}}}`)
	r.store.entries, r.bucket = map[string]session.Entry{}, transcripttest.NewMemBucket()
	r.caller.SessionKey = "global"
	r.seedCaller(t)
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
			if diff := cmp.Diff(tt.want, tooltest.Summary(r.list(t, tt.args).Sessions)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
	res := tooltest.Call(t, sessions.NewHistoryTool(r.run(t), r.store, r.transcripts()), `{"sessionKey": "main"}`)
	if res.IsError || !strings.Contains(res.Content, `"sessionKey":"main"`) {
		t.Fatalf("sessions_history(main) = %+v; want the global session shown as main", res)
	}
}
