package turn

import (
	"context"
	"maps"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cost"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/metrics"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// TurnMetrics receives one handled message's measurements
// (metrics.EMF writes them as CloudWatch EMF log lines).
type TurnMetrics interface {
	Turn(ctx context.Context, t metrics.Turn)
}

type meterKey struct{}

// meter gathers one handled message's measurements while it runs. The
// engine's steps reach it through the context (meterOf), so no step's
// signature changes for it.
type meter struct {
	start    time.Time
	age      time.Duration
	calls    map[string]int // the session's AWS call tally when the turn began
	ran      bool           // a command, compaction or model turn ran
	model    time.Duration
	usage    model.Usage
	modelUSD float64
}

// startMeter begins measuring m's handling; finish emits the measurements
// to p.Metrics (when set) once the handling ends with err. A duplicate or
// resumed delivery that ran no turn emits only when it failed.
func (p *Processor) startMeter(ctx context.Context, m inbound.Message) (context.Context, func(err error)) {
	mt := &meter{start: time.Now(), calls: maps.Clone(p.callsSoFar(ctx))}
	if m.ReceivedAt > 0 {
		mt.age = max(0, p.Now().Sub(time.UnixMilli(m.ReceivedAt)))
	}
	ctx = context.WithValue(ctx, meterKey{}, mt)
	return ctx, func(err error) {
		if p.Metrics == nil || err == nil && !mt.ran {
			return
		}
		p.Metrics.Turn(ctx, mt.measure(p.prices(), time.Since(mt.start), p.callsSoFar(ctx), err != nil))
	}
}

// chargeTurn writes the turn's cost into e before its commit: a model
// turn's tokens become the last turn's, and the infrastructure cost so far
// (AWS calls and Lambda time, at list prices) becomes the last turn's and
// is added to the session's total; a command's or compaction's is added
// to the total only. A retry before the commit starts again from the
// stored entry, so a turn is charged once. It returns the cost (the run
// record keeps it).
func (p *Processor) chargeTurn(ctx context.Context, e *session.Entry, out turnOutput, modelTurn bool) float64 {
	mt := meterOf(ctx)
	if mt.start.IsZero() {
		return 0
	}
	turnCalls, _ := mt.turnCalls(p.callsSoFar(ctx))
	infra := p.prices().Turn(turnCalls, time.Since(mt.start), cost.RunnerMemoryMB)
	e.InfraCostUSD += infra
	if modelTurn {
		e.LastInputTokens, e.LastOutputTokens, e.LastInfraCostUSD = out.usage.Input, out.usage.Output, infra
	}
	return infra
}

// turnCalls are the calls made since the meter started, and their count.
func (mt *meter) turnCalls(calls map[string]int) (map[string]int, int) {
	turnCalls := map[string]int{}
	n := 0
	for op, c := range calls {
		if d := c - mt.calls[op]; d > 0 {
			turnCalls[op], n = d, n+d
		}
	}
	return turnCalls, n
}

// measure is the meter's Turn for a handling that took latency and left
// the session's call tally at calls.
func (mt *meter) measure(prices cost.Prices, latency time.Duration, calls map[string]int, failed bool) metrics.Turn {
	turnCalls, n := mt.turnCalls(calls)
	return metrics.Turn{
		Latency: latency, ModelLatency: mt.model, MessageAge: mt.age,
		InputTokens: mt.usage.Input, OutputToks: mt.usage.Output, AWSCalls: n,
		InfraUSD: prices.Turn(turnCalls, latency, cost.RunnerMemoryMB),
		ModelUSD: mt.modelUSD, Failed: failed,
	}
}

// prices are p.Prices, else cost.ListPrices.
func (p *Processor) prices() cost.Prices {
	if p.Prices != nil {
		return *p.Prices
	}
	return cost.ListPrices
}

func (p *Processor) callsSoFar(ctx context.Context) map[string]int {
	if p.CallsOf == nil {
		return nil
	}
	return p.CallsOf(ctx)
}

// meterOf is ctx's meter, or a throwaway one when the turn is not metered.
func meterOf(ctx context.Context) *meter {
	if mt, ok := ctx.Value(meterKey{}).(*meter); ok {
		return mt
	}
	return &meter{}
}

// ranModel records a model run's time, tokens and their price (when the
// config prices ref).
func (mt *meter) ranModel(took time.Duration, usage model.Usage, cfg *config.Config, ref model.Ref) {
	mt.ran, mt.model, mt.usage = true, took, usage
	if price, ok := cfg.ModelCost(ref); ok {
		mt.modelUSD = cost.Tokens(usage.Input, usage.Output, price.Input, price.Output)
	}
}

// setInfraCost puts the turn's infrastructure cost on the run's prepared
// outcome (the commit writes it); nothing without a run or an outcome.
func (rt *runTracker) setInfraCost(usd float64) {
	if rt == nil || rt.outcome == nil {
		return
	}
	rt.outcome.Record.InfraCostUSD = usd
}
