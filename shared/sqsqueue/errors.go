package sqsqueue

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
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "RequestThrottled", "ThrottlingException", "KmsThrottled", "ServiceUnavailable",
			"InternalError", "InternalFailure", "RequestTimeout":
			return fault.Unavailable
		case "InvalidMessageContents", "InvalidParameterValue", "InvalidParameterValueException",
			"MissingParameter", "InvalidAttributeValue", "UnsupportedOperation",
			"AWS.SimpleQueueService.UnsupportedOperation", "BatchRequestTooLong":
			return fault.Invalid
		case "AccessDenied", "AccessDeniedException", "InvalidSecurity", "InvalidClientTokenId",
			"UnrecognizedClientException", "ExpiredToken", "KmsAccessDenied":
			return fault.Unauthorized
		case "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue":
			return fault.Internal // misconfigured queue URL
		}
	}
	var resp *awshttp.ResponseError
	if errors.As(err, &resp) && (resp.HTTPStatusCode() >= 500 || resp.HTTPStatusCode() == 429) {
		return fault.Unavailable
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return fault.Unavailable
	}
	return fault.Internal
}
