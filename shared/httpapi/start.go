package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/zero-gateway/zero/shared/awsconfig"
)

// Start serves h as the function's handler for API Gateway HTTP API events
// and never returns. After each request it logs to logger the status and
// the AWS calls the request made (calls counts them; one invocation runs
// at a time per instance, so the count is the request's); a panic in h is
// logged to logger too. Both lines are logged with the invocation's
// context, so a lambdalog logger adds the request id.
func Start(logger *slog.Logger, calls *awsconfig.Counter, h http.Handler) {
	handle := Handler(h, WithLogger(logger))
	lambda.Start(func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		calls.Reset()
		start := time.Now()
		resp, err := handle(ctx, ev)
		logger.InfoContext(ctx, "request done", "status", resp.StatusCode, "aws_calls", calls.Total(), "aws_ops", calls.String(),
			"duration_ms", float64(time.Since(start).Microseconds())/1000)
		return resp, err
	})
}
