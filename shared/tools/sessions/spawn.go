package sessions

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
)

// subagentTo is the To of a sub-agent's message: it is on channel
// internal, so its reply is delivered nowhere; its result reaches the
// requester through the engine's announce.
const subagentTo = "subagent"

// maxSpawnRunSeconds bounds runTimeoutSeconds (a day; the run's own limit,
// agents.defaults.timeoutSeconds, still applies).
const maxSpawnRunSeconds = 86400

// SpawnTool is sessions_spawn (the session tools page): it queues the
// task as the first message of a new sub-agent session,
// agent:<agentId>:subagent:<uuid>, through the ingest door, and answers
// at once; the engine announces the sub-agent's result to the
// requester's chat when its run ends (inbound.FlowSubagent). Never
// blocking: the caller's turn never waits on the child.
type SpawnTool struct {
	ingress tools.Ingress
	view    view
	caller  inbound.Message // the caller's turn's message
	entry   session.Entry   // the caller's session entry
	models  map[string]model.Client
	now     func() time.Time
	spawns  *tools.Counter // numbers the run's spawns (key "")
	spawned *spawnLog      // the run's spawns, which subagents and sessions_yield read
}

// NewSpawnTool is sessions_spawn of run, queueing through run.Ingress
// (which must be set).
func NewSpawnTool(run tools.Run) SpawnTool {
	return SpawnTool{ingress: run.Ingress, view: viewOf(run), caller: run.Message, entry: run.Entry, models: run.Models, now: run.Now, spawns: &tools.Counter{}, spawned: spawnsOf(run)}
}

type spawnArgs struct {
	Task              string        `json:"task"`
	Label             string        `json:"label"`
	AgentID           string        `json:"agentId"`
	Model             string        `json:"model"`
	RunTimeoutSeconds *tools.Number `json:"runTimeoutSeconds"`
	Cleanup           string        `json:"cleanup"`
}

// spawnResult is sessions_spawn's answer.
type spawnResult struct {
	Status          string `json:"status"` // "accepted"
	RunID           string `json:"runId"`
	ChildSessionKey string `json:"childSessionKey"`
}

const spawnSchema = `{"type":"object","properties":{` +
	`"task":{"type":"string","description":"what the sub-agent must do; its final reply is announced to this chat"},` +
	`"label":{"type":"string","description":"a short name for logs and the announce"},` +
	`"agentId":{"type":"string","description":"run under another agent id (agents_list shows the allowed ones); default this agent"},` +
	`"model":{"type":"string","description":"the sub-agent's model, \"provider/model\" or a catalog alias; default the agent's"},` +
	`"runTimeoutSeconds":{"type":"integer","minimum":0,"description":"abort the sub-agent's run after N seconds (default 0: no limit of its own)"},` +
	`"cleanup":{"type":"string","enum":["delete","keep"],"description":"delete the sub-agent session right after its announce, or keep it (default)"}` +
	`},"required":["task"],"additionalProperties":false}`

// Spec implements tools.Tool.
func (SpawnTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: SpawnName,
		Description: "Start a sub-agent on a task in a new isolated session. Returns {status: \"accepted\", runId, childSessionKey} at once; " +
			"when the sub-agent finishes, its result is posted to this chat (Status / Result / Notes and a stats line).",
		Schema: json.RawMessage(spawnSchema),
	}
}

