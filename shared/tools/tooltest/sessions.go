package tooltest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// The session tools (shared/tools/sessions) as their tests and the
// engine's see them from the caller agent:main:main on Telegram, with a
// group session and agent work's main session besides.
const (
	mainKey  = "agent:main:main"
	groupKey = "agent:main:telegram:group:-100"
	workKey  = "agent:work:main"
)

// ListOut is sessions_list's result.
type ListOut struct {
	Count     int           `json:"count"`
	Sessions  []session.Row `json:"sessions"`
	Truncated bool          `json:"truncated"`
}

// ListResult decodes res, the result of sessions_list(args); it fails t
// when res holds no rows.
func ListResult(t *testing.T, args string, res model.Message) ListOut {
	t.Helper()
	var out ListOut
	if res.IsError || json.Unmarshal([]byte(res.Content), &out) != nil || out.Count != len(out.Sessions) {
		t.Fatalf("sessions_list(%s) = %+v; want rows", args, res)
	}
	return out
}

// Summary is "key kind channel" per row.
func Summary(rows []session.Row) []string {
	out := []string{}
	for _, r := range rows {
		out = append(out, r.Key+" "+r.Kind+" "+r.Channel)
	}
	return out
}

// SeedSessions stores with seed sessions of both agents, of every kind,
// and the reserved keys, updated ago before the clock, and returns the
// rows they list as (newest first; the caller's own session comes first,
// shown as "main").
func SeedSessions(seed func(key string, e session.Entry), ago func(time.Duration) int64) []string {
	for _, s := range []struct {
		key string
		e   session.Entry
	}{
		{groupKey, session.Entry{AgentID: "main", Channel: "telegram", ChatType: "group", DisplayName: "Team", LastChannel: "telegram", UpdatedAt: ago(time.Minute)}},
		{"cron:nightly", session.Entry{AgentID: "main", UpdatedAt: ago(2 * time.Minute)}},
		{workKey, session.Entry{AgentID: "work", LastChannel: "telegram", UpdatedAt: ago(3 * time.Minute)}},
		{"hook:abc", session.Entry{AgentID: "work", UpdatedAt: ago(10 * time.Minute)}},
		{"node-pi", session.Entry{AgentID: "main", UpdatedAt: ago(30 * time.Minute)}},
		{"agent:main:telegram:dm:9", session.Entry{AgentID: "main", LastChannel: "discord", UpdatedAt: ago(2 * time.Hour)}},
		{"agent:main:subagent:u1", session.Entry{AgentID: "main", SpawnedBy: mainKey, UpdatedAt: ago(3 * time.Hour)}},
		{"agent:work:subagent:u2", session.Entry{AgentID: "work", SpawnedBy: mainKey, UpdatedAt: ago(4 * time.Hour)}},
		{"agent:main:subagent:u3", session.Entry{AgentID: "main", SpawnedBy: "agent:main:telegram:dm:9", UpdatedAt: ago(5 * time.Hour)}},
		{"unknown", session.Entry{AgentID: "main", UpdatedAt: ago(0)}},
		{"global", session.Entry{AgentID: "main", UpdatedAt: ago(0)}},
	} {
		seed(s.key, s.e)
	}
	return []string{
		"main main telegram", groupKey + " group telegram", "cron:nightly cron internal", workKey + " main telegram",
		"hook:abc hook internal", "node-pi node internal", "agent:main:telegram:dm:9 other discord",
		"agent:main:subagent:u1 other unknown", "agent:work:subagent:u2 other unknown", "agent:main:subagent:u3 other unknown",
	}
}

// SendOut is sessions_send's result.
type SendOut struct {
	RunID      string `json:"runId"`
	Status     string `json:"status"`
	SessionKey string `json:"sessionKey"`
	Reply      string `json:"reply"`
	Error      string `json:"error"`
	Note       string `json:"note"`
}

// A2APrompt is the agent-to-agent context a message from the caller
// (agent:main:main on Telegram) to target carries.
func A2APrompt(target string) string {
	return "Agent-to-agent message context:\n" +
		"Agent 1 (requester) agent: main.\n" +
		"Agent 1 (requester) session: " + mainKey + ".\n" +
		"Agent 1 (requester) channel: telegram.\n" +
		"Agent 2 (target) session: " + target + ".\n" +
		"The user message of this run was sent by Agent 1 with sessions_send, not by a person; your reply is kept in this session's transcript."
}

// SpawnUUID is the uuid of the n-th spawn of the turn of message
// callerID, as sessions_spawn derives it (written out here, so a change
// to the derivation, which would spawn a retried turn's sub-agents twice,
// is seen).
func SpawnUUID(callerID string, n int) string {
	sum := sha256.Sum256([]byte("zero-subagent:" + callerID + "\x00" + strconv.Itoa(n)))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// SubagentPrompt is the extra system prompt of a sub-agent spawned by the
// caller (agent main, session agent:main:main).
func SubagentPrompt(label string) string {
	lines := []string{"Sub-agent context:", "You are a sub-agent working for agent main, session " + mainKey + "."}
	if label != "" {
		lines = append(lines, "Task label: "+label+".")
	}
	return strings.Join(append(lines,
		"The user message of this run is the task it gave you, not a person's message.",
		"Your final reply is announced to the requester's chat as the result of the task: make it complete and self-contained.",
		"If nothing should be announced, reply exactly ANNOUNCE_SKIP.",
		"You cannot start sub-agents of your own."), "\n")
}
