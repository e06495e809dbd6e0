package gateway

import (
	"context"
	"encoding/json"
	"github.com/google/go-cmp/cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/transcript"
)

const (
	mainKey   = "agent:main:main"
	groupKey  = "agent:main:telegram:group:-100"
	topicKey  = "agent:main:telegram:group:-100:topic:7"
	cronKey   = "cron:nightly"
	mainSID   = "11111111-2222-4333-8444-555555555555"
	minuteMS  = 60_000
	nowMS     = int64(1772366400000) // testNow
	otherKey  = "agent:ops:main"
	dmKey     = "agent:main:dm:bob"
	globalKey = "global"
)

// seedSessions stores a small, varied session map: newest first, main,
// group, topic, cron, dm (an hour old), ops (another agent), global.
func seedSessions(f *fixture) {
	f.seed(mainKey, session.Entry{
		SessionID: mainSID, AgentID: "main", UpdatedAt: nowMS - 1*minuteMS, ChatType: "direct", Channel: "telegram",
		LastChannel: "telegram", LastTo: "42", DeliveryContext: session.DeliveryContext{Channel: "telegram", To: "42", AccountID: "bot"},
		Model: "gpt-5", ModelProvider: "openai", InputTokens: 100, OutputTokens: 20, TotalTokens: 120, ContextTokens: 200000,
		ThinkingLevel: "low", SystemSent: true, Label: "Home", TranscriptSeq: 2,
	})
	f.seed(groupKey, session.Entry{SessionID: "g1", AgentID: "main", UpdatedAt: nowMS - 2*minuteMS, ChatType: "group", Channel: "telegram",
		DisplayName: "Family", ModelOverride: "claude", ProviderOverride: "anthropic", SendPolicy: "deny", LastChannel: "telegram"})
	f.seed(topicKey, session.Entry{SessionID: "t1", AgentID: "main", UpdatedAt: nowMS - 3*minuteMS, ChatType: "group", Channel: "telegram", TranscriptSeq: 1})
	f.seed(cronKey, session.Entry{SessionID: "c1", AgentID: "main", UpdatedAt: nowMS - 4*minuteMS})
	f.seed(dmKey, session.Entry{SessionID: "d1", AgentID: "main", UpdatedAt: nowMS - 60*minuteMS})
	f.seed(otherKey, session.Entry{SessionID: "o1", AgentID: "ops", UpdatedAt: nowMS})
	f.seed(globalKey, session.Entry{SessionID: "gl", AgentID: "main", UpdatedAt: nowMS - 30*minuteMS})

	path := transcript.Path("main", mainSID, "")
	f.writeTranscript(path, 1,
		transcript.Header{Type: "session", Version: 3, ID: mainSID},
		textLine("a1", "user", "one"), textLine("a2", "assistant", "two"))
	f.writeTranscript(path, 2,
		textLine("b1", "user", "three"),
		transcript.Line{Type: "message", ID: "b2", Message: &transcript.Message{Role: "assistant", Content: []transcript.Content{{Type: "toolCall", ID: "c", Name: "session_status"}}}},
		transcript.Line{Type: "message", ID: "b3", Message: &transcript.Message{Role: "toolResult", ToolCallID: "c", Content: []transcript.Content{{Type: "text", Text: "ok"}}}},
		transcript.Line{Type: "compaction", ID: "b4", Summary: "s"},
		textLine("b5", "assistant", "four"))
	f.writeTranscript(transcript.Path("main", "t1", "7"), 1, textLine("t", "user", "topic"))
}

func texts(t *testing.T, msgs []json.RawMessage) []string {
	t.Helper()
	var out []string
	for _, raw := range msgs {
		var m transcript.Message
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		text := m.Text()
		if text == "" && len(m.Content) > 0 {
			text = m.Role + ":" + m.Content[0].Type
		}
		out = append(out, text)
	}
	return out
}

