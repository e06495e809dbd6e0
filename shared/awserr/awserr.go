// Package awserr classifies AWS SDK errors into fault classes. Each AWS
// adapter passes its service's own error codes; what all services share
// (cancellation, throttling and 5xx statuses, network failures, rejected
// credentials) is decided here, once.
package awserr

import (
	"context"
	"errors"
	"net"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"

	"github.com/zero-gateway/zero/shared/fault"
)

// common are error codes every AWS service may return.
var common = map[string]fault.Code{
	"ThrottlingException": fault.Unavailable, "RequestThrottled": fault.Unavailable,
	"ServiceUnavailable": fault.Unavailable, "InternalError": fault.Unavailable,
	"InternalFailure": fault.Unavailable, "InternalServerError": fault.Unavailable,
	"RequestTimeout": fault.Unavailable,
	"AccessDenied":   fault.Unauthorized, "AccessDeniedException": fault.Unauthorized,
	"UnrecognizedClientException": fault.Unauthorized, "InvalidClientTokenId": fault.Unauthorized,
	"ExpiredToken": fault.Unauthorized, "ExpiredTokenException": fault.Unauthorized,
	"InvalidSignatureException": fault.Unauthorized, "SignatureDoesNotMatch": fault.Unauthorized,
	"MissingAuthenticationToken": fault.Unauthorized,
}

// Classify wraps err with its class and what was being done; nil stays nil.
// service maps the service's own error codes; they win over the common ones.
func Classify(err error, service map[string]fault.Code, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fault.Wrap(Code(err, service), err, format, args...)
}

// Code returns the class of err: service codes, then common codes, then
// the HTTP status (429 and 5xx are Unavailable) and network failures;
// anything else is Internal.
func Code(err error, service map[string]fault.Code) fault.Code {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fault.Unavailable
	}
	if code := APICode(err); code != "" {
		if c, ok := service[code]; ok {
			return c
		}
		if c, ok := common[code]; ok {
			return c
		}
	}
	if s := Status(err); s >= 500 || s == 429 {
		return fault.Unavailable
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return fault.Unavailable
	}
	return fault.Internal
}

// APICode is the service error code in err's chain, or "".
func APICode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

// Status is the HTTP status of the response that failed, or 0.
func Status(err error) int {
	var resp *awshttp.ResponseError
	if errors.As(err, &resp) {
		return resp.HTTPStatusCode()
	}
	return 0
}