// Run validates the arguments and queues the child's first message. The
// child's key and message id derive from the caller's message id and the
// spawn's ordinal in the run (spawnID), so a retried turn that calls the
// tool again queues the same message, which the queue and the child's
// message record deduplicate. Errors queue nothing.
func (s SpawnTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	if session.IsSubagent(s.caller.SessionKey) {
		return "", errors.New("sessions_spawn is not available to a sub-agent: sub-agents cannot start sub-agents; do the work yourself and reply with the result")
	}
	var a spawnArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be {task: string, label?: string, agentId?: string, model?: string, runTimeoutSeconds?: number, cleanup?: \"delete\"|\"keep\"}: %v", err)
	}
	m, err := s.childMessage(a)
	if err != nil {
		return "", err
	}
	runID, err := s.ingress.Queue(ctx, m)
	if err != nil {
		return "", fmt.Errorf("queue the sub-agent's task for %s: %w", m.SessionKey, err)
	}
	s.spawned.add(child{Key: m.SessionKey, RunID: runID, Task: a.Task, Label: m.Label})
	return tools.JSONResult(spawnResult{Status: "accepted", RunID: runID, ChildSessionKey: m.SessionKey})
}

// childMessage checks a and builds the child's first message.
func (s SpawnTool) childMessage(a spawnArgs) (inbound.Message, error) {
	if err := checkText("task", a.Task, "describe the work for the sub-agent"); err != nil {
		return inbound.Message{}, err
	}
	target, err := spawnAgent(s.view, a.AgentID)
	if err != nil {
		return inbound.Message{}, err
	}
	ref, err := s.spawnModel(a.Model)
	if err != nil {
		return inbound.Message{}, err
	}
	cleanup := strings.ToLower(strings.TrimSpace(a.Cleanup))
	if cleanup == "" {
		cleanup = inbound.CleanupKeep
	}
	if cleanup != inbound.CleanupKeep && cleanup != inbound.CleanupDelete {
		return inbound.Message{}, fmt.Errorf("cleanup must be \"delete\" or \"keep\", got %q", a.Cleanup)
	}
	key := session.SubagentKey(target, spawnID(s.caller.ID, s.spawns.Next("")))
	now := s.now().UnixMilli()
	label := strings.TrimSpace(a.Label)
	m := inbound.Message{
		ID: SubagentMessageID(key), AgentID: target, SessionKey: key,
		Channel: inbound.Internal, ChatType: inbound.Direct, To: subagentTo,
		Text: a.Task, ReceivedAt: now, Label: label, SpawnedBy: s.caller.SessionKey,
		TimeoutSeconds:    int64(tools.Clamp(a.RunTimeoutSeconds, 0, 0, maxSpawnRunSeconds)),
		ExtraSystemPrompt: subagentContext(s.view.agentID, s.caller, label),
	}
	if ref.Provider != "" {
		m.Model = ref.String()
	}
	m.Flow = &inbound.Flow{
		Kind: inbound.FlowSubagent, ID: m.ID,
		Requester: s.caller.SessionKey, RequesterAgent: s.view.agentID, RequesterChannel: s.caller.Channel,
		Target: key, TargetAgent: target, Request: a.Task,
		Route: spawnRoute(s.caller, s.entry), Label: label, Cleanup: cleanup, StartedAt: now,
	}
	return m, nil
}

// spawnAgent is the agent a spawn runs under: the caller's own when
// agentID is blank, else agentID when agents.list[].subagents.allowAgents
// of the caller's agent names it ("*": any agent).
func spawnAgent(v view, agentID string) (string, error) {
	raw := strings.TrimSpace(agentID)
	if raw == "" {
		return v.agentID, nil
	}
	id := session.NormalizeAgentID(raw)
	allowed := spawnableAgents(v)
	if id == v.agentID || allowed.AllowAny {
		return id, nil
	}
	for _, a := range allowed.Agents {
		if a.ID == id {
			return id, nil
		}
	}
	return "", fmt.Errorf("agentId %q is not allowed: agent %q may start sub-agents only under %s (agents.list[].subagents.allowAgents; agents_list shows them)",
		raw, v.agentID, agentIDs(allowed.Agents))
}

func agentIDs(agents []agentChoice) string {
	ids := make([]string, len(agents))
	for i, a := range agents {
		ids[i] = strconv.Quote(a.ID)
	}
	return strings.Join(ids, ", ")
}