func TestSessionsList(t *testing.T) {
	tests := []struct {
		name     string
		params   map[string]any
		keys     []string
		messages map[string][]string // key -> message texts
		// emptyMessages: rows carry "messages": [] (not absent)
		emptyMessages bool
	}{
		{name: "default agent, newest first", params: map[string]any{}, keys: []string{mainKey, groupKey, topicKey, cronKey, dmKey}},
		{name: "limit", params: map[string]any{"limit": 2}, keys: []string{mainKey, groupKey}},
		{name: "kinds", params: map[string]any{"kinds": []string{"group", "cron"}, "limit": 2}, keys: []string{groupKey, topicKey}},
		{name: "active minutes", params: map[string]any{"activeMinutes": 10}, keys: []string{mainKey, groupKey, topicKey, cronKey}},
		{name: "other agent", params: map[string]any{"agentId": "OPS"}, keys: []string{otherKey}},
		{name: "include global", params: map[string]any{"includeGlobal": true, "includeUnknown": true}, keys: []string{mainKey, groupKey, topicKey, cronKey, globalKey, dmKey}},
		{name: "include global, active only", params: map[string]any{"includeGlobal": true, "activeMinutes": 10}, keys: []string{mainKey, groupKey, topicKey, cronKey}},
		{
			name: "messages", params: map[string]any{"messageLimit": 2, "limit": 3}, keys: []string{mainKey, groupKey, topicKey},
			messages:      map[string][]string{mainKey: {"assistant:toolCall", "four"}, topicKey: {"topic"}},
			emptyMessages: true, // the group's
		},
		{
			name: "messages of a session without transcript", params: map[string]any{"messageLimit": 1, "kinds": []string{"cron"}}, keys: []string{cronKey},
			emptyMessages: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "")
			seedSessions(f)
			var got struct{ Sessions []Row }
			r := f.call("sessions.list", tc.params)
			r.decode(t, &got)
			if tc.emptyMessages != strings.Contains(string(r.Result), `"messages":[]`) {
				t.Errorf("result %s; want \"messages\":[] %v", r.Result, tc.emptyMessages)
			}
			var keys []string
			for _, r := range got.Sessions {
				keys = append(keys, r.Key)
				if want := tc.messages[r.Key]; !slices.Equal(texts(t, r.Messages), want) {
					t.Errorf("%s messages %q; want %q", r.Key, texts(t, r.Messages), want)
				}
			}
			if !slices.Equal(keys, tc.keys) {
				t.Fatalf("keys %q; want %q", keys, tc.keys)
			}
		})
	}

	t.Run("row format", func(t *testing.T) {
		f := newFixture(t, "")
		seedSessions(f)
		var got struct{ Sessions []Row }
		f.call("sessions.list", map[string]any{"limit": 4}).decode(t, &got)
		want := []Row{
			{Key: mainKey, Kind: "main", Channel: "telegram", UpdatedAt: nowMS - minuteMS, SessionID: mainSID, Model: "openai/gpt-5",
				ContextTokens: 200000, TotalTokens: 120, InputTokens: 100, OutputTokens: 20, ThinkingLevel: "low", SystemSent: true,
				LastChannel: "telegram", LastTo: "42", DeliveryContext: &DeliveryContext{Channel: "telegram", To: "42", AccountID: "bot"},
				TranscriptPath: "agents/main/sessions/" + mainSID + ".jsonl", Label: "Home"},
			{Key: groupKey, Kind: "group", Channel: "telegram", DisplayName: "Family", UpdatedAt: nowMS - 2*minuteMS, SessionID: "g1",
				Model: "anthropic/claude", SendPolicy: "deny", LastChannel: "telegram", TranscriptPath: "agents/main/sessions/g1.jsonl"},
			{Key: topicKey, Kind: "group", Channel: "telegram", UpdatedAt: nowMS - 3*minuteMS, SessionID: "t1",
				TranscriptPath: "agents/main/sessions/t1-topic-7.jsonl"},
			{Key: cronKey, Kind: "cron", Channel: "internal", UpdatedAt: nowMS - 4*minuteMS, SessionID: "c1",
				TranscriptPath: "agents/main/sessions/c1.jsonl"},
		}
		if len(got.Sessions) != len(want) {
			t.Fatalf("%d rows; want %d", len(got.Sessions), len(want))
		}
		for i := range want {
			g, w := got.Sessions[i], want[i]
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(w)
			if string(gj) != string(wj) {
				t.Errorf("row %d:\n got %s\nwant %s", i, gj, wj)
			}
		}
	})

	t.Run("global scope shows main", func(t *testing.T) {
		f := newFixture(t, `{session: {scope: "global"}}`)
		seedSessions(f)
		var got struct{ Sessions []Row }
		f.call("sessions.list", map[string]any{"includeGlobal": true, "kinds": []string{"main"}}).decode(t, &got)
		if len(got.Sessions) != 2 || got.Sessions[0].Key != mainKey || got.Sessions[1].Key != "main" {
			t.Fatalf("rows %+v; want agent:main:main and global shown as main", got.Sessions)
		}
	})

	t.Run("no transcript reads without messageLimit", func(t *testing.T) {
		f := newFixture(t, "")
		seedSessions(f)
		before := f.bucket.Calls
		var got struct{ Sessions []Row }
		f.call("sessions.list", map[string]any{}).decode(t, &got)
		if f.bucket.Calls != before {
			t.Fatalf("%d bucket calls; want none", f.bucket.Calls-before)
		}
	})

	for _, tc := range []struct {
		name, message string
		params        map[string]any
	}{
		{"bad kind", `params.kinds[1]: must be one of main, group, cron, hook, node, other, got "dm"`, map[string]any{"kinds": []string{"main", "dm"}}},
		{"zero limit", "params.limit: must be >= 1, got 0", map[string]any{"limit": 0}},
		{"messageLimit too big", "params.messageLimit: must be 0-20, got 21", map[string]any{"messageLimit": 21}},
		{"negative activeMinutes", "params.activeMinutes: must be >= 0, got -1", map[string]any{"activeMinutes": -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newFixture(t, "").call("sessions.list", tc.params).wantError(t, http.StatusBadRequest, fault.Invalid, tc.message)
		})
	}
}

