package s3store

import (
	"context"
	"errors"
	"net"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"

	"github.com/zero-gateway/zero/shared/fault"
)

// classify turns an SDK error into a fault class.
func classify(err error, what string) error {
	if err == nil {
		return nil
	}
	return fault.Wrap(codeOf(err), err, "%s", what)
}

func codeOf(err error) fault.Code {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fault.Unavailable
	}
	switch apiCode(err) {
	case "SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout", "RequestTimeTooSkewed":
		return fault.Unavailable
	case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken":
		return fault.Unauthorized
	case "InvalidArgument", "InvalidRequest", "EntityTooLarge", "KeyTooLongError", "InvalidObjectName":
		return fault.Invalid
	case "NoSuchBucket":
		return fault.Internal // misconfigured bucket name: not a missing object
	}
	if s := status(err); s >= 500 || s == 429 {
		return fault.Unavailable
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return fault.Unavailable
	}
	return fault.Internal
}

// apiCode is the S3 error code in err's chain, or "".
func apiCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

// status is the HTTP status of the response that failed, or 0.
func status(err error) int {
	var resp *awshttp.ResponseError
	if errors.As(err, &resp) {
		return resp.HTTPStatusCode()
	}
	return 0
}
