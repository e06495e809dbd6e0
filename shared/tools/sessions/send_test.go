package sessions_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools/sessions"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
)

// sendRig is a rig with the caller's own group session and another
// agent's main session stored.
func sendRig(t *testing.T, doc string) *rig {
	t.Helper()
	r := newRig(t, doc)
	r.seed(t, groupKey, session.Entry{AgentID: "main", Channel: "telegram", ChatType: "group", GroupID: "-100", LastChannel: "telegram", LastTo: "-100"})
	r.seed(t, workKey, session.Entry{AgentID: "work", Channel: "telegram", ChatType: "direct", LastChannel: "telegram", LastTo: "7"})
	return r
}

// sentTo is the message a send of text to key from the caller's turn
// queues.
func sentTo(agentID, key, text string) inbound.Message {
	return inbound.Message{
		ID: idOf(key), AgentID: agentID, SessionKey: key, Channel: inbound.Internal, ChatType: inbound.Direct,
		To: "a2a", Text: text, ExtraSystemPrompt: tooltest.A2APrompt(key),
		Flow: &inbound.Flow{
			Kind: inbound.FlowSend, ID: idOf(key), Round: 1, MaxTurns: 5,
			Requester: mainKey, RequesterAgent: "main", RequesterChannel: "telegram",
			Target: key, TargetAgent: agentID, Request: text,
		},
	}
}

// idOf is the id of the first send to key in the turn callerTurn; the
// same on every attempt of that turn.
func idOf(key string) string { return sendIDn(callerTurn, key, 1) }

// sendIDn is the id of the n-th send to key by the turn of message
// callerID, as the tool derives it (written out here, so a change to the
// derivation, which would requeue messages of turns in flight, is seen).
func sendIDn(callerID, key string, n int) string {
	sum := sha256.Sum256([]byte(callerID + "\x00" + key + "\x00" + strconv.Itoa(n)))
	return "a2a:" + hex.EncodeToString(sum[:16])
}