func TestChatHistory(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]any
		key    string
		texts  []string
	}{
		{"main by default, tools filtered", map[string]any{}, mainKey, []string{"one", "two", "three", "assistant:toolCall", "four"}},
		{"with tools", map[string]any{"sessionKey": "main", "includeTools": true}, mainKey, []string{"one", "two", "three", "assistant:toolCall", "ok", "four"}},
		{"limit keeps the last", map[string]any{"sessionKey": mainKey, "limit": 2}, mainKey, []string{"assistant:toolCall", "four"}},
		{"by sessionId", map[string]any{"sessionId": mainSID, "limit": 1}, mainKey, []string{"four"}},
		{"a sessionId as sessionKey", map[string]any{"sessionKey": mainSID, "limit": 1}, mainKey, []string{"four"}},
		{"topic transcript", map[string]any{"sessionKey": topicKey}, topicKey, []string{"topic"}},
		{"no transcript yet", map[string]any{"sessionKey": cronKey}, cronKey, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "")
			seedSessions(f)
			var got struct {
				SessionKey, SessionID string
				Messages              []json.RawMessage
			}
			f.call("chat.history", tc.params).decode(t, &got)
			if got.SessionKey != tc.key || !slices.Equal(texts(t, got.Messages), tc.texts) || got.Messages == nil {
				t.Fatalf("got %s %q; want %s %q", got.SessionKey, texts(t, got.Messages), tc.key, tc.texts)
			}
		})
	}

	t.Run("raw message objects", func(t *testing.T) {
		f := newFixture(t, "")
		seedSessions(f)
		var got struct{ Messages []map[string]any }
		f.call("chat.history", map[string]any{"limit": 1}).decode(t, &got)
		m := got.Messages[0]
		if m["role"] != "assistant" || m["timestamp"] != float64(1) || m["content"] == nil {
			t.Fatalf("message %v; want the transcript's message object", m)
		}
	})

	for _, tc := range []struct {
		name    string
		params  map[string]any
		status  int
		message string
	}{
		{"missing session", map[string]any{"sessionKey": "agent:main:dm:nobody"}, http.StatusNotFound, `no session "agent:main:dm:nobody"`},
		{"unknown sessionId", map[string]any{"sessionId": "nope"}, http.StatusNotFound, `params.sessionId: no session has id "nope"`},
		{"bad limit", map[string]any{"limit": 0}, http.StatusBadRequest, "params.limit: must be >= 1, got 0"},
		{"both ids", map[string]any{"sessionKey": "main", "sessionId": mainSID}, http.StatusBadRequest, "params: give sessionKey or sessionId, not both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "")
			seedSessions(f)
			f.call("chat.history", tc.params).wantError(t, tc.status, codeFor(tc.status), tc.message)
		})
	}
}

