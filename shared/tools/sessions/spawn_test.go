package sessions_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools/sessions"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
)

// spawnOut is sessions_spawn's result.
type spawnOut struct {
	Status          string `json:"status"`
	RunID           string `json:"runId"`
	ChildSessionKey string `json:"childSessionKey"`
}

// spawned is the message the caller's turn queues for a spawn of task
// under agentID; edit adjusts the optional fields.
func spawned(agentID, task string, edit func(*inbound.Message)) inbound.Message {
	key := session.SubagentKey(agentID, tooltest.SpawnUUID(callerTurn, 1))
	id := "subagent:" + tooltest.SpawnUUID(callerTurn, 1)
	m := inbound.Message{
		ID: id, AgentID: agentID, SessionKey: key, Channel: inbound.Internal, ChatType: inbound.Direct,
		To: "subagent", Text: task, SpawnedBy: mainKey, ExtraSystemPrompt: tooltest.SubagentPrompt(""),
		Flow: &inbound.Flow{
			Kind: inbound.FlowSubagent, ID: id, Requester: mainKey, RequesterAgent: "main", RequesterChannel: "telegram",
			Target: key, TargetAgent: agentID, Request: task, Route: &inbound.Route{Channel: "telegram", To: "7"}, Cleanup: "keep",
		},
	}
	if edit != nil {
		edit(&m)
	}
	return m
}

// TestSessionsSpawn: the tool queues the task as the first message of a
// new sub-agent session (internal channel, the requester's route in its
// flow) and answers {status: "accepted", runId, childSessionKey} at once;
// agentId follows agents.list[].subagents.allowAgents, model must name a
// provider the deployment has; bad arguments queue nothing.
func TestSessionsSpawn(t *testing.T) {
	const allowWork = `{agents: {list: [{id: "main", default: true, subagents: {allowAgents: ["work"]}}, {id: "work"}]}, channels: {telegram: {allowFrom: ["*"]}}}`
	const allowAny = `{agents: {list: [{id: "main", default: true, subagents: {allowAgents: ["*"]}}, {id: "work"}]}, channels: {telegram: {allowFrom: ["*"]}}}`
	tests := []struct {
		name    string
		doc     string
		args    string
		queued  *inbound.Message // nil: an error result, nothing queued
		wantErr string
	}{
		{name: "task only: own agent, keep, no model", args: `{"task": "sum the logs"}`,
			queued: ptr(spawned("main", "sum the logs", nil))},
		{name: "every option", args: `{"task": "t", "label": "logs", "model": "zero/big", "runTimeoutSeconds": 30, "cleanup": "delete"}`,
			queued: ptr(spawned("main", "t", func(m *inbound.Message) {
				m.Label, m.Model, m.TimeoutSeconds, m.ExtraSystemPrompt = "logs", "zero/big", 30, tooltest.SubagentPrompt("logs")
				m.Flow.Label, m.Flow.Cleanup = "logs", "delete"
			}))},
		{name: "another agent, allowed", doc: allowWork, args: `{"task": "t", "agentId": "Work"}`,
			queued: ptr(spawned("work", "t", nil))},
		{name: "another agent, any allowed", doc: allowAny, args: `{"task": "t", "agentId": "work"}`,
			queued: ptr(spawned("work", "t", nil))},
		{name: "another agent, not allowed", args: `{"task": "t", "agentId": "work"}`,
			wantErr: `agentId "work" is not allowed: agent "main" may start sub-agents only under "main" (agents.list[].subagents.allowAgents; agents_list shows them)`},
		{name: "a provider the deployment lacks", args: `{"task": "t", "model": "openai/gpt-5"}`,
			wantErr: `model "openai/gpt-5" is not available: this deployment has no "openai" provider (it has "zero")`},
		{name: "not a model", args: `{"task": "t", "model": "gpt"}`,
			wantErr: `model "gpt" is not valid: give "provider/model" or an alias of agents.defaults.models`},
		{name: "bad cleanup", args: `{"task": "t", "cleanup": "archive"}`,
			wantErr: `cleanup must be "delete" or "keep", got "archive"`},
		{name: "blank task", args: `{"task": " "}`, wantErr: "task is required and must not be blank"},
		{name: "a command", args: `{"task": "/new"}`,
			wantErr: `task must not be a command (it starts with "/"): describe the work for the sub-agent`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.doc
			if doc == "" {
				doc = sessionsConfig
			}
			r := sendRig(t, doc)
			res := tooltest.Call(t, sessions.NewSpawnTool(r.run(t)), tc.args)
			var want []inbound.Message
			if tc.queued == nil {
				if !res.IsError || res.Content != tc.wantErr {
					t.Errorf("result = %+v; want the error %q", res, tc.wantErr)
				}
			} else {
				want = []inbound.Message{*tc.queued}
				var got spawnOut
				if res.IsError || json.Unmarshal([]byte(res.Content), &got) != nil {
					t.Fatalf("result = %+v; want {status, runId, childSessionKey}", res)
				}
				wantOut := spawnOut{Status: "accepted", RunID: run.NewID(tc.queued.ID), ChildSessionKey: tc.queued.SessionKey}
				if diff := cmp.Diff(wantOut, got); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
				key, runID, ok := sessions.SpawnedChild(res.Content)
				if !ok || key != got.ChildSessionKey || runID != got.RunID {
					t.Errorf("SpawnedChild = %q, %q, %v; want the child of the result", key, runID, ok)
				}
			}
			if diff := cmp.Diff(want, r.queue.messages()); diff != "" {
				t.Errorf("queued (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestSubagentCannotSpawn: sessions_spawn called from a sub-agent session
// anyway (the policy never offers it) is a clear error.
func TestSubagentCannotSpawn(t *testing.T) {
	r := sendRig(t, sessionsConfig)
	r.caller.SessionKey = session.SubagentKey("main", "abc")
	res := tooltest.Call(t, sessions.NewSpawnTool(r.run(t)), `{"task": "more"}`)
	if !res.IsError || !strings.Contains(res.Content, "sessions_spawn") {
		t.Errorf("result = %+v; want an error", res)
	}
	if n := len(r.queue.messages()); n != 0 {
		t.Errorf("%d messages queued; want none", n)
	}
}
