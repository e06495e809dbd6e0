package sqsqueue

import (
	"github.com/zero-gateway/zero/shared/awserr"
	"github.com/zero-gateway/zero/shared/fault"
)

// codes are SQS's own error codes; awserr handles the common ones.
var codes = map[string]fault.Code{
	"KmsThrottled":           fault.Unavailable,
	"InvalidMessageContents": fault.Invalid, "InvalidParameterValue": fault.Invalid,
	"InvalidParameterValueException": fault.Invalid, "MissingParameter": fault.Invalid,
	"InvalidAttributeValue": fault.Invalid, "UnsupportedOperation": fault.Invalid,
	"AWS.SimpleQueueService.UnsupportedOperation": fault.Invalid, "BatchRequestTooLong": fault.Invalid,
	"InvalidSecurity": fault.Unauthorized, "KmsAccessDenied": fault.Unauthorized,
	// A misconfigured queue URL: a deployment problem.
	"QueueDoesNotExist": fault.Internal, "AWS.SimpleQueueService.NonExistentQueue": fault.Internal,
}

// classify turns an SDK error into a fault class.
func classify(err error, what string) error { return awserr.Classify(err, codes, "%s", what) }