func TestSessionsResolve(t *testing.T) {
	tests := []struct {
		name    string
		params  map[string]any
		key     string
		status  int
		message string
	}{
		{name: "by sessionId", params: map[string]any{"sessionId": "g1"}, key: groupKey, status: http.StatusOK},
		{name: "by label, any case", params: map[string]any{"label": " home "}, key: mainKey, status: http.StatusOK},
		{name: "label of another agent", params: map[string]any{"label": "home", "agentId": "ops"}, status: http.StatusNotFound, message: `no session of agent "ops" has label "home"`},
		{name: "unknown sessionId", params: map[string]any{"sessionId": "zz"}, status: http.StatusNotFound, message: `no session has id "zz"`},
		{name: "neither", params: map[string]any{}, status: http.StatusBadRequest, message: "params.sessionId: required (or params.label)"},
		{name: "both", params: map[string]any{"sessionId": "g1", "label": "x"}, status: http.StatusBadRequest, message: "params.label: give sessionId or label, not both"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "")
			seedSessions(f)
			r := f.call("sessions.resolve", tc.params)
			if tc.status != http.StatusOK {
				r.wantError(t, tc.status, codeFor(tc.status), tc.message)
				return
			}
			var got struct{ Key, SessionID string }
			r.decode(t, &got)
			if got.Key != tc.key {
				t.Fatalf("key %s; want %s", got.Key, tc.key)
			}
		})
	}
}

