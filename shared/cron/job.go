// Package cron is ZERO's cron jobs: the job model (the upstream schema:
// id, name, agentId, enabled, schedule, sessionTarget, wakeMode, payload,
// deleteAfterRun, state), its validation, the translation of a schedule to
// an EventBridge Scheduler expression, the inbound message of a run, and
// the Store port (jobs and their run records) with an in-memory
// implementation. It is core: no AWS imports.
//
// Times are epoch milliseconds, as upstream (atMs, everyMs, nextRunAtMs).
package cron

import (
	"encoding/json"
	"github.com/zero-gateway/zero/shared/model"
	"regexp"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
)

// Schedule kinds.
const (
	KindAt    = "at"    // one shot at AtMs
	KindEvery = "every" // every EveryMs, from AnchorMs
	KindCron  = "cron"  // a cron expression in a time zone
)

// Session targets.
const (
	TargetMain     = "main"     // a system event in the agent's main session
	TargetIsolated = "isolated" // agent:<agentId>:cron:<jobId>, a fresh sessionId every run
)

// Wake modes (upstream): run now, or wait for the next heartbeat. ZERO has
// no heartbeat yet, so both queue the run at once.
const (
	WakeNow           = "now"
	WakeNextHeartbeat = "next-heartbeat"
)

// Payload kinds.
const (
	PayloadSystemEvent = "systemEvent"
	PayloadAgentTurn   = "agentTurn"
)

// Run statuses (State.LastStatus, RunRecord.Status).
const (
	StatusOK      = "ok"
	StatusError   = "error"
	StatusSkipped = "skipped" // the previous run of the job was still going
)

// MinEvery is the shortest interval: EventBridge Scheduler has one-minute
// precision.
const MinEvery = time.Minute

// Job is one cron job, in the upstream JSON shape.
type Job struct {
	ID             string   `json:"id"`
	Name           string   `json:"name"`
	Description    string   `json:"description,omitempty"`
	AgentID        string   `json:"agentId,omitempty"` // "": the default agent
	Enabled        bool     `json:"enabled"`
	DeleteAfterRun bool     `json:"deleteAfterRun,omitempty"`
	CreatedAtMs    int64    `json:"createdAtMs"`
	UpdatedAtMs    int64    `json:"updatedAtMs"`
	Schedule       Schedule `json:"schedule"`
	SessionTarget  string   `json:"sessionTarget"`
	WakeMode       string   `json:"wakeMode"`
	Payload        Payload  `json:"payload"`
	State          State    `json:"state"`
	// CreatedBy is "tool" for a job an agent's cron tool created, or
	// whose work it changed (CreatedByAfter): its runs are untrusted
	// (inbound.Untrusted), whoever asked the agent. "" is the operator's
	// (the gateway, the CLI).
	CreatedBy string `json:"createdBy,omitempty"`
}

// CreatedByTool is Job.CreatedBy of a job the cron tool created, or
// whose work (Job.SameWork) the cron tool changed.
const CreatedByTool = "tool"

// Author is who changes a job: the operator (the gateway's cron.* methods,
// the CLI) or the agent's cron tool.
type Author int

// Authors of a change.
const (
	ByOperator Author = iota
	ByTool
)

// SameWork reports whether a and b do the same thing when they fire: the
// same agent, session target and payload (its message or text, model,
// thinking, timeout and delivery). Name, description, schedule, wake
// mode, enabled and deleteAfterRun say when or whether, not what.
func SameWork(a, b Job) bool {
	return a.AgentID == b.AgentID && a.SessionTarget == b.SessionTarget && a.Payload == b.Payload
}

// ChangesWork reports whether p sets a field of the job's work (agentId,
// sessionTarget, payload), whatever its value.
func (p Patch) ChangesWork() bool {
	return p.AgentID != nil || p.SessionTarget != nil || p.Payload != nil
}

// CreatedByAfter is the CreatedBy of updated, which was old before by
// applied p. A tool change of the job's work makes it the tool's (its runs
// untrusted from then on): text a model wrote must not run with the
// owner's reach because the job was once the operator's. An operator
// patch that sets the work (even to the same value) vouches for it and
// makes the job the operator's again. Anything else keeps old's. Replaying
// the same update gives the same answer.
func CreatedByAfter(old, updated Job, p Patch, by Author) string {
	switch {
	case by == ByTool && !SameWork(old, updated):
		return CreatedByTool
	case by == ByOperator && p.ChangesWork():
		return ""
	}
	return old.CreatedBy
}

