package ssmparam

import (
	"github.com/zero-gateway/zero/shared/awserr"
	"github.com/zero-gateway/zero/shared/fault"
)

// codes are SSM's own error codes; awserr handles the common ones.
var codes = map[string]fault.Code{
	"ParameterNotFound": fault.NotFound, "ParameterVersionNotFound": fault.NotFound,
	// SSM's per-parameter write throttle (a few writes per second).
	"TooManyUpdates":      fault.Unavailable,
	"ValidationException": fault.Invalid, "ParameterPatternMismatchException": fault.Invalid,
	"HierarchyLevelLimitExceededException": fault.Invalid, "HierarchyTypeMismatchException": fault.Invalid,
	"UnsupportedParameterType": fault.Invalid, "InvalidAllowedPatternException": fault.Invalid,
	"ParameterLimitExceeded": fault.Invalid, "ParameterMaxVersionLimitExceeded": fault.Invalid,
	"ParameterAlreadyExists": fault.Conflict,
	// The key of a SecureString is missing or not ours: a deployment problem.
	"InvalidKeyId": fault.Internal,
}

// classify turns an SDK error into a fault class; it is the only place
// this package looks at SSM error codes.
func classify(err error, what string) error { return awserr.Classify(err, codes, "%s", what) }