func TestSessionsPatch(t *testing.T) {
	doc := `{agents: {defaults: {models: {"anthropic/claude-sonnet-4": {alias: "sonnet"}}}}}`
	tests := []struct {
		name    string
		params  map[string]any
		check   func(session.Entry) bool
		status  int
		message string
	}{
		{name: "label", params: map[string]any{"key": "main", "label": " Work "}, check: func(e session.Entry) bool { return e.Label == "Work" && e.ThinkingLevel == "low" }},
		{name: "clear label", params: map[string]any{"key": "main", "label": ""}, check: func(e session.Entry) bool { return e.Label == "" }},
		{name: "send policy deny", params: map[string]any{"key": mainKey, "sendPolicy": "deny"}, check: func(e session.Entry) bool { return e.SendPolicy == "deny" }},
		{name: "send policy inherit clears", params: map[string]any{"key": groupKey, "sendPolicy": "inherit"}, check: func(e session.Entry) bool { return e.SendPolicy == "" }},
		{name: "model alias", params: map[string]any{"key": "main", "model": "Sonnet"}, check: func(e session.Entry) bool {
			return e.ProviderOverride == "anthropic" && e.ModelOverride == "claude-sonnet-4"
		}},
		{name: "provider/model", params: map[string]any{"key": "main", "model": "openai/gpt-5-mini"}, check: func(e session.Entry) bool {
			return e.ProviderOverride == "openai" && e.ModelOverride == "gpt-5-mini"
		}},
		{name: "clear model", params: map[string]any{"key": groupKey, "model": ""}, check: func(e session.Entry) bool {
			return e.ProviderOverride == "" && e.ModelOverride == ""
		}},
		{name: "levels", params: map[string]any{"key": "main", "thinkingLevel": "High", "verboseLevel": "on", "reasoningLevel": "stream"}, check: func(e session.Entry) bool {
			return e.ThinkingLevel == "high" && e.VerboseLevel == "on" && e.ReasoningLevel == "stream"
		}},
		{name: "queue mode", params: map[string]any{"key": "main", "queueMode": "followup"}, check: func(e session.Entry) bool { return e.QueueMode == "followup" }},
		{name: "bad queue mode", params: map[string]any{"key": "main", "queueMode": "later"}, status: http.StatusBadRequest,
			message: `params.queueMode: must be one of collect, followup, steer, interrupt (or "" to clear), got "later"`},
		{name: "no field reads the entry", params: map[string]any{"key": "main"}, check: func(e session.Entry) bool { return e.Version == 1 }},
		{name: "bad thinking level", params: map[string]any{"key": "main", "thinkingLevel": "max"}, status: http.StatusBadRequest,
			message: `params.thinkingLevel: must be one of off, minimal, low, medium, high, xhigh (or "" to clear), got "max"`},
		{name: "bad send policy", params: map[string]any{"key": "main", "sendPolicy": "on"}, status: http.StatusBadRequest,
			message: `params.sendPolicy: must be allow, deny or inherit, got "on"`},
		{name: "unknown model", params: map[string]any{"key": "main", "model": "nonsense"}, status: http.StatusBadRequest,
			message: `params.model: "nonsense" is neither an alias of agents.defaults.models nor provider/model`},
		{name: "no key", params: map[string]any{"label": "x"}, status: http.StatusBadRequest, message: "params.key: required"},
		{name: "missing session", params: map[string]any{"key": "agent:main:dm:nobody", "label": "x"}, status: http.StatusNotFound, message: `no session "agent:main:dm:nobody"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, doc)
			seedSessions(f)
			r := f.call("sessions.patch", tc.params)
			if tc.status != 0 {
				r.wantError(t, tc.status, codeFor(tc.status), tc.message)
				if _, err := f.sessions.Get(context.Background(), "agent:main:dm:nobody"); !fault.Is(err, fault.NotFound) {
					t.Fatal("a patch created a session")
				}
				return
			}
			var got struct {
				Key   string
				Entry session.Entry
			}
			r.decode(t, &got)
			stored, err := f.sessions.Get(context.Background(), session.Canonical("main", tc.params["key"].(string), "", session.KeyConfig{}))
			if err != nil || !tc.check(got.Entry) || !tc.check(stored) {
				t.Fatalf("answer %+v, stored %+v (%v)", got.Entry, stored, err)
			}
		})
	}
}

func TestSessionsDelete(t *testing.T) {
	f := newFixture(t, "")
	seedSessions(f)
	var got struct {
		Key     string
		Deleted bool
	}
	f.call("sessions.delete", map[string]any{"key": "main"}).decode(t, &got)
	if got.Key != mainKey || !got.Deleted {
		t.Fatalf("answer %+v", got)
	}
	if _, err := f.sessions.Get(context.Background(), mainKey); !fault.Is(err, fault.NotFound) {
		t.Fatalf("Get after delete = %v; want NotFound", err)
	}
	f.call("sessions.delete", map[string]any{"key": "main"}).decode(t, &got) // idempotent
	f.call("sessions.delete", map[string]any{}).wantError(t, http.StatusBadRequest, fault.Invalid, "params.key: required")

	noDelete := newFixture(t, "", func(d *Deps) { d.Sessions = struct{ session.Store }{d.Sessions} })
	noDelete.call("sessions.delete", map[string]any{"key": "main"}).wantError(t, http.StatusNotImplemented, fault.Internal, "this session store cannot delete sessions")
}

func TestSessionsDeleteWithTranscript(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, "")
	seedSessions(f)
	e, err := f.sessions.Get(ctx, mainKey)
	if err != nil {
		t.Fatal(err)
	}
	path := session.TranscriptPath(mainKey, e)
	// seedSessions wrote its parts.
	if keys, _ := f.bucket.List(ctx, path); len(keys) < 2 {
		t.Fatalf("seeded parts: %v", keys)
	}
	var got struct {
		Deleted           bool
		TranscriptDeleted string
	}
	f.call("sessions.delete", map[string]any{"key": "main", "deleteTranscript": true}).decode(t, &got)
	if !got.Deleted || got.TranscriptDeleted != path {
		t.Fatalf("answer %+v; want the transcript %s named", got, path)
	}
	if keys, _ := f.bucket.List(ctx, path); len(keys) != 0 {
		t.Fatalf("transcript parts left: %v", keys)
	}
	// Deleting again (no entry any more) still succeeds.
	f.call("sessions.delete", map[string]any{"key": "main", "deleteTranscript": true}).decode(t, &got)
}

func TestStatus(t *testing.T) {
	f := newFixture(t, `{session: {dmScope: "per-peer"}}`, func(d *Deps) { d.Store = "dynamodb table t" })
	seedSessions(f)
	var got struct {
		OK            bool
		Sessions      []Row
		ConfigVersion string
		Store         string
	}
	f.call("status", map[string]any{}).decode(t, &got)
	if !got.OK || len(got.Sessions) != 5 || got.Sessions[0].Key != mainKey || got.ConfigVersion != "1" || got.Store != "dynamodb table t" {
		t.Fatalf("status %+v", got)
	}
	empty := newFixture(t, "")
	empty.call("status", nil).decode(t, &got)
	if !got.OK || len(got.Sessions) != 0 || got.ConfigVersion != "" {
		t.Fatalf("status without sessions or config %+v", got)
	}
	empty.call("status", map[string]any{"x": 1}).wantError(t, http.StatusBadRequest, fault.Invalid, "params.x: unknown field")
}

func TestHistoryReads(t *testing.T) {
	const parts = 100
	newLong := func(t *testing.T, deps ...func(*Deps)) *fixture {
		f := newFixture(t, "", deps...)
		f.seed(mainKey, session.Entry{SessionID: mainSID, AgentID: "main", UpdatedAt: 1, TranscriptSeq: parts})
		path := transcript.Path("main", mainSID, "")
		for seq := int64(1); seq <= parts; seq++ {
			n := strconv.FormatInt(seq, 10)
			f.writeTranscript(path, seq, textLine("u"+n, "user", "q"+n), textLine("a"+n, "assistant", "a"+n))
		}
		return f
	}
	tests := []struct {
		name     string
		deps     func(*Deps)
		limit    int
		texts    []string
		maxCalls int
	}{
		{"part by part from the newest", nil, 3, []string{"a99", "q100", "a100"}, session.PartWindow},
		{"a second window when needed", nil, 20, nil, 2 * session.PartWindow},
		{"whole transcript without Part", func(d *Deps) { d.Transcripts = struct{ TranscriptReader }{d.Transcripts} }, 3, []string{"a99", "q100", "a100"}, parts + 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var deps []func(*Deps)
			if tc.deps != nil {
				deps = append(deps, tc.deps)
			}
			f := newLong(t, deps...)
			before := f.bucket.Calls
			var got struct{ Messages []json.RawMessage }
			f.call("chat.history", map[string]any{"limit": tc.limit}).decode(t, &got)
			if calls := f.bucket.Calls - before; calls > tc.maxCalls {
				t.Errorf("%d bucket calls; want at most %d", calls, tc.maxCalls)
			}
			if len(got.Messages) != tc.limit {
				t.Fatalf("%d messages; want %d", len(got.Messages), tc.limit)
			}
			if tc.texts != nil && !slices.Equal(texts(t, got.Messages), tc.texts) {
				t.Fatalf("messages %q; want %q", texts(t, got.Messages), tc.texts)
			}
		})
	}

	t.Run("a deleted transcript reads as what is left", func(t *testing.T) {
		f := newLong(t)
		f.bucket.Delete(transcript.PartKey(transcript.Path("main", mainSID, ""), 99))
		var got struct{ Messages []json.RawMessage }
		f.call("chat.history", map[string]any{"limit": 5}).decode(t, &got)
		if !slices.Equal(texts(t, got.Messages), []string{"q100", "a100"}) {
			t.Fatalf("messages %q; want the part after the gap", texts(t, got.Messages))
		}
	})
}

// TestStatusListsAsSessionsList: status's sessions are the first rows of
// sessions.list without filters, so `zero status` and `zero sessions`
// never disagree (status once listed the store raw, reserved keys too).
func TestStatusListsAsSessionsList(t *testing.T) {
	f := newFixture(t, "")
	seedSessions(f)
	var listed struct{ Sessions []Row }
	f.call("sessions.list", map[string]any{}).decode(t, &listed)
	var status StatusResult
	f.call("status", map[string]any{}).decode(t, &status)
	keys := func(rows []Row) []string {
		var out []string
		for _, r := range rows {
			out = append(out, r.Key)
		}
		return out
	}
	want := keys(listed.Sessions)
	if len(want) > statusRows {
		want = want[:statusRows]
	}
	if len(want) == 0 {
		t.Fatal("sessions.list listed nothing: the comparison would prove nothing")
	}
	if diff := cmp.Diff(want, keys(status.Sessions)); diff != "" {
		t.Errorf("status sessions differ from sessions.list (-list +status):\n%s", diff)
	}
}