// Schedule is when a job runs: {kind:"at", atMs} | {kind:"every",
// everyMs, anchorMs?} | {kind:"cron", expr, tz?}.
type Schedule struct {
	Kind     string `json:"kind"`
	AtMs     int64  `json:"atMs,omitempty"`
	EveryMs  int64  `json:"everyMs,omitempty"`
	AnchorMs int64  `json:"anchorMs,omitempty"`
	Expr     string `json:"expr,omitempty"`
	TZ       string `json:"tz,omitempty"` // IANA zone; "": UTC
}

// Payload is what a run does: {kind:"systemEvent", text} |
// {kind:"agentTurn", message, model?, thinking?, timeoutSeconds?,
// deliver?, channel?, to?}.
type Payload struct {
	Kind           string `json:"kind"`
	Text           string `json:"text,omitempty"`
	Message        string `json:"message,omitempty"`
	Model          string `json:"model,omitempty"`
	Thinking       string `json:"thinking,omitempty"`
	TimeoutSeconds int64  `json:"timeoutSeconds,omitempty"`
	Deliver        bool   `json:"deliver,omitempty"`
	Channel        string `json:"channel,omitempty"`
	To             string `json:"to,omitempty"`
}

// State is the job's runtime state.
type State struct {
	NextRunAtMs    int64  `json:"nextRunAtMs,omitempty"`
	RunningAtMs    int64  `json:"runningAtMs,omitempty"`
	LastRunAtMs    int64  `json:"lastRunAtMs,omitempty"`
	LastStatus     string `json:"lastStatus,omitempty"`
	LastError      string `json:"lastError,omitempty"`
	LastDurationMs int64  `json:"lastDurationMs,omitempty"`
	// LastRunID is the run the last fire queued (run.NewID of its message
	// id): the run the next fire checks for overlap. ZERO's field.
	LastRunID string `json:"lastRunId,omitempty"`
	// LastFireKey is the fire key (FireKey) of the last fire handled,
	// queued or skipped, so a redelivered fire is recognised. ZERO's field.
	LastFireKey string `json:"lastFireKey,omitempty"`
}

// jobIDPattern: the id is part of a session key, a table key and a
// schedule name (64 characters at most, [0-9a-zA-Z-_.]), so it is short,
// lower case and plain.
var jobIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// Normalize trims the job's strings and fills the defaults: sessionTarget
// "isolated" for an agentTurn and "main" for a systemEvent, wakeMode "now",
// the agent id normalised. It does not validate.
func (j *Job) Normalize() {
	j.ID = strings.ToLower(strings.TrimSpace(j.ID))
	j.Name = strings.TrimSpace(j.Name)
	if a := strings.TrimSpace(j.AgentID); a != "" {
		j.AgentID = session.NormalizeAgentID(a)
	}
	j.Schedule.Kind = strings.TrimSpace(j.Schedule.Kind)
	j.Schedule.Expr = strings.Join(strings.Fields(j.Schedule.Expr), " ")
	j.Schedule.TZ = strings.TrimSpace(j.Schedule.TZ)
	j.Payload.Kind = strings.TrimSpace(j.Payload.Kind)
	j.Payload.Channel = strings.ToLower(strings.TrimSpace(j.Payload.Channel))
	j.Payload.To = strings.TrimSpace(j.Payload.To)
	j.Payload.Model = strings.TrimSpace(j.Payload.Model)
	j.Payload.Thinking = strings.TrimSpace(j.Payload.Thinking)
	j.SessionTarget = strings.TrimSpace(j.SessionTarget)
	if j.SessionTarget == "" {
		j.SessionTarget = TargetIsolated
		if j.Payload.Kind == PayloadSystemEvent {
			j.SessionTarget = TargetMain
		}
	}
	if j.WakeMode = strings.TrimSpace(j.WakeMode); j.WakeMode == "" {
		j.WakeMode = WakeNow
	}
}

