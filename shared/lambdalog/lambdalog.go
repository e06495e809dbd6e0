// Package lambdalog builds the logger of a Lambda main: JSON lines on a
// writer (stderr in the mains), and on every line logged with an
// invocation's context the invocation's AWS request id, so all the lines
// of one invocation can be found together in CloudWatch Logs.
//
// aws-lambda-go's lambdacontext.NewLogHandler injects the id the same way,
// but it cannot be used as is: its format follows AWS_LAMBDA_LOG_FORMAT
// (text unless the function's LoggingConfig says JSON), it renames "msg"
// to "message", it always writes to stdout, and it wraps no handler of the
// caller's. ZERO's log readers (the end-to-end tests, `zero dev`) read
// JSON lines with "msg", so this package keeps that format and only adds
// the id, under the attribute name Lambda itself uses.
package lambdalog

import (
	"context"
	"io"
	"log/slog"

	"github.com/aws/aws-lambda-go/lambdacontext"
)

// RequestIDKey is the attribute that carries the request id: the name
// Lambda's own JSON log lines and lambdacontext's handler use.
const RequestIDKey = "requestId"

// New returns a logger that writes JSON lines to w. A line logged with a
// context that carries a Lambda invocation (the ctx lambda.Start passes to
// the handler, or one derived from it) has the invocation's request id
// under RequestIDKey; a line logged without one (Info instead of
// InfoContext, or during init) has none.
func New(w io.Writer) *slog.Logger {
	return slog.New(Handler(slog.NewJSONHandler(w, nil)))
}

// Install makes New(w) slog's default logger, for the adapters that log
// through slog's default, and returns it. It is the one logging line of a
// Lambda main: logger := lambdalog.Install(os.Stderr).
func Install(w io.Writer) *slog.Logger {
	logger := New(w)
	slog.SetDefault(logger)
	return logger
}

// Handler wraps next so that a record handled with a context carrying a
// Lambda invocation gets the invocation's request id under RequestIDKey.
// Like lambdacontext's handler it adds the id to the record, so under
// WithGroup the id is inside the open group.
func Handler(next slog.Handler) slog.Handler { return requestIDHandler{next: next} }

type requestIDHandler struct{ next slog.Handler }

func (h requestIDHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if lc, ok := lambdacontext.FromContext(ctx); ok && lc.AwsRequestID != "" {
		r.AddAttrs(slog.String(RequestIDKey, lc.AwsRequestID))
	}
	return h.next.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDHandler{next: h.next.WithAttrs(attrs)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{next: h.next.WithGroup(name)}
}
