package turn_test

// The session tools (shared/tools/sessions) as the engine offers and runs
// them: which are offered, the sandbox's view from the tool policy, a
// sent message and a spawned task run as the target's turns, a retried
// turn sending once. The tools' own behaviour is tested in their package.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
)

// sessionsConfig has two agents; Telegram admits everyone.
const sessionsConfig = `{agents: {list: [{id: "main", default: true}, {id: "work", name: "Work bot"}]}, channels: {telegram: {allowFrom: ["*"], owners: ["*"]}}}`

// sessionsRig is a rig with zero.json doc whose store reads other
// sessions (sessions.Reader), after one turn on the caller's session,
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
	m := msg(1000+len(r.sender.Sent), "go")
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

// list calls sessions_list and decodes its rows.
func (r *rig) list(t *testing.T, args string) tooltest.ListOut {
	t.Helper()
	return tooltest.ListResult(t, args, r.callTool(t, "sessions_list", args))
}

// seedSessions stores tooltest.SeedSessions' sessions in r and returns
// the rows they list as.
func seedSessions(t *testing.T, r *rig) []string {
	t.Helper()
	return tooltest.SeedSessions(func(key string, e session.Entry) { r.seed(t, key, e) }, r.ago)
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
			r := sessionsRig(t, `{agents: {`+tt.agents+`}, channels: {telegram: {allowFrom: ["*"], owners: ["*"]}}}`)
			all := seedSessions(t, r)
			if diff := cmp.Diff(tt.wantRows(all), tooltest.Summary(r.list(t, `{}`).Sessions)); diff != "" {
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

// callerTurn is the message id of the rig's first callTool turn (after
// sessionsRig's one reply).
const callerTurn = "telegram:42:1001"

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

// TestSessionsSendTargetRun: the queued message runs as the target
// session's turn, its agent seeing the agent-to-agent context in its
// system prompt; its reply stays in the transcript (channel internal) and
// the target keeps its own channel and chat.
func TestSessionsSendTargetRun(t *testing.T) {
	r, q := sendRig(t, sessionsConfig)
	if res := r.callTool(t, "sessions_send", `{"sessionKey": "`+groupKey+`", "message": "status please", "timeoutSeconds": 0}`); res.IsError {
		t.Fatalf("sessions_send: %s", res.Content)
	}
	sent := len(r.sender.Sent)
	target := &scriptModel{answers: []model.Response{final("all green")}}
	r.proc.Models["zero"] = target
	r.handle(t, q.queued[0])

	if len(target.seen) != 1 || !strings.Contains(target.seen[0].System, tooltest.A2APrompt(groupKey)) {
		t.Fatalf("the target's model got %+v; want one call with the agent-to-agent context", target.seen)
	}
	if msgs := target.seen[0].Messages; msgs[len(msgs)-1].Content != "status please" {
		t.Errorf("the target's prompt = %q; want the sent message", msgs[len(msgs)-1].Content)
	}
	if len(r.sender.Sent) != sent {
		t.Errorf("the target's run sent %+v; want nothing delivered", r.sender.Sent[sent:])
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

// TestSubagentRun: the queued task runs as the child session's turn: its
// model sees the sub-agent context, the spawn's model answers (the
// session's override), the entry records label, spawnedBy and its archive
// time, nothing is delivered, and the sub-agent is offered no session
// tools and cannot spawn.
func TestSubagentRun(t *testing.T) {
	// zero/big is listed: anyone may choose it (the gate: tools.ModelReach).
	r, q := sendRig(t, `{agents: {defaults: {models: {"zero/big": {}}}, list: [{id: "main", default: true}, {id: "work", name: "Work bot"}]}, channels: {telegram: {allowFrom: ["*"]}}}`)
	big := &scriptModel{answers: []model.Response{final("done")}}
	if res := r.callTool(t, "sessions_spawn", `{"task": "count", "label": "c", "model": "zero/big"}`); res.IsError {
		t.Fatalf("sessions_spawn: %s", res.Content)
	}
	r.proc.Models["zero"] = big
	sent := len(r.sender.Sent)
	child := q.queued[0]
	r.handle(t, child)

	if len(big.seen) != 1 || big.seen[0].Model != "big" || !strings.Contains(big.seen[0].System, tooltest.SubagentPrompt("c")) {
		t.Fatalf("the child's model got %+v; want one call of model big with the sub-agent context", big.seen)
	}
	var tools []string
	for _, s := range big.seen[0].Tools {
		tools = append(tools, s.Name)
	}
	if diff := cmp.Diff([]string{"session_status", "agents_list"}, tools); diff != "" {
		t.Errorf("the sub-agent's tools (-want +got):\n%s", diff)
	}
	if len(r.sender.Sent) != sent {
		t.Errorf("the child's run sent %+v; want nothing delivered", r.sender.Sent[sent:])
	}
	e := r.entry(t, child.SessionKey)
	got := []string{e.ProviderOverride, e.ModelOverride, e.Label, e.SpawnedBy}
	if diff := cmp.Diff([]string{"zero", "big", "c", "agent:main:main"}, got); diff != "" {
		t.Errorf("child entry (-want +got):\n%s", diff)
	}
	if e.ArchiveAt-e.UpdatedAt < 60*60_000 || e.ArchiveAt-e.UpdatedAt > 60*60_000+10_000 {
		t.Errorf("ArchiveAt = UpdatedAt + %d ms; want about 60 minutes (the default archiveAfterMinutes)", e.ArchiveAt-e.UpdatedAt)
	}
}

// TestSubagentArchiveSetting: archiveAfterMinutes 0 never archives; other
// sessions never carry ArchiveAt.
func TestSubagentArchiveSetting(t *testing.T) {
	r, q := sendRig(t, `{agents: {defaults: {subagents: {archiveAfterMinutes: 0}}}, channels: {telegram: {allowFrom: ["*"]}}}`)
	if res := r.callTool(t, "sessions_spawn", `{"task": "count"}`); res.IsError {
		t.Fatalf("sessions_spawn: %s", res.Content)
	}
	r.handle(t, q.queued[0])
	if e := r.entry(t, q.queued[0].SessionKey); e.ArchiveAt != 0 {
		t.Errorf("child ArchiveAt = %d; want 0 (never)", e.ArchiveAt)
	}
	if e := r.entry(t, "agent:main:main"); e.ArchiveAt != 0 {
		t.Errorf("main ArchiveAt = %d; want 0", e.ArchiveAt)
	}
}