// Validate checks the job; the error is fault.Invalid and its message
// starts with the field's path ("schedule.everyMs: ...").
func (j *Job) Validate() error {
	switch {
	case !jobIDPattern.MatchString(j.ID):
		return invalidf("id: must be 1-64 lower-case letters, digits, _ or -, starting with a letter or digit, got %q", j.ID)
	case j.Name == "":
		return invalidf("name: required")
	case j.AgentID != "" && session.NormalizeAgentID(j.AgentID) != j.AgentID:
		return invalidf("agentId: %q is not a valid agent id", j.AgentID)
	}
	if err := j.Schedule.Validate(); err != nil {
		return err
	}
	switch j.SessionTarget {
	case TargetMain:
		if j.Payload.Kind != PayloadSystemEvent {
			return invalidf("payload.kind: a main-session job takes a systemEvent payload (an agentTurn runs isolated)")
		}
	case TargetIsolated:
		if j.Payload.Kind != PayloadAgentTurn {
			return invalidf("payload.kind: an isolated job takes an agentTurn payload (a systemEvent goes to the main session)")
		}
	default:
		return invalidf("sessionTarget: must be %q or %q, got %q", TargetMain, TargetIsolated, j.SessionTarget)
	}
	switch j.WakeMode {
	case WakeNow, WakeNextHeartbeat:
	default:
		return invalidf("wakeMode: must be %q or %q, got %q", WakeNow, WakeNextHeartbeat, j.WakeMode)
	}
	return j.Payload.Validate()
}

// Validate checks a schedule (see Job.Validate).
func (s Schedule) Validate() error {
	switch s.Kind {
	case KindAt:
		if s.AtMs <= 0 {
			return invalidf("schedule.atMs: required (epoch milliseconds) for kind at")
		}
		if s.EveryMs != 0 || s.Expr != "" {
			return invalidf("schedule: kind at takes atMs only")
		}
	case KindEvery:
		switch {
		case s.EveryMs <= 0:
			return invalidf("schedule.everyMs: required (milliseconds) for kind every")
		case s.EveryMs < MinEvery.Milliseconds() || s.EveryMs%time.Minute.Milliseconds() != 0:
			return invalidf("schedule.everyMs: must be a whole number of minutes (EventBridge Scheduler's precision), got %d", s.EveryMs)
		case s.AnchorMs < 0:
			return invalidf("schedule.anchorMs: must not be negative")
		case s.AtMs != 0 || s.Expr != "":
			return invalidf("schedule: kind every takes everyMs and anchorMs only")
		}
	case KindCron:
		if s.Expr == "" {
			return invalidf("schedule.expr: required for kind cron")
		}
		if s.AtMs != 0 || s.EveryMs != 0 {
			return invalidf("schedule: kind cron takes expr and tz only")
		}
		if _, err := parseCron(s.Expr); err != nil {
			return err
		}
	case "":
		return invalidf("schedule.kind: required (%q, %q or %q)", KindAt, KindEvery, KindCron)
	default:
		return invalidf("schedule.kind: must be %q, %q or %q, got %q", KindAt, KindEvery, KindCron, s.Kind)
	}
	if s.TZ != "" {
		if _, err := time.LoadLocation(s.TZ); err != nil || s.TZ == "Local" {
			return invalidf("schedule.tz: unknown time zone %q", s.TZ)
		}
	}
	return nil
}

// Validate checks a payload (see Job.Validate).
func (p Payload) Validate() error {
	switch p.Kind {
	case PayloadSystemEvent:
		if strings.TrimSpace(p.Text) == "" {
			return invalidf("payload.text: required for a systemEvent")
		}
		if p.Message != "" || p.Deliver || p.Channel != "" || p.To != "" || p.Model != "" || p.Thinking != "" || p.TimeoutSeconds != 0 {
			return invalidf("payload: a systemEvent takes text only")
		}
	case PayloadAgentTurn:
		switch {
		case strings.TrimSpace(p.Message) == "":
			return invalidf("payload.message: required for an agentTurn")
		case p.Text != "":
			return invalidf("payload.text: an agentTurn takes message, not text")
		case p.TimeoutSeconds < 0:
			return invalidf("payload.timeoutSeconds: must not be negative")
		case p.Deliver && (p.Channel == "" || p.To == ""):
			return invalidf("payload.to: deliver needs channel and to")
		case !p.Deliver && (p.Channel != "" || p.To != ""):
			return invalidf("payload.deliver: channel and to are used only with deliver: true")
		case p.Model != "" && !validModelRef(p.Model):
			return invalidf("payload.model: must be \"provider/model\", got %q", p.Model)
		}
	case "":
		return invalidf("payload.kind: required (%q or %q)", PayloadSystemEvent, PayloadAgentTurn)
	default:
		return invalidf("payload.kind: must be %q or %q, got %q", PayloadSystemEvent, PayloadAgentTurn, p.Kind)
	}
	return nil
}

