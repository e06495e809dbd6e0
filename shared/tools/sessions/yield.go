package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/tools"
)

// YieldTool is sessions_yield (upstream's): it ends the current turn
// after spawning sub-agents, and their results arrive as the next
// message. Serverless: the agent loop ends the run after the round that
// called it (agent.Yielded), the turn commits with no reply, and a
// finished child's announce is queued on the session's own FIFO group,
// where it runs after this turn and becomes the session's next turn
// instead of an announce (turn: passResult, subagentResult), so that turn
// answers with the result.
// It refuses when no child is running: there is nothing to wait for.
type YieldTool struct {
	run     tools.Run
	spawned *spawnLog
	runs    run.Getter // nil: every child reads as running
}

// NewYieldTool is sessions_yield of run, reading child runs from runs.
func NewYieldTool(run tools.Run, runs run.Getter) YieldTool {
	return YieldTool{run: run, spawned: spawnsOf(run), runs: runs}
}

type yieldArgs struct {
	Message string `json:"message"`
}

// yieldResult is sessions_yield's answer (upstream's shape).
type yieldResult struct {
	Status  string `json:"status"` // "yielded"
	Message string `json:"message"`
}

const yieldSchema = `{"type":"object","properties":{` +
	`"message":{"type":"string","description":"a note for the record (default \"Turn yielded.\")"}` +
	`},"additionalProperties":false}`

// Spec implements tools.Tool.
func (YieldTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: YieldName,
		Description: "End the current turn after spawning sub-agents; their results arrive as the next message. " +
			"Sub-agents only: cron jobs do not resume the session.",
		Schema: json.RawMessage(yieldSchema),
	}
}

// YieldedStatus is the status of a successful sessions_yield result.
const YieldedStatus = "yielded"

// Run implements tools.Tool: it writes nothing, so a retry is harmless.
func (t YieldTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a yieldArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be {message?: string}: %v", err)
	}
	running := 0
	for _, c := range childrenOf(t.run, t.spawned) {
		rec, err := runOf(ctx, t.runs, c)
		if err != nil {
			return "", err
		}
		if !run.Terminal(rec.Status) {
			running++
		}
	}
	if running == 0 {
		return "", errors.New("no sub-agent of this session is running, so there is nothing to wait for (finished ones have announced their results already): answer now")
	}
	msg := strings.TrimSpace(a.Message)
	if msg == "" {
		msg = "Turn yielded."
	}
	return tools.JSONResult(yieldResult{Status: YieldedStatus, Message: msg})
}

// Yielded reports whether result is the text of a successful
// sessions_yield call.
func Yielded(result string) bool {
	var r yieldResult
	return json.Unmarshal([]byte(result), &r) == nil && r.Status == YieldedStatus
}