// TestSessionsSend: fire and forget. sessions_send queues one message for
// the target, on the target's session (its own FIFO group), with the
// agent-to-agent context, and answers {runId, status: "accepted"} at
// once; across agents only as tools.agentToAgent allows; an unknown
// target, the caller itself and a command are errors that queue nothing.
func TestSessionsSend(t *testing.T) {
	const a2aOn = `{agents: {list: [{id: "main", default: true}, {id: "work"}]}, channels: {telegram: {allowFrom: ["*"]}}, tools: {agentToAgent: {enabled: true}}}`
	tests := []struct {
		name    string
		doc     string
		args    string
		want    *tooltest.SendOut // nil: an error result
		wantErr string
		queued  []inbound.Message
	}{
		{
			name: "same agent by key, default timeout but no run records: accepted with the note",
			args: `{"sessionKey": "` + groupKey + `", "message": "status please"}`,
			want: &tooltest.SendOut{RunID: run.NewID(idOf(groupKey)), Status: "accepted", SessionKey: groupKey,
				Note: "not waited for: this deployment keeps no run records; the target's run goes on; its reply comes back to this session in a reply-back round, or read it later with sessions_history"},
			queued: []inbound.Message{sentTo("main", groupKey, "status please")},
		},
		{
			name:   "by sessionId, timeoutSeconds 0: no note",
			args:   `{"sessionKey": "s-agent-main-telegram-group--100", "message": "hi", "timeoutSeconds": 0}`,
			want:   &tooltest.SendOut{RunID: run.NewID(idOf(groupKey)), Status: "accepted", SessionKey: groupKey},
			queued: []inbound.Message{sentTo("main", groupKey, "hi")},
		},
		{
			name:    "cross-agent without tools.agentToAgent: refused",
			args:    `{"sessionKey": "` + workKey + `", "message": "hi", "timeoutSeconds": 0}`,
			wantErr: `sending to agent "work"'s sessions is refused: agent-to-agent messaging is disabled (set tools.agentToAgent.enabled to true to allow cross-agent sends)`,
		},
		{
			name:   "cross-agent with tools.agentToAgent enabled",
			doc:    a2aOn,
			args:   `{"sessionKey": "` + workKey + `", "message": "hi", "timeoutSeconds": 0}`,
			want:   &tooltest.SendOut{RunID: run.NewID(idOf(workKey)), Status: "accepted", SessionKey: workKey},
			queued: []inbound.Message{sentTo("work", workKey, "hi")},
		},
		{
			name:   "cross-agent, both agents match allow patterns",
			doc:    strings.Replace(a2aOn, `enabled: true`, `enabled: true, allow: ["main", "w*"]`, 1),
			args:   `{"sessionKey": "` + workKey + `", "message": "hi", "timeoutSeconds": 0}`,
			want:   &tooltest.SendOut{RunID: run.NewID(idOf(workKey)), Status: "accepted", SessionKey: workKey},
			queued: []inbound.Message{sentTo("work", workKey, "hi")},
		},
		{
			name:    "cross-agent, the requester not in allow",
			doc:     strings.Replace(a2aOn, `enabled: true`, `enabled: true, allow: ["work"]`, 1),
			args:    `{"sessionKey": "` + workKey + `", "message": "hi"}`,
			wantErr: `sending from agent "main" to agent "work" is refused: "main" is not in tools.agentToAgent.allow`,
		},
		{
			name:    "unknown target",
			doc:     a2aOn,
			args:    `{"sessionKey": "agent:main:telegram:group:nope", "message": "hi"}`,
			wantErr: `no session "agent:main:telegram:group:nope": give a session key (as sessions are listed) or a sessionId`,
		},
		{
			name:    "unknown sessionId",
			args:    `{"sessionKey": "no-such-id", "message": "hi"}`,
			wantErr: `no session "no-such-id": give a session key (as sessions are listed) or a sessionId`,
		},
		{
			name:    "itself",
			args:    `{"sessionKey": "main", "message": "hi"}`,
			wantErr: "sessionKey names this session: answer in your reply instead of sending to yourself",
		},
		{
			name:    "a command",
			args:    `{"sessionKey": "` + groupKey + `", "message": " /stop"}`,
			wantErr: `message must not be a command (it starts with "/"): another session's commands are not the agent's to run`,
		},
		{
			name:    "blank message",
			args:    `{"sessionKey": "` + groupKey + `", "message": "  "}`,
			wantErr: "message is required and must not be blank",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.doc
			if doc == "" {
				doc = sessionsConfig
			}
			r := sendRig(t, doc)
			res := tooltest.Call(t, sessions.NewSendTool(r.run(t), r.store, nil), tc.args)
			if tc.want == nil {
				if !res.IsError || res.Content != tc.wantErr {
					t.Errorf("result = %+v; want the error %q", res, tc.wantErr)
				}
			} else {
				var got tooltest.SendOut
				if res.IsError || json.Unmarshal([]byte(res.Content), &got) != nil {
					t.Fatalf("result = %+v; want {runId, status}", res)
				}
				if diff := cmp.Diff(*tc.want, got); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tc.queued, r.queue.messages()); diff != "" {
				t.Errorf("queued (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSessionsSendNumbersItsSends: the n-th send of a turn to the same
// target is a message of its own, with the n-th id; a tool built again
// for a retried turn starts from the first id again.
func TestSessionsSendNumbersItsSends(t *testing.T) {
	r := sendRig(t, sessionsConfig)
	args := `{"sessionKey": "` + groupKey + `", "message": "ping", "timeoutSeconds": 0}`
	tl := sessions.NewSendTool(r.run(t), r.store, nil)
	for range 2 {
		if res := tooltest.Call(t, tl, args); res.IsError {
			t.Fatalf("sessions_send: %s", res.Content)
		}
	}
	if res := tooltest.Call(t, sessions.NewSendTool(r.run(t), r.store, nil), args); res.IsError {
		t.Fatalf("sessions_send of the retried turn: %s", res.Content)
	}
	var ids []string
	for _, m := range r.queue.messages() {
		ids = append(ids, m.ID)
	}
	if diff := cmp.Diff([]string{sendIDn(callerTurn, groupKey, 1), sendIDn(callerTurn, groupKey, 2)}, ids); diff != "" {
		t.Errorf("queued ids (-want +got):\n%s", diff)
	}
}
