package lambdalog

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// invocation is a context as lambda.Start passes it to the handler.
func invocation(requestID string) context.Context {
	return lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: requestID})
}

// lines decodes the JSON lines logged to buf, without their time.
func lines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, line)
		}
		delete(m, slog.TimeKey)
		out = append(out, m)
	}
	return out
}

func TestRequestID(t *testing.T) {
	tests := []struct {
		name string
		log  func(l *slog.Logger)
		want []map[string]any
	}{
		{
			name: "a line logged with the invocation's context carries its request id",
			log:  func(l *slog.Logger) { l.InfoContext(invocation("req-1"), "batch done", "records", 2) },
			want: []map[string]any{{"level": "INFO", "msg": "batch done", "records": 2.0, RequestIDKey: "req-1"}},
		},
		{
			name: "a context derived from the invocation's carries it too",
			log: func(l *slog.Logger) {
				ctx, cancel := context.WithCancel(invocation("req-2"))
				defer cancel()
				l.ErrorContext(ctx, "turn failed")
			},
			want: []map[string]any{{"level": "ERROR", "msg": "turn failed", RequestIDKey: "req-2"}},
		},
		{
			name: "each invocation's lines carry their own id",
			log: func(l *slog.Logger) {
				l.InfoContext(invocation("req-a"), "request done")
				l.InfoContext(invocation("req-b"), "request done")
			},
			want: []map[string]any{
				{"level": "INFO", "msg": "request done", RequestIDKey: "req-a"},
				{"level": "INFO", "msg": "request done", RequestIDKey: "req-b"},
			},
		},
		{
			name: "a logger's own attributes are kept beside the id",
			log:  func(l *slog.Logger) { l.With("fn", "runner").WarnContext(invocation("req-3"), "slow") },
			want: []map[string]any{{"level": "WARN", "msg": "slow", "fn": "runner", RequestIDKey: "req-3"}},
		},
		{
			name: "a line logged without a context has no id",
			log:  func(l *slog.Logger) { l.Info("init") },
			want: []map[string]any{{"level": "INFO", "msg": "init"}},
		},
		{
			name: "a context without an invocation adds no id",
			log:  func(l *slog.Logger) { l.InfoContext(context.Background(), "init") },
			want: []map[string]any{{"level": "INFO", "msg": "init"}},
		},
		{
			name: "an invocation without a request id adds no empty id",
			log:  func(l *slog.Logger) { l.InfoContext(invocation(""), "local") },
			want: []map[string]any{{"level": "INFO", "msg": "local"}},
		},
		{
			name: "a disabled level writes nothing",
			log:  func(l *slog.Logger) { l.DebugContext(invocation("req-4"), "noise") },
			want: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			tc.log(New(&buf))
			if diff := cmp.Diff(tc.want, lines(t, &buf), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("log lines (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInstallSetsTheDefault(t *testing.T) {
	prev := slog.Default()
	t.Cleanup(func() { slog.SetDefault(prev) })

	var buf bytes.Buffer
	logger := Install(&buf)
	// Adapters that log through slog's default get the id too.
	slog.InfoContext(invocation("req-default"), "from an adapter")
	logger.InfoContext(invocation("req-main"), "from the main")

	want := []map[string]any{
		{"level": "INFO", "msg": "from an adapter", RequestIDKey: "req-default"},
		{"level": "INFO", "msg": "from the main", RequestIDKey: "req-main"},
	}
	if diff := cmp.Diff(want, lines(t, &buf)); diff != "" {
		t.Errorf("log lines (-want +got):\n%s", diff)
	}
}
