package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/run"
)

// EventReader is the optional capability of Deps.Runs behind agent.events
// (shared/dynamo's RunStore has it).
type EventReader interface {
	Events(ctx context.Context, runID string, afterSeq int64, limit int) ([]run.Event, error)
}

// agentEvents answers {runId, events: [{runId, seq, stream, ts, data}],
// nextSeq} with the run's events after afterSeq (default 0), at most limit
// (run.DefaultLimit, capped at run.MaxLimit): a client follows a run by
// calling it again with nextSeq, while the run goes on and after it ended.
// An unknown run has no events (it may not have started yet).
//
// Store calls: 1 Query.
func (g *gateway) agentEvents(ctx context.Context, params json.RawMessage) (any, error) {
	var p EventsParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	p.RunID = strings.TrimSpace(p.RunID)
	switch {
	case p.RunID == "":
		return nil, invalidf("params.runId: required")
	case run.CheckID(p.RunID) != nil:
		return nil, invalidf("params.runId: %s", fault.Message(run.CheckID(p.RunID)))
	case p.AfterSeq < 0:
		return nil, invalidf("params.afterSeq: must be >= 0, got %d", p.AfterSeq)
	case p.Limit < 0:
		return nil, invalidf("params.limit: must be >= 0, got %d", p.Limit)
	}
	r, ok := g.Runs.(EventReader)
	if !ok {
		return nil, &statusError{http.StatusNotImplemented, fault.New(fault.Internal, "this run store cannot read events")}
	}
	events, err := r.Events(ctx, p.RunID, p.AfterSeq, run.ClampLimit(p.Limit))
	if err != nil {
		return nil, err
	}
	next := p.AfterSeq
	if len(events) > 0 {
		next = events[len(events)-1].Seq
	}
	if events == nil {
		events = []run.Event{}
	}
	return EventsResult{RunID: p.RunID, Events: events, NextSeq: next}, nil
}
