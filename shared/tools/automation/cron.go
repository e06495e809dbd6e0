// Package automation is group:automation's tools: cron (the deployment's
// cron jobs and wake-ups, through the cron core the gateway uses too) and
// gateway (read and change the deployment's zero.json).
package automation

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools"
)

// Limits of the cron tool.
const (
	cronToolTimeout = 20 * time.Second // one call: store reads and writes, a schedule sync, a queue send
	cronRunsDefault = 20
	cronRunsMax     = 100
	cronWakeMaxText = 4000 // bytes of a wake's text
)

// CronName is the cron tool's name.
const CronName = "cron"

// CronTool is cron: the agent manages the deployment's cron jobs through
// the cron core (cron.Service, the same code the gateway's cron.* methods
// use), so a job the agent adds is one the gateway lists and fires.
// run and wake queue through the run's Ingress (absent: they answer
// so). Results are JSON, cut to the tool result budget.
type CronTool struct {
	svc     *cron.Service
	ingress tools.Ingress // nil: run and wake are refused
	cfg     *config.Config
	agentID string // the calling agent: wake's main session
	now     func() time.Time
	// callerID and calls make the ids of added jobs, runs and wakes:
	// the same on every attempt of the turn, so a retried turn adds the
	// same job again (cron.Service.Add takes it as done) and queues
	// the same message ids (the queue deduplicates them).
	callerID string
	calls    *tools.Counter
}

// NewCronTool is cron over svc for run: its configuration, agent, clock,
// Ingress and message id (the caller of the ids it makes).
func NewCronTool(svc *cron.Service, run tools.Run) CronTool {
	return CronTool{svc: svc, ingress: run.Ingress, cfg: run.Config, agentID: run.AgentID, now: run.Now,
		callerID: run.Message.ID, calls: &tools.Counter{}}
}

// cronArgs are the cron tool's arguments; which apply depends on action.
type cronArgs struct {
	Action          string          `json:"action"`
	IncludeDisabled bool            `json:"includeDisabled"`
	Job             *cron.AddParams `json:"job"`
	ID              string          `json:"id"`
	JobID           string          `json:"jobId"` // an alias of id
	Patch           *cron.Patch     `json:"patch"`
	Limit           int             `json:"limit"`
	Text            string          `json:"text"`
	Mode            string          `json:"mode"`
}

const cronScheduleSchema = `{"type":"object","properties":{` +
	`"kind":{"type":"string","enum":["at","every","cron"]},` +
	`"atMs":{"type":"integer","description":"at: epoch milliseconds"},` +
	`"everyMs":{"type":"integer","minimum":60000,"description":"every: the interval in milliseconds"},` +
	`"anchorMs":{"type":"integer","description":"every: epoch milliseconds the intervals count from"},` +
	`"expr":{"type":"string","description":"cron: a 5-field cron expression"},` +
	`"tz":{"type":"string","description":"cron: an IANA time zone (default UTC)"}},"required":["kind"]}`

const cronPayloadSchema = `{"type":"object","properties":{` +
	`"kind":{"type":"string","enum":["systemEvent","agentTurn"]},` +
	`"text":{"type":"string","description":"systemEvent: the event text for the main session"},` +
	`"message":{"type":"string","description":"agentTurn: the prompt of the isolated run"},` +
	`"model":{"type":"string"},"thinking":{"type":"string"},"timeoutSeconds":{"type":"integer","minimum":0},` +
	`"deliver":{"type":"boolean"},"channel":{"type":"string"},"to":{"type":"string"}},"required":["kind"]}`

var cronToolSchema = `{"type":"object","properties":{` +
	`"action":{"type":"string","enum":["status","list","add","update","remove","run","runs","wake"]},` +
	`"includeDisabled":{"type":"boolean","description":"list: include disabled jobs"},` +
	`"job":{"type":"object","description":"add: the full job object (as the gateway's cron.add)","properties":{` +
	`"id":{"type":"string"},"name":{"type":"string"},"description":{"type":"string"},"agentId":{"type":"string"},` +
	`"enabled":{"type":"boolean"},"deleteAfterRun":{"type":"boolean"},"schedule":` + cronScheduleSchema + `,` +
	`"sessionTarget":{"type":"string","enum":["main","isolated"]},"wakeMode":{"type":"string","enum":["now","next-heartbeat"]},` +
	`"payload":` + cronPayloadSchema + `},"required":["name","schedule","payload"]},` +
	`"id":{"type":"string","description":"update, remove, run, runs: the job id"},` +
	`"patch":{"type":"object","description":"update: the job fields to replace (schedule and payload whole)"},` +
	`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"runs: how many records (default 20)"},` +
	`"text":{"type":"string","description":"wake: the system event text"},` +
	`"mode":{"type":"string","enum":["now","next-heartbeat"],"description":"wake: when (ZERO has no heartbeat: both queue now)"}` +
	`},"required":["action"],"additionalProperties":false}`

// Spec implements tools.Tool.
func (c CronTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: CronName,
		Description: "Manage cron jobs and wake-ups: status, list, add (a full job), update ({id, patch}), remove, run (now), " +
			"runs (a job's run history), wake (queue a system event into your main session).",
		Schema: json.RawMessage(cronToolSchema),
	}
}

