package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/stopmark"
	"github.com/zero-gateway/zero/shared/tools"
)

// The subagents tool's actions.
const (
	actionList  = "list"
	actionKill  = "kill"
	actionSteer = "steer"
)

// Bounds of the subagents tool (upstream's): the recent window of list,
// in minutes, and the length of a steer message, in characters.
const (
	defaultRecentMinutes = 30
	maxRecentMinutes     = 24 * 60
	maxSteerChars        = 4000
)

// StopMarker writes a session's stop mark (turn.StopMarker; dynamo.Store
// is one): subagents kill stops a child as /stop stops its children. A
// mark of the same message already there is left as it is.
type StopMarker interface {
	MarkStop(ctx context.Context, key string, m stopmark.Mark) error
}

// SubagentsTool is subagents (upstream's list / kill / steer): the
// sub-agents this session spawned, found in its context and this run
// (childrenOf), never any other session's. list reads their runs; kill
// writes a child's stop mark, which ends its run at its next check (its
// announce then says aborted); steer queues a message for the child's
// session, which runs after its current turn and is announced here like
// the spawn's result.
type SubagentsTool struct {
	run     tools.Run
	spawned *spawnLog
	runs    run.Getter // nil: every child reads as running
	stops   StopMarker // nil: kill is refused
	steers  *tools.Counter
}

// NewSubagentsTool is subagents of run, reading runs and stopping through
// stops (either may be nil).
func NewSubagentsTool(run tools.Run, runs run.Getter, stops StopMarker) SubagentsTool {
	return SubagentsTool{run: run, spawned: spawnsOf(run), runs: runs, stops: stops, steers: &tools.Counter{}}
}

type subagentsArgs struct {
	Action        string        `json:"action"`
	Target        string        `json:"target"`
	Message       string        `json:"message"`
	RecentMinutes *tools.Number `json:"recentMinutes"`
}

const subagentsSchema = `{"type":"object","properties":{` +
	`"action":{"type":"string","enum":["list","kill","steer"],"description":"list (default), kill or steer"},` +
	`"target":{"type":"string","description":"kill/steer: the list's index, \"last\", a label (or its prefix), a runId prefix or the child's session key; kill also takes \"all\""},` +
	`"message":{"type":"string","description":"steer: what to tell the sub-agent (at most 4000 characters)"},` +
	`"recentMinutes":{"type":"integer","minimum":1,"description":"list: finished sub-agents of the last N minutes (default 30, at most 1440)"}` +
	`},"additionalProperties":false}`

// Spec implements tools.Tool.
func (SubagentsTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: SubagentsName,
		Description: "List, kill, or steer the sub-agents this session spawned. Steering queues a message the sub-agent runs after its current turn; its result is announced here. " +
			"If sessions_yield is offered, use it to wait for results; do not poll in a loop.",
		Schema: json.RawMessage(subagentsSchema),
	}
}

// Run implements tools.Tool. kill is idempotent (the mark is the same on
// a retried turn); steer's message id derives from the caller's message
// and the steer's ordinal in the run, so a retry queues it once.
func (s SubagentsTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a subagentsArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be {action?: \"list\"|\"kill\"|\"steer\", target?: string, message?: string, recentMinutes?: number}: %v", err)
	}
	action := strings.ToLower(strings.TrimSpace(a.Action))
	if action == "" {
		action = actionList
	}
	if action != actionList && action != actionKill && action != actionSteer {
		return "", fmt.Errorf("action must be \"list\", \"kill\" or \"steer\", got %q", a.Action)
	}
	recent := tools.Clamp(a.RecentMinutes, defaultRecentMinutes, 1, maxRecentMinutes)
	views, err := s.views(ctx, recent)
	if err != nil {
		return "", err
	}
	switch action {
	case actionKill:
		return s.kill(ctx, views, strings.TrimSpace(a.Target))
	case actionSteer:
		return s.steer(ctx, views, strings.TrimSpace(a.Target), a.Message)
	}
	return tools.JSONResult(s.list(views, recent))
}

