// Package metrics writes a turn's CloudWatch metrics in the embedded
// metric format (EMF): one JSON log line per turn, which CloudWatch Logs
// turns into metrics with no API call and no extra IAM permission. It is
// core: no AWS import; the line goes through the function's slog logger
// (shared/lambdalog), so it carries the invocation's request id too.
//
// Format: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
package metrics

import (
	"context"
	"log/slog"
	"time"
)

// Namespace is the CloudWatch namespace of ZERO's metrics (template.yaml's
// dashboard and alarms read it).
const Namespace = "ZERO"

// FunctionDimension names the dimension every metric carries: the Lambda
// function's name (AWS_LAMBDA_FUNCTION_NAME), so two stacks in one
// account keep apart.
const FunctionDimension = "Function"

// Metric names, as template.yaml's dashboard and alarms use them.
const (
	TurnLatency  = "TurnLatency"  // the turn's handling time, ms
	ModelLatency = "ModelLatency" // the model's part of it, ms
	InputTokens  = "InputTokens"
	OutputTokens = "OutputTokens"
	AWSCalls     = "AWSCalls"     // AWS calls the turn made (counted)
	InfraCost    = "InfraCostUSD" // the turn's AWS calls and Lambda time, list prices
	ModelCost    = "ModelCostUSD" // the turn's tokens at the configured model price
	Failures     = "TurnFailures" // 1 when the attempt failed (it is retried)
	MessageAge   = "MessageAge"   // from the message's time at the edge (inbound.Message.ReceivedAt: Telegram's date) to the turn's start, ms
)

// Names are every metric a turn's line carries, in its order.
var Names = []string{TurnLatency, ModelLatency, InputTokens, OutputTokens, AWSCalls, InfraCost, ModelCost, Failures, MessageAge}

// Turn is one handled message's measurements.
type Turn struct {
	Latency, ModelLatency   time.Duration
	InputTokens, OutputToks int64
	AWSCalls                int
	InfraUSD, ModelUSD      float64
	Failed                  bool
	MessageAge              time.Duration
}

// EMF writes Turn metrics as EMF log lines. Safe for concurrent use (the
// logger is).
type EMF struct {
	log      *slog.Logger
	function string
	now      func() time.Time
}

// NewEMF returns an EMF writing through log, with function as the
// FunctionDimension's value (empty: "local").
func NewEMF(log *slog.Logger, function string) *EMF {
	if function == "" {
		function = "local"
	}
	return &EMF{log: log, function: function, now: time.Now}
}

// Turn writes t as one EMF line at Info. It makes no I/O beyond the log
// write and never fails the turn.
func (e *EMF) Turn(ctx context.Context, t Turn) {
	failed := 0
	if t.Failed {
		failed = 1
	}
	values := []metricValue{
		{TurnLatency, "Milliseconds", ms(t.Latency)},
		{ModelLatency, "Milliseconds", ms(t.ModelLatency)},
		{InputTokens, "Count", float64(t.InputTokens)},
		{OutputTokens, "Count", float64(t.OutputToks)},
		{AWSCalls, "Count", float64(t.AWSCalls)},
		{InfraCost, "None", t.InfraUSD},
		{ModelCost, "None", t.ModelUSD},
		{Failures, "Count", float64(failed)},
		{MessageAge, "Milliseconds", ms(t.MessageAge)},
	}
	e.log.LogAttrs(ctx, slog.LevelInfo, "turn metrics", e.attrs(values)...)
}

type metricValue struct {
	name, unit string
	value      float64
}

// attrs are the EMF line's fields: the _aws metadata, the dimension and
// one top-level number per metric.
func (e *EMF) attrs(values []metricValue) []slog.Attr {
	defs := make([]map[string]string, 0, len(values))
	attrs := []slog.Attr{{}, slog.String(FunctionDimension, e.function)}
	for _, v := range values {
		defs = append(defs, map[string]string{"Name": v.name, "Unit": v.unit})
		attrs = append(attrs, slog.Float64(v.name, v.value))
	}
	attrs[0] = slog.Any("_aws", map[string]any{
		"Timestamp": e.now().UnixMilli(),
		"CloudWatchMetrics": []map[string]any{{
			"Namespace":  Namespace,
			"Dimensions": [][]string{{FunctionDimension}},
			"Metrics":    defs,
		}},
	})
	return attrs
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
