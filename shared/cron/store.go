package cron

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/zero-gateway/zero/shared/fault"
)

// RunRecord is one run of a job, in upstream's run-log shape.
type RunRecord struct {
	Ts          int64  `json:"ts"` // when the record was written, epoch ms
	JobID       string `json:"jobId"`
	RunID       string `json:"runId,omitempty"`
	Action      string `json:"action"` // "finished" (upstream) or "queued" (ZERO: a fire put on the queue)
	Status      string `json:"status,omitempty"`
	Error       string `json:"error,omitempty"`
	Summary     string `json:"summary,omitempty"`
	RunAtMs     int64  `json:"runAtMs,omitempty"`
	DurationMs  int64  `json:"durationMs,omitempty"`
	NextRunAtMs int64  `json:"nextRunAtMs,omitempty"`
	SessionKey  string `json:"sessionKey,omitempty"`
	SessionID   string `json:"sessionId,omitempty"`
}

// Run actions.
const (
	ActionQueued   = "queued"
	ActionFinished = "finished"
)

// PutMode says what Put expects to find.
type PutMode int

const (
	// Create writes a new job; an existing id is fault.Conflict.
	Create PutMode = iota
	// Replace overwrites an existing job; a missing one is fault.NotFound.
	Replace
)

// Store keeps jobs and their run records. Errors are fault-classified: a
// missing job is fault.NotFound.
type Store interface {
	// Put writes j as mode says.
	Put(ctx context.Context, j Job, mode PutMode) error
	// Get reads one job.
	Get(ctx context.Context, id string) (Job, error)
	// List returns every job, by id.
	List(ctx context.Context) ([]Job, error)
	// Delete removes the job; its run records stay (listable by id).
	Delete(ctx context.Context, id string) error
	// AppendRun adds a run record. Records are keyed by (jobId, ts,
	// runId): appending the same one again is not an error and keeps one.
	AppendRun(ctx context.Context, r RunRecord) error
	// ListRuns returns up to limit (<= 0: all) of the job's run records,
	// newest first.
	ListRuns(ctx context.Context, jobID string, limit int) ([]RunRecord, error)
}

// Memory is an in-memory Store, for tests and tools. The zero value is
// ready.
type Memory struct {
	mu   sync.Mutex
	jobs map[string]Job
	runs map[string]map[string]RunRecord // jobId -> RunKey -> record
}

var _ Store = (*Memory)(nil)

// RunKey orders and identifies a run record inside its job: the zero-padded
// timestamp, then the run id ("run#0001764144000000#<runId>").
func RunKey(r RunRecord) string { return fmt.Sprintf("run#%016d#%s", r.Ts, r.RunID) }

// Put implements Store.
func (m *Memory) Put(_ context.Context, j Job, mode PutMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.jobs == nil {
		m.jobs = map[string]Job{}
	}
	_, exists := m.jobs[j.ID]
	switch {
	case strings.TrimSpace(j.ID) == "":
		return fault.New(fault.Invalid, "cron store: a job needs an id")
	case mode == Create && exists:
		return fault.New(fault.Conflict, "cron job %q already exists", j.ID)
	case mode == Replace && !exists:
		return fault.New(fault.NotFound, "no cron job %q", j.ID)
	case mode != Create && mode != Replace:
		return fault.New(fault.Internal, "cron store: unknown put mode %d", mode)
	}
	m.jobs[j.ID] = j
	return nil
}

// Get implements Store.
func (m *Memory) Get(_ context.Context, id string) (Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	j, ok := m.jobs[id]
	if !ok {
		return Job{}, fault.New(fault.NotFound, "no cron job %q", id)
	}
	return j, nil
}

// List implements Store.
func (m *Memory) List(context.Context) ([]Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Job, 0, len(m.jobs))
	for _, j := range m.jobs {
		out = append(out, j)
	}
	slices.SortFunc(out, func(a, b Job) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// Delete implements Store.
func (m *Memory) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.jobs[id]; !ok {
		return fault.New(fault.NotFound, "no cron job %q", id)
	}
	delete(m.jobs, id)
	return nil
}

// AppendRun implements Store.
func (m *Memory) AppendRun(_ context.Context, r RunRecord) error {
	if strings.TrimSpace(r.JobID) == "" {
		return fault.New(fault.Invalid, "cron store: a run record needs a jobId")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.runs == nil {
		m.runs = map[string]map[string]RunRecord{}
	}
	if m.runs[r.JobID] == nil {
		m.runs[r.JobID] = map[string]RunRecord{}
	}
	m.runs[r.JobID][RunKey(r)] = r
	return nil
}

// ListRuns implements Store.
func (m *Memory) ListRuns(_ context.Context, jobID string, limit int) ([]RunRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	keys := make([]string, 0, len(m.runs[jobID]))
	for k := range m.runs[jobID] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	slices.Reverse(keys)
	if limit > 0 && len(keys) > limit {
		keys = keys[:limit]
	}
	out := make([]RunRecord, 0, len(keys))
	for _, k := range keys {
		out = append(out, m.runs[jobID][k])
	}
	return out, nil
}