// Location is the schedule's time zone (UTC when none is named).
func (s Schedule) Location() *time.Location {
	if s.TZ == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(s.TZ)
	if err != nil {
		return time.UTC
	}
	return loc
}

// Patch is a partial job for cron.update: each field present replaces the
// job's (schedule and payload whole). id, createdAtMs and state are not
// patchable.
type Patch struct {
	Name           *string   `json:"name,omitempty"`
	Description    *string   `json:"description,omitempty"`
	AgentID        *string   `json:"agentId,omitempty"`
	Enabled        *bool     `json:"enabled,omitempty"`
	DeleteAfterRun *bool     `json:"deleteAfterRun,omitempty"`
	Schedule       *Schedule `json:"schedule,omitempty"`
	SessionTarget  *string   `json:"sessionTarget,omitempty"`
	WakeMode       *string   `json:"wakeMode,omitempty"`
	Payload        *Payload  `json:"payload,omitempty"`
}

// Apply returns j with p applied, normalised and validated; the schedule's
// next run is recomputed when the schedule or enabled changed.
func (p Patch) Apply(j Job, now time.Time) (Job, error) {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&j.Name, p.Name)
	set(&j.Description, p.Description)
	set(&j.AgentID, p.AgentID)
	set(&j.SessionTarget, p.SessionTarget)
	set(&j.WakeMode, p.WakeMode)
	if p.Enabled != nil {
		j.Enabled = *p.Enabled
	}
	if p.DeleteAfterRun != nil {
		j.DeleteAfterRun = *p.DeleteAfterRun
	}
	if p.Schedule != nil {
		j.Schedule = *p.Schedule
	}
	if p.Payload != nil {
		j.Payload = *p.Payload
	}
	j.Normalize()
	if err := j.Validate(); err != nil {
		return Job{}, err
	}
	j.UpdatedAtMs = now.UnixMilli()
	j.State.NextRunAtMs = 0
	if j.Enabled {
		j.State.NextRunAtMs = NextRunAtMs(j.Schedule, now)
	}
	return j, nil
}

// New prepares a job for cron.add: normalised, validated, with its
// creation time and next run. A one-shot (at) job defaults to
// deleteAfterRun upstream; that is the caller's field here, kept as sent.
func New(j Job, now time.Time) (Job, error) {
	j.Normalize()
	if err := j.Validate(); err != nil {
		return Job{}, err
	}
	j.CreatedAtMs, j.UpdatedAtMs = now.UnixMilli(), now.UnixMilli()
	j.State = State{}
	if j.Enabled {
		j.State.NextRunAtMs = NextRunAtMs(j.Schedule, now)
	}
	return j, nil
}

// NextRunAtMs is the first time after now the schedule fires, 0 for none
// (a one-shot in the past, a cron expression that never matches again).
func NextRunAtMs(s Schedule, now time.Time) int64 {
	n := now.UnixMilli()
	switch s.Kind {
	case KindAt:
		if s.AtMs > n {
			return s.AtMs
		}
	case KindEvery:
		if s.EveryMs <= 0 {
			return 0
		}
		if s.AnchorMs > n {
			return s.AnchorMs
		}
		anchor := s.AnchorMs
		return anchor + ((n-anchor)/s.EveryMs+1)*s.EveryMs
	case KindCron:
		c, err := parseCron(s.Expr)
		if err != nil {
			return 0
		}
		if t, ok := c.next(now, s.Location()); ok {
			return t.UnixMilli()
		}
	}
	return 0
}

// String is j as JSON, for logs.
func (j Job) String() string {
	b, _ := json.Marshal(j)
	return string(b)
}

func invalidf(format string, args ...any) error {
	return fault.New(fault.Invalid, format, args...)
}

// validModelRef reports whether ref names a model as "provider/model".
func validModelRef(ref string) bool {
	_, err := model.ParseRef(ref)
	return err == nil
}
