package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/tools"
)

// child is one sub-agent the run's session spawned: its session key, the
// run its latest task (the spawn's, or a later steer's) started, and the
// spawn's task and label.
type child struct {
	Key, RunID, Task, Label string
}

// spawnLog is the sub-agents a run spawned so far (sessions_spawn adds
// them), shared by the run's tools (tools.Shared), so subagents and
// sessions_yield see a child spawned earlier in the same run.
type spawnLog struct {
	mu       sync.Mutex
	children []child
}

type spawnLogKey struct{}

// spawnsOf is run's spawn log.
func spawnsOf(run tools.Run) *spawnLog {
	return tools.Shared(run, spawnLogKey{}, func() *spawnLog { return &spawnLog{} })
}

func (l *spawnLog) add(c child) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.children = append(l.children, c)
}

func (l *spawnLog) list() []child {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.children)
}

// childrenOf is every sub-agent the session of run spawned, oldest first:
// those its context shows (successful sessions_spawn results, their task
// and label read from the call; a later accepted steer moves a child's
// RunID) and those of the run itself. Spawns a compaction summarised away
// are not found.
func childrenOf(run tools.Run, spawned *spawnLog) []child {
	var out []child
	calls := map[string]model.ToolCall{}
	for _, m := range run.History {
		for _, c := range m.ToolCalls {
			calls[c.ID] = c
		}
		if m.Role != model.ToolResult || m.IsError {
			continue
		}
		switch m.ToolName {
		case SpawnName:
			if c, ok := spawnedFrom(m.Content, calls[m.ToolCallID]); ok && !slices.ContainsFunc(out, func(o child) bool { return o.Key == c.Key }) {
				out = append(out, c)
			}
		case SubagentsName:
			steered(out, m.Content)
		}
	}
	return append(out, spawned.list()...)
}

// spawnedFrom is the child a sessions_spawn result (and its call) names.
func spawnedFrom(result string, call model.ToolCall) (child, bool) {
	key, runID, ok := SpawnedChild(result)
	if !ok {
		return child{}, false
	}
	var a spawnArgs
	_ = json.Unmarshal([]byte(call.Arguments), &a) // a call that does not decode leaves task and label blank
	return child{Key: key, RunID: runID, Task: a.Task, Label: a.Label}, true
}

// steered moves the RunID of the child an accepted steer result names.
func steered(children []child, result string) {
	var r subagentsResult
	if json.Unmarshal([]byte(result), &r) != nil || r.Action != actionSteer || r.Status != "accepted" {
		return
	}
	for i := range children {
		if children[i].Key == r.SessionKey {
			children[i].RunID = r.RunID
		}
	}
}

// runOf reads a child's current run; a run not recorded yet (its task is
// still queued) reads as running, started at 0. runs nil: every child
// reads as running.
func runOf(ctx context.Context, runs run.Getter, c child) (run.Record, error) {
	if runs == nil || c.RunID == "" {
		return run.Record{RunID: c.RunID, Status: run.StatusRunning}, nil
	}
	rec, err := runs.Get(ctx, c.RunID)
	if fault.Is(err, fault.NotFound) {
		return run.Record{RunID: c.RunID, Status: run.StatusRunning}, nil
	}
	if err != nil {
		return run.Record{}, fmt.Errorf("read run %s of sub-agent %s: %w", c.RunID, c.Key, err)
	}
	return rec, nil
}
