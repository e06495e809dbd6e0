package turn_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
)

// memQueue is the work queue: it keeps what it was given, dropping a
// message whose dedup id it already holds, as SQS FIFO does in its
// window. enqueued counts every Enqueue, duplicates included.
type memQueue struct {
	mu       sync.Mutex
	queued   []inbound.Message
	enqueued []string
}

func (q *memQueue) Enqueue(_ context.Context, m inbound.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.enqueued = append(q.enqueued, m.ID)
	for _, old := range q.queued {
		if old.QueueDedup() == m.QueueDedup() {
			return nil
		}
	}
	q.queued = append(q.queued, m)
	return nil
}

// sendRig is a sessions rig whose turns queue through the ingest door on
// q, with the caller's own group session and another agent's main
// session stored.
func sendRig(t *testing.T, doc string) (*rig, *memQueue) {
	t.Helper()
	r := sessionsRig(t, doc)
	q := &memQueue{}
	r.proc.Door = ingest.NewDoor(ingest.Deps{Settings: r.settings, Queue: q, Stops: r.store})
	r.seed(t, groupKey, session.Entry{AgentID: "main", Channel: "telegram", ChatType: "group", GroupID: "-100", LastChannel: "telegram", LastTo: "-100"})
	r.seed(t, workKey, session.Entry{AgentID: "work", Channel: "telegram", ChatType: "direct", LastChannel: "telegram", LastTo: "7"})
	return r, q
}

// sendOut is sessions_send's result.
type sendOut struct {
	RunID      string `json:"runId"`
	Status     string `json:"status"`
	SessionKey string `json:"sessionKey"`
	Reply      string `json:"reply"`
	Error      string `json:"error"`
	Note       string `json:"note"`
}

// a2aPrompt is the agent-to-agent context a message from the rig's
// caller (agent:main:main on Telegram) to target carries.
func a2aPrompt(target string) string {
	return "Agent-to-agent message context:\n" +
		"Agent 1 (requester) agent: main.\n" +
		"Agent 1 (requester) session: agent:main:main.\n" +
		"Agent 1 (requester) channel: telegram.\n" +
		"Agent 2 (target) session: " + target + ".\n" +
		"The user message of this run was sent by Agent 1 with sessions_send, not by a person; your reply is kept in this session's transcript."
}

// sentTo is the message a send of text to key from the rig's first
// callTool turn (message callerTurn) queues.
func sentTo(agentID, key, text string) inbound.Message {
	return inbound.Message{
		ID: idOf(key), AgentID: agentID, SessionKey: key, Channel: inbound.Internal, ChatType: inbound.Direct,
		To: "a2a", Text: text, ExtraSystemPrompt: a2aPrompt(key),
		Flow: &inbound.Flow{
			Kind: inbound.FlowSend, ID: idOf(key), Round: 1, MaxTurns: 5,
			Requester: "agent:main:main", RequesterAgent: "main", RequesterChannel: "telegram",
			Target: key, TargetAgent: agentID, Request: text,
		},
	}
}

// callerTurn is the message id of the rig's first callTool turn (after
// sessionsRig's one reply).
const callerTurn = "telegram:42:1001"

// idOf is the id of the first send to key in the turn callerTurn; the
// same on every attempt of that turn.
func idOf(key string) string { return sendIDn(callerTurn, key, 1) }

// TestSessionsSend: fire and forget. A turn whose model calls
// sessions_send queues one message for the target, on the target's
// session (its own FIFO group), with the agent-to-agent context, and gets
// {runId, status: "accepted"} at once; across agents only as
// tools.agentToAgent allows; an unknown target, the caller itself and a
// command are errors that queue nothing.
func TestSessionsSend(t *testing.T) {
	const a2aOn = `{agents: {list: [{id: "main", default: true}, {id: "work"}]}, channels: {telegram: {allowFrom: ["*"]}}, tools: {agentToAgent: {enabled: true}}}`
	tests := []struct {
		name    string
		doc     string
		args    string
		want    *sendOut // nil: an error result
		wantErr string
		queued  []inbound.Message
	}{
		{
			name: "same agent by key, default timeout but no run records: accepted with the note",
			args: `{"sessionKey": "` + groupKey + `", "message": "status please"}`,
			want: &sendOut{RunID: run.NewID(idOf(groupKey)), Status: "accepted", SessionKey: groupKey,
				Note: "not waited for: this deployment keeps no run records; the target's run goes on; its reply comes back to this session in a reply-back round, or read it later with sessions_history"},
			queued: []inbound.Message{sentTo("main", groupKey, "status please")},
		},
		{
			name:   "by sessionId, timeoutSeconds 0: no note",
			args:   `{"sessionKey": "s-agent-main-telegram-group--100", "message": "hi", "timeoutSeconds": 0}`,
			want:   &sendOut{RunID: run.NewID(idOf(groupKey)), Status: "accepted", SessionKey: groupKey},
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
			want:   &sendOut{RunID: run.NewID(idOf(workKey)), Status: "accepted", SessionKey: workKey},
			queued: []inbound.Message{sentTo("work", workKey, "hi")},
		},
		{
			name:   "cross-agent, both agents match allow patterns",
			doc:    strings.Replace(a2aOn, `enabled: true`, `enabled: true, allow: ["main", "w*"]`, 1),
			args:   `{"sessionKey": "` + workKey + `", "message": "hi", "timeoutSeconds": 0}`,
			want:   &sendOut{RunID: run.NewID(idOf(workKey)), Status: "accepted", SessionKey: workKey},
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
			r, q := sendRig(t, doc)
			res := r.callTool(t, "sessions_send", tc.args)
			if tc.want == nil {
				if !res.IsError || res.Content != tc.wantErr {
					t.Errorf("result = %+v; want the error %q", res, tc.wantErr)
				}
			} else {
				var got sendOut
				if res.IsError || json.Unmarshal([]byte(res.Content), &got) != nil {
					t.Fatalf("result = %+v; want {runId, status}", res)
				}
				if diff := cmp.Diff(*tc.want, got); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tc.queued, queuedMessages(q)); diff != "" {
				t.Errorf("queued (-want +got):\n%s", diff)
			}
		})
	}
}