// subagentView is one sub-agent as list shows it (upstream's row).
type subagentView struct {
	Index       int    `json:"index"`
	RunID       string `json:"runId"`
	SessionKey  string `json:"sessionKey"`
	Label       string `json:"label"`
	Task        string `json:"task"`
	Status      string `json:"status"` // running | done | failed | timeout | killed
	Runtime     string `json:"runtime"`
	RuntimeMs   int64  `json:"runtimeMs"`
	Model       string `json:"model,omitempty"`
	TotalTokens int64  `json:"totalTokens,omitempty"`
	StartedAt   int64  `json:"startedAt,omitempty"`
	EndedAt     int64  `json:"endedAt,omitempty"`

	active bool
}

// views are the children as list shows them: the running ones, then those
// that ended in the last recent minutes, numbered from 1 in that order.
func (s SubagentsTool) views(ctx context.Context, recent int) ([]subagentView, error) {
	now := s.run.Now().UnixMilli()
	var active, ended []subagentView
	for _, c := range childrenOf(s.run, s.spawned) {
		rec, err := runOf(ctx, s.runs, c)
		if err != nil {
			return nil, err
		}
		v := childView(c, rec, now)
		switch {
		case v.active:
			active = append(active, v)
		case rec.EndedAt >= now-int64(recent)*60_000:
			ended = append(ended, v)
		}
	}
	all := append(active, ended...)
	for i := range all {
		all[i].Index = i + 1
	}
	return all, nil
}

// childView is child c with its current run rec, at now (epoch ms).
func childView(c child, rec run.Record, now int64) subagentView {
	label := c.Label
	if label == "" {
		label = shortText(c.Task, 48)
	}
	v := subagentView{RunID: c.RunID, SessionKey: c.Key, Label: label, Task: shortText(c.Task, 72), Model: rec.Model,
		TotalTokens: rec.Usage.Total, StartedAt: rec.StartedAt, EndedAt: rec.EndedAt, active: !run.Terminal(rec.Status)}
	v.Status = map[string]string{run.StatusOK: "done", run.StatusError: "failed", run.StatusTimeout: "timeout", run.StatusAborted: "killed"}[rec.Status]
	if v.active {
		v.Status = "running"
	}
	end := rec.EndedAt
	if v.active {
		end = now
	}
	if rec.StartedAt > 0 && end >= rec.StartedAt {
		v.RuntimeMs = end - rec.StartedAt
	}
	v.Runtime = (time.Duration(v.RuntimeMs) * time.Millisecond).Round(time.Second).String()
	return v
}

// shortText is s on one line, cut to n runes.
func shortText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// subagentsList is subagents list's answer (upstream's shape).
type subagentsList struct {
	Status              string         `json:"status"`
	Action              string         `json:"action"`
	RequesterSessionKey string         `json:"requesterSessionKey"`
	CallerSessionKey    string         `json:"callerSessionKey"`
	CallerIsSubagent    bool           `json:"callerIsSubagent"`
	Total               int            `json:"total"`
	Active              []subagentView `json:"active"`
	Recent              []subagentView `json:"recent"`
	Text                string         `json:"text"`
}

func (s SubagentsTool) list(views []subagentView, recent int) subagentsList {
	key := s.run.Message.SessionKey
	res := subagentsList{Status: "ok", Action: actionList, RequesterSessionKey: key, CallerSessionKey: key,
		Total: len(views), Active: []subagentView{}, Recent: []subagentView{}}
	lines := map[bool][]string{}
	for _, v := range views {
		if v.active {
			res.Active = append(res.Active, v)
		} else {
			res.Recent = append(res.Recent, v)
		}
		lines[v.active] = append(lines[v.active], fmt.Sprintf("%d. %s (%s) %s - %s", v.Index, v.Label, v.Runtime, v.Status, v.Task))
	}
	none := []string{"(none)"}
	res.Text = strings.Join(append(append([]string{"active subagents:"}, orElse(lines[true], none)...),
		append([]string{"", fmt.Sprintf("recent (last %dm):", recent)}, orElse(lines[false], none)...)...), "\n")
	return res
}

func orElse(a, b []string) []string {
	if len(a) == 0 {
		return b
	}
	return a
}

// errNoStops is kill's refusal where the deployment cannot mark sessions.
var errNoStops = errors.New("this deployment cannot stop sub-agents (its session store writes no stop marks)")
