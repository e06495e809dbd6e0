package s3store

import (
	"github.com/zero-gateway/zero/shared/awserr"
	"github.com/zero-gateway/zero/shared/fault"
)

// codes are S3's own error codes; awserr handles the common ones.
var codes = map[string]fault.Code{
	"SlowDown": fault.Unavailable, "RequestTimeTooSkewed": fault.Unavailable,
	"InvalidAccessKeyId": fault.Unauthorized, "InvalidToken": fault.Unauthorized,
	"InvalidArgument": fault.Invalid, "InvalidRequest": fault.Invalid, "EntityTooLarge": fault.Invalid,
	"KeyTooLongError": fault.Invalid, "InvalidObjectName": fault.Invalid,
	// A misconfigured bucket name: not a missing object.
	"NoSuchBucket": fault.Internal,
}

// classify turns an SDK error into a fault class.
func classify(err error, what string) error { return awserr.Classify(err, codes, "%s", what) }

// apiCode is the S3 error code in err's chain, or "".
func apiCode(err error) string { return awserr.APICode(err) }

// status is the HTTP status of the response that failed, or 0.
func status(err error) int { return awserr.Status(err) }
