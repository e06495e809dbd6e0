package turn_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/zero-gateway/zero/shared/cost"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/metrics"
	"github.com/zero-gateway/zero/shared/run"
)

// recordedMetrics keeps the turns the engine measured.
type recordedMetrics struct {
	mu    sync.Mutex
	turns []metrics.Turn
}

func (m *recordedMetrics) Turn(_ context.Context, t metrics.Turn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.turns = append(m.turns, t)
}

// TestTurnMetrics: each handled message that ran a turn, or failed, is
// measured once; its AWS calls are the turn's own (the tally's growth),
// its tokens and model cost the model's, its age the message's wait.
func TestTurnMetrics(t *testing.T) {
	type want struct {
		count         int
		failed        bool
		calls         int
		input, output int64
		modelPriced   bool
		modelTimed    bool
		ageMillis     int64
	}
	tests := []struct {
		name     string
		messages []inbound.Message
		modelErr error
		want     want
	}{
		{name: "a model turn", messages: []inbound.Message{msg(1, "hello there")},
			want: want{count: 1, calls: 2, input: 1, output: 1, modelPriced: true, modelTimed: true, ageMillis: 4000}},
		{name: "a command runs no model", messages: []inbound.Message{msg(1, "/status")},
			want: want{count: 1, calls: 2, ageMillis: 4000}},
		{name: "a duplicate is not measured", messages: []inbound.Message{msg(1, "hello there"), msg(1, "hello there")},
			want: want{count: 1, calls: 2, input: 1, output: 1, modelPriced: true, modelTimed: true, ageMillis: 4000}},
		{name: "a failed attempt counts as a failure", messages: []inbound.Message{msg(1, "hello there")}, modelErr: errors.New("model down"),
			want: want{count: 1, failed: true, calls: 1, ageMillis: 4000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(`{channels: {telegram: {allowFrom: ["*"]}}, models: {providers: {zero: {models: [{id: "echo", cost: {input: 1, output: 10}}]}}}}`)
			r.model.err = tc.modelErr
			rec := &recordedMetrics{}
			r.proc.Metrics = rec
			// Each look at the tally finds one more call: a turn that
			// commits looks three times (start, its charge, the end), so
			// two calls are its own; a failed one looks twice. Calls
			// before the turn are not its own.
			tally := map[string]int{"SQS.ReceiveMessage": 7}
			r.proc.CallsOf = func(context.Context) map[string]int {
				tally["DynamoDB.BatchGetItem"]++
				return maps.Clone(tally)
			}
			for _, m := range tc.messages {
				m.ReceivedAt = r.clock.Add(-3 * time.Second).UnixMilli() // the clock ticks 1 s per read
				r.proc.Handle(context.Background(), m, 1)
			}
			if len(rec.turns) != tc.want.count {
				t.Fatalf("%d turns measured; want %d: %+v", len(rec.turns), tc.want.count, rec.turns)
			}
			got := rec.turns[0]
			gotW := want{count: len(rec.turns), failed: got.Failed, calls: got.AWSCalls, input: min(got.InputTokens, 1), output: min(got.OutputToks, 1),
				modelPriced: got.ModelUSD > 0, modelTimed: got.ModelLatency > 0, ageMillis: got.MessageAge.Milliseconds()}
			if diff := cmp.Diff(tc.want, gotW, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("measured (-want +got):\n%s", diff)
			}
			if got.Latency <= 0 || got.Latency < got.ModelLatency {
				t.Errorf("latency %s, model %s; want 0 < model <= turn", got.Latency, got.ModelLatency)
			}
			wantInfra := cost.ListPrices.Turn(map[string]int{"DynamoDB.BatchGetItem": got.AWSCalls}, got.Latency, cost.RunnerMemoryMB)
			if diff := got.InfraUSD - wantInfra; diff > 1e-15 || diff < -1e-15 {
				t.Errorf("infra cost %g; want %g (the turn's calls and time at arm64 prices)", got.InfraUSD, wantInfra)
			}
		})
	}
}

// TestTurnMetricsAsEMF: wired to metrics.EMF, a turn leaves one valid EMF
// line in the log.
func TestTurnMetricsAsEMF(t *testing.T) {
	r := newRig()
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	r.proc.Log, r.proc.Metrics = log, metrics.NewEMF(log, "zero-Runner")
	r.handle(t, msg(1, "hello"))
	var emf []metrics.Parsed
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if !strings.Contains(line, `"_aws"`) {
			continue
		}
		p, err := metrics.Check([]byte(line))
		if err != nil {
			t.Fatalf("EMF line %s: %v", line, err)
		}
		emf = append(emf, p)
	}
	if len(emf) != 1 || emf[0].Values[metrics.Failures] != 0 || emf[0].Values[metrics.OutputTokens] <= 0 {
		t.Fatalf("EMF lines %+v; want one turn with output tokens and no failure", emf)
	}
}

// TestTurnCharged: each committed turn adds its infrastructure cost to
// the session's total; a model turn's tokens and cost become the last
// turn's, a command's leave them; /status reports them.
func TestTurnCharged(t *testing.T) {
	r := newRig()
	runs := r.useRuns()
	r.handle(t, msg(1, "hello there"))
	first := *r.entry(t, "agent:main:main")
	// The run record keeps the turn's cost, for the control page's runs.
	if rec, err := runs.Get(context.Background(), run.NewID(msg(1, "").ID)); err != nil || rec.InfraCostUSD != first.LastInfraCostUSD {
		t.Errorf("run record infra cost %g (%v); want the turn's %g", rec.InfraCostUSD, err, first.LastInfraCostUSD)
	}
	if first.LastInfraCostUSD <= 0 || first.InfraCostUSD != first.LastInfraCostUSD || first.LastInputTokens <= 0 || first.LastOutputTokens <= 0 {
		t.Fatalf("after one turn: last %g total %g tokens %d/%d; want the turn's cost and tokens",
			first.LastInfraCostUSD, first.InfraCostUSD, first.LastInputTokens, first.LastOutputTokens)
	}
	r.handle(t, msg(2, "again"))
	second := *r.entry(t, "agent:main:main")
	if want := first.InfraCostUSD + second.LastInfraCostUSD; second.InfraCostUSD-want > 1e-15 || want-second.InfraCostUSD > 1e-15 {
		t.Errorf("total after two turns %g; want %g", second.InfraCostUSD, want)
	}
	r.handle(t, msg(3, "/status"))
	third := *r.entry(t, "agent:main:main")
	if third.InfraCostUSD <= second.InfraCostUSD || third.LastInfraCostUSD != second.LastInfraCostUSD || third.LastInputTokens != second.LastInputTokens {
		t.Errorf("after /status: total %g (was %g), last %g (was %g); want the total grown and the last model turn kept",
			third.InfraCostUSD, second.InfraCostUSD, third.LastInfraCostUSD, second.LastInfraCostUSD)
	}
	for _, want := range []string{"Infra cost: ≈$", " last turn · ≈$", "Next reset: 2026-11-26 04:00 UTC (daily at 04:00)"} {
		if !strings.Contains(r.lastSent(t), want) {
			t.Errorf("/status lacks %q:\n%s", want, r.lastSent(t))
		}
	}
}