// Run performs one action within cronToolTimeout; a bad argument, a
// missing job or a store failure is a tool error naming it.
func (c CronTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a cronArgs
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return "", fault.Wrap(fault.Invalid, err, "cron: bad arguments (%v); see the tool schema", err)
	}
	if a.ID == "" {
		a.ID = a.JobID
	}
	ctx, cancel := context.WithTimeout(ctx, cronToolTimeout)
	defer cancel()
	out, err := c.do(ctx, a)
	if err != nil {
		return "", fault.Wrap(fault.CodeOf(err), err, "cron %s: %s", a.Action, fault.Message(err))
	}
	return cronResult(out)
}

// do dispatches one action.
func (c CronTool) do(ctx context.Context, a cronArgs) (any, error) {
	switch a.Action {
	case "status":
		return c.svc.Status(ctx)
	case "list":
		jobs, err := c.svc.List(ctx, a.IncludeDisabled)
		return map[string]any{"jobs": jobs}, err
	case "add":
		if a.Job == nil {
			return nil, fault.New(fault.Invalid, "job: required (the full job object)")
		}
		j := a.Job.Job()
		if strings.TrimSpace(j.ID) == "" {
			j.ID = c.id("add")
		}
		j.CreatedBy = cron.CreatedByTool // its runs are untrusted
		return c.svc.Add(ctx, j)
	case "update":
		if a.Patch == nil {
			return nil, fault.New(fault.Invalid, "patch: required")
		}
		return c.svc.Update(ctx, a.ID, *a.Patch, cron.ByTool) // a changed payload is the tool's: its runs untrusted
	case "remove":
		id, err := c.svc.Remove(ctx, a.ID)
		return map[string]any{"id": id, "removed": err == nil}, err
	case "run":
		return c.run(ctx, a.ID)
	case "runs":
		return c.runs(ctx, a)
	case "wake":
		return c.wake(ctx, a)
	case "":
		return nil, fault.New(fault.Invalid, "action: required")
	}
	return nil, fault.New(fault.Invalid, "action: unknown %q (status, list, add, update, remove, run, runs, wake)", a.Action)
}

// run queues a run of the job now, enabled or not, as the gateway's
// cron.run does, and records it ("queued").
func (c CronTool) run(ctx context.Context, id string) (any, error) {
	if c.ingress == nil {
		return nil, fault.New(fault.Unavailable, "this deployment cannot queue runs from a tool")
	}
	j, err := c.svc.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	now := c.now()
	msg := cron.Message(j, c.cfg, "manual-"+c.id("run"), now)
	runID, err := c.ingress.Queue(ctx, msg)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "queue the run: %v", err)
	}
	rec := cron.RunRecord{Ts: now.UnixMilli(), JobID: j.ID, RunID: runID, Action: cron.ActionQueued,
		RunAtMs: now.UnixMilli(), SessionKey: msg.SessionKey}
	recorded := c.svc.Store.AppendRun(ctx, rec) == nil // the run is queued either way
	return map[string]any{"id": j.ID, "runId": runID, "status": "queued", "sessionKey": msg.SessionKey,
		"queuedAt": now.UnixMilli(), "recorded": recorded}, nil
}

// runs lists a job's run records, newest first.
func (c CronTool) runs(ctx context.Context, a cronArgs) (any, error) {
	switch {
	case a.Limit < 0 || a.Limit > cronRunsMax:
		return nil, fault.New(fault.Invalid, "limit: must be 1-%d", cronRunsMax)
	case a.Limit == 0:
		a.Limit = cronRunsDefault
	}
	runs, err := c.svc.Runs(ctx, a.ID, a.Limit)
	return map[string]any{"entries": runs}, err
}

// wake queues text as a system event into the calling agent's main
// session.
func (c CronTool) wake(ctx context.Context, a cronArgs) (any, error) {
	text := strings.TrimSpace(a.Text)
	switch {
	case text == "":
		return nil, fault.New(fault.Invalid, "text: required")
	case len(text) > cronWakeMaxText:
		return nil, fault.New(fault.Invalid, "text: at most %d bytes", cronWakeMaxText)
	case a.Mode != "" && a.Mode != cron.WakeNow && a.Mode != cron.WakeNextHeartbeat:
		return nil, fault.New(fault.Invalid, "mode: now or next-heartbeat, not %q", a.Mode)
	case c.ingress == nil:
		return nil, fault.New(fault.Unavailable, "this deployment cannot queue a wake from a tool")
	}
	msg := cron.WakeMessage(c.cfg, c.agentID, text, c.id("wake"), c.now())
	runID, err := c.ingress.Queue(ctx, msg)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "queue the wake: %v", err)
	}
	return map[string]any{"status": "queued", "runId": runID, "sessionKey": msg.SessionKey}, nil
}

// cronResult is out as JSON, refused when it exceeds the tool result
// budget (list with includeDisabled off, or runs with a smaller limit,
// fits).
func cronResult(out any) (string, error) {
	data, err := json.Marshal(out)
	if err != nil {
		return "", fault.Wrap(fault.Internal, err, "cron: encoding the result")
	}
	if len(data) > tools.ResultBudget {
		return "", fault.New(fault.Invalid, "cron: the result is %d bytes, over the %d-byte limit; narrow it (a smaller limit, enabled jobs only)", len(data), tools.ResultBudget)
	}
	return string(data), nil
}

// id is the uuid of the n-th call of kind in the turn of callerID.
func (c CronTool) id(kind string) string {
	n := c.calls.Next(kind)
	sum := sha256.Sum256([]byte("zero-cron:" + kind + ":" + c.callerID + "\x00" + strconv.Itoa(n)))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