// spawnModel resolves the model argument: "" is none (the child's
// agent's model applies), an alias or a listed model as the
// configuration spells it (config.ResetModel), else "provider/model" as
// written; who may name a model outside that allowlist is the gate's
// business (SpawnReach). The provider must be one this deployment has a
// client for.
func (s SpawnTool) spawnModel(raw string) (model.Ref, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return model.Ref{}, nil
	}
	ref, ok := s.view.cfg.ResetModel(raw, false)
	if !ok {
		var err error
		if ref, err = model.ParseRef(raw); err != nil {
			return model.Ref{}, fmt.Errorf("model %q is not valid: give \"provider/model\" or an alias of agents.defaults.models", raw)
		}
	}
	if _, ok := s.models[ref.Provider]; !ok {
		providers := make([]string, 0, len(s.models))
		for name := range s.models {
			providers = append(providers, strconv.Quote(name))
		}
		slices.Sort(providers)
		return model.Ref{}, fmt.Errorf("model %q is not available: this deployment has no %q provider (it has %s)", raw, ref.Provider, strings.Join(providers, ", "))
	}
	return ref, nil
}

// spawnRoute is where the child's announce goes, captured at spawn time:
// the caller's chat (its message's route) when the caller talks on a
// channel; for an internal caller (an API run, an agent-to-agent step)
// the caller session's delivery context when it has an external one;
// else nil, and the engine skips the announce (and logs it).
func spawnRoute(caller inbound.Message, e session.Entry) *inbound.Route {
	if caller.Channel != inbound.Internal && caller.Channel != "" && caller.To != "" {
		return &inbound.Route{Channel: caller.Channel, To: caller.To, AccountID: caller.AccountID, ThreadID: caller.ThreadID}
	}
	d := e.DeliveryContext
	if d.Channel == "" || d.Channel == inbound.Internal || d.To == "" {
		return nil
	}
	return &inbound.Route{Channel: d.Channel, To: d.To, AccountID: d.AccountID, ThreadID: d.ThreadID}
}

// spawnID is the uuid of the n-th sub-agent the turn of message callerID
// spawns: the same on every attempt of the turn. It does not use the
// provider's tool call id, which a model called again on a retry does not
// repeat.
func spawnID(callerID string, n int) string {
	sum := sha256.Sum256([]byte("zero-subagent:" + callerID + "\x00" + strconv.Itoa(n)))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// SubagentMessageID is the id of the first message of the sub-agent
// session key (its task): "subagent:<uuid>". It derives from the key
// alone, so the run it starts (run.NewID of it) is known from the key.
func SubagentMessageID(key string) string {
	i := strings.LastIndex(key, ":subagent:")
	if i < 0 {
		return "subagent:" + key
	}
	return "subagent:" + key[i+len(":subagent:"):]
}

// subagentContext is the extra system prompt of a sub-agent's run.
func subagentContext(requesterAgent string, caller inbound.Message, label string) string {
	lines := []string{
		"Sub-agent context:",
		fmt.Sprintf("You are a sub-agent working for agent %s, session %s.", requesterAgent, caller.SessionKey),
	}
	if label != "" {
		lines = append(lines, "Task label: "+label+".")
	}
	return strings.Join(append(lines,
		"The user message of this run is the task it gave you, not a person's message.",
		"Your final reply is announced to the requester's chat as the result of the task: make it complete and self-contained.",
		"If nothing should be announced, reply exactly "+inbound.AnnounceSkip+".",
		"You cannot start sub-agents of your own.",
	), "\n")
}

// SpawnedChild reads the text of a successful sessions_spawn result: the
// child session's key and the run its task starts; ok is false for any
// other text. The engine's /stop finds the sub-agents a session started
// with it.
func SpawnedChild(result string) (key, runID string, ok bool) {
	var res spawnResult
	if json.Unmarshal([]byte(result), &res) != nil || !session.IsSubagent(res.ChildSessionKey) {
		return "", "", false
	}
	return res.ChildSessionKey, res.RunID, true
}