// queuedMessages are q's messages without their receive time.
func queuedMessages(q *memQueue) []inbound.Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []inbound.Message
	for _, m := range q.queued {
		m.ReceivedAt = 0
		out = append(out, m)
	}
	return out
}

// TestSessionsSendTargetRun: the queued message runs as the target
// session's turn, its agent seeing the agent-to-agent context in its
// system prompt; its reply stays in the transcript (channel internal) and
// the target keeps its own channel and chat.
func TestSessionsSendTargetRun(t *testing.T) {
	r, q := sendRig(t, sessionsConfig)
	if res := r.callTool(t, "sessions_send", `{"sessionKey": "`+groupKey+`", "message": "status please", "timeoutSeconds": 0}`); res.IsError {
		t.Fatalf("sessions_send: %s", res.Content)
	}
	sent := len(r.sender.sent)
	target := &scriptModel{answers: []model.Response{final("all green")}}
	r.proc.Models["zero"] = target
	r.handle(t, q.queued[0])

	if len(target.seen) != 1 || !strings.Contains(target.seen[0].System, a2aPrompt(groupKey)) {
		t.Fatalf("the target's model got %+v; want one call with the agent-to-agent context", target.seen)
	}
	if msgs := target.seen[0].Messages; msgs[len(msgs)-1].Content != "status please" {
		t.Errorf("the target's prompt = %q; want the sent message", msgs[len(msgs)-1].Content)
	}
	if len(r.sender.sent) != sent {
		t.Errorf("the target's run sent %+v; want nothing delivered", r.sender.sent[sent:])
	}
	e := r.entry(t, groupKey)
	if got := []string{e.Channel, e.ChatType, e.LastChannel, e.LastTo}; !cmp.Equal(got, []string{"telegram", "group", "telegram", "-100"}) {
		t.Errorf("target's routing = %q; want it kept", got)
	}
}

// stepModel answers from a script of steps, each a response or an error.
type stepModel struct {
	mu    sync.Mutex
	steps []step
	seen  int
}

type step struct {
	resp model.Response
	err  error
}

func (s *stepModel) Complete(context.Context, model.Request) (model.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen >= len(s.steps) {
		return final("out of script"), nil
	}
	st := s.steps[s.seen]
	s.seen++
	return st.resp, st.err
}

func sendCall(id, args string) model.Response {
	return model.Response{StopReason: model.StopToolUse, ToolCalls: []model.ToolCall{{ID: id, Name: "sessions_send", Arguments: args}}}
}

// TestSessionsSendRetriedTurn: a caller turn that dies after its
// sessions_send (here its model fails after the tool ran, so no
// transcript is written) runs again on redelivery and calls the tool
// again, with a new provider call id; the message has the same id both
// times, so the target gets it once. The n-th send of a turn to the same
// target is a message of its own; a redelivery of the finished turn sends
// nothing.
func TestSessionsSendRetriedTurn(t *testing.T) {
	r, q := sendRig(t, sessionsConfig)
	args := `{"sessionKey": "` + groupKey + `", "message": "ping", "timeoutSeconds": 0}`
	r.proc.Models["zero"] = &stepModel{steps: []step{
		{resp: sendCall("call-a", args)},
		{err: fault.New(fault.Unavailable, "model overloaded")},
		{resp: sendCall("call-b", args)},
		{resp: sendCall("call-c", args)},
		{resp: final("sent twice")},
	}}
	m := msg(1000, "tell the group")
	if err := r.proc.Handle(context.Background(), m, 1); err == nil {
		t.Fatal("first attempt: want the model's error")
	}
	if err := r.proc.Handle(context.Background(), m, 2); err != nil {
		t.Fatalf("second attempt: %v", err)
	}
	if err := r.proc.Handle(context.Background(), m, 3); err != nil {
		t.Fatalf("redelivery: %v", err)
	}
	first, second := sendIDn(m.ID, groupKey, 1), sendIDn(m.ID, groupKey, 2)
	if diff := cmp.Diff([]string{first, first, second}, q.enqueued); diff != "" {
		t.Errorf("enqueued ids (-want +got):\n%s", diff)
	}
	var ids []string
	for _, qm := range q.queued {
		ids = append(ids, qm.ID)
	}
	if diff := cmp.Diff([]string{first, second}, ids); diff != "" {
		t.Errorf("queued ids (-want +got):\n%s", diff)
	}
}

// sendIDn is the id of the n-th send to key by the turn of message
// callerID, as the tool derives it (written out here, so a change to the
// derivation, which would requeue messages of turns in flight, is seen).
func sendIDn(callerID, key string, n int) string {
	sum := sha256.Sum256([]byte(callerID + "\x00" + key + "\x00" + strconv.Itoa(n)))
	return "a2a:" + hex.EncodeToString(sum[:16])
}
