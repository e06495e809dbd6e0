package gateway

import (
	"context"

	"github.com/zero-gateway/zero/shared/cron"
)

// The typed calls of Client: one per method a Go caller (cmd/zero) uses,
// each the method's params in and its result out, within the client's
// Timeout (agent.wait within its own wait plus WaitSlack). The method's
// contract is its handler's (methods.go); the errors are Client's.

// Agent queues a message for a session's agent (agent).
func (c *Client) Agent(ctx context.Context, p AgentParams) (AgentAccepted, error) {
	return callAs[AgentAccepted](ctx, c, c.timeout, MethodAgent, p)
}

// AgentWait waits for a run to end (agent.wait). Its bound is the wait
// asked for (p.TimeoutMs, cut to MaxWait; nil: the gateway's default)
// plus WaitSlack, whatever the client's Timeout.
func (c *Client) AgentWait(ctx context.Context, p WaitParams) (WaitResult, error) {
	return callAs[WaitResult](ctx, c, waitTimeout(p.TimeoutMs)+WaitSlack, MethodAgentWait, p)
}

// AgentEvents reads a run's stored events after p.AfterSeq
// (agent.events).
func (c *Client) AgentEvents(ctx context.Context, p EventsParams) (EventsResult, error) {
	return callAs[EventsResult](ctx, c, c.timeout, MethodAgentEvents, p)
}

// ChatHistory reads a session's messages (chat.history).
func (c *Client) ChatHistory(ctx context.Context, p HistoryParams) (HistoryResult, error) {
	return callAs[HistoryResult](ctx, c, c.timeout, MethodChatHistory, p)
}

// SessionsList lists sessions, most recent first (sessions.list).
func (c *Client) SessionsList(ctx context.Context, p ListParams) (ListResult, error) {
	return callAs[ListResult](ctx, c, c.timeout, MethodSessionsList, p)
}

// Status asks the gateway for its status (status).
func (c *Client) Status(ctx context.Context) (StatusResult, error) {
	return callAs[StatusResult](ctx, c, c.timeout, MethodStatus, nil)
}

// OutboxList lists the announce outbox's items and counts (outbox.list).
func (c *Client) OutboxList(ctx context.Context, p OutboxListParams) (OutboxListResult, error) {
	return callAs[OutboxListResult](ctx, c, c.timeout, MethodOutboxList, p)
}

// OutboxRetry re-queues a dead outbox item's delivery (outbox.retry).
func (c *Client) OutboxRetry(ctx context.Context, p OutboxRetryParams) (OutboxRetryResult, error) {
	return callAs[OutboxRetryResult](ctx, c, c.timeout, MethodOutboxRetry, p)
}

// CronList lists the cron jobs (cron.list).
func (c *Client) CronList(ctx context.Context, p CronListParams) (CronListResult, error) {
	return callAs[CronListResult](ctx, c, c.timeout, MethodCronList, p)
}

// CronAdd adds a cron job and returns it as stored (cron.add).
func (c *Client) CronAdd(ctx context.Context, p CronAddParams) (cron.Job, error) {
	return callAs[cron.Job](ctx, c, c.timeout, MethodCronAdd, p)
}

// CronRemove removes a cron job; its run history stays (cron.remove).
func (c *Client) CronRemove(ctx context.Context, p CronIDParams) (CronRemoveResult, error) {
	return callAs[CronRemoveResult](ctx, c, c.timeout, MethodCronRemove, p)
}

// CronRun queues a run of a cron job now (cron.run).
func (c *Client) CronRun(ctx context.Context, p CronIDParams) (CronRunResult, error) {
	return callAs[CronRunResult](ctx, c, c.timeout, MethodCronRun, p)
}

// CronRuns lists a cron job's run history, newest first (cron.runs).
func (c *Client) CronRuns(ctx context.Context, p CronRunsParams) (CronRunsResult, error) {
	return callAs[CronRunsResult](ctx, c, c.timeout, MethodCronRuns, p)
}
