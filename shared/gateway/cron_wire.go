package gateway

import "github.com/zero-gateway/zero/shared/cron"

// The cron methods' params and results (see cron.go). Jobs, schedules,
// payloads, patches and run records are shared/cron's types, in the
// upstream JSON shape.

// CronStatusResult is the answer of cron.status.
type CronStatusResult = cron.Status

// CronListParams are the params of cron.list.
type CronListParams struct {
	IncludeDisabled bool `json:"includeDisabled,omitempty"` // default: enabled jobs only
}

// CronListResult is the answer of cron.list: jobs by id.
type CronListResult struct {
	Jobs []cron.Job `json:"jobs"`
}

// CronAddParams are the params of cron.add: the job object (cron.AddParams;
// id optional, default a random UUID). The answer is the stored cron.Job,
// with its id.
type CronAddParams = cron.AddParams

// CronUpdateParams are the params of cron.update: the fields of patch
// that are present replace the job's (schedule and payload whole). The
// answer is the updated cron.Job.
type CronUpdateParams struct {
	ID    string      `json:"id"`
	Patch *cron.Patch `json:"patch,omitempty"` // required
}

// CronIDParams are the params of cron.remove and cron.run.
type CronIDParams struct {
	ID string `json:"id"`
}

// CronRemoveResult is the answer of cron.remove. The job's run records
// are kept (cron.runs still lists them).
type CronRemoveResult struct {
	ID      string `json:"id"`
	Removed bool   `json:"removed"`
}

// CronRunResult is the answer of cron.run: the run is queued (through the
// ingest door, as the operator's), not finished.
type CronRunResult struct {
	ID         string `json:"id"`
	RunID      string `json:"runId"`
	Status     string `json:"status"` // always "queued"
	SessionKey string `json:"sessionKey"`
	QueuedAt   int64  `json:"queuedAt"` // epoch ms
}

// CronRunsParams are the params of cron.runs.
type CronRunsParams struct {
	ID    string `json:"id"`
	Limit int    `json:"limit,omitempty"` // default 50, at most 500
}

// CronRunsResult is the answer of cron.runs: newest first.
type CronRunsResult struct {
	Entries []cron.RunRecord `json:"entries"`
}
