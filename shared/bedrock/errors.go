package bedrock

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/smithy-go"

	"github.com/zero-gateway/zero/shared/awserr"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// codes are Bedrock Runtime's own error codes; awserr handles the common
// ones (credentials, cancellation, network, bare 5xx).
var codes = map[string]fault.Code{
	// Throttling is rate limiting here, not a transient outage: the account's
	// tokens- or requests-per-minute quota for the model is used up.
	"ThrottlingException":           fault.RateLimited,
	"ServiceQuotaExceededException": fault.RateLimited,
	"ModelNotReadyException":        fault.Unavailable, // the model is being loaded; the SDK retries it too
	"ModelTimeoutException":         fault.Unavailable,
	"ModelErrorException":           fault.Unavailable, // the model failed while processing the request
	"ServiceUnavailableException":   fault.Unavailable,
	"InternalServerException":       fault.Unavailable,
	"AccessDeniedException":         fault.Unauthorized, // no bedrock:InvokeModel, or model access not granted
	"UnrecognizedClientException":   fault.Unauthorized,
	"ResourceNotFoundException":     fault.NotFound, // unknown model id, or not offered in this region
	"ValidationException":           fault.Invalid,
}

// overflowPhrases are the ways a too-long input is reported (lower case).
// Bedrock has no error code for it: the ValidationException carries the
// model provider's own text, which differs between model families.
var overflowPhrases = []string{
	"input is too long",     // Anthropic: "Input is too long for requested model."
	"prompt is too long",    // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
	"exceed context limit",  // Anthropic: "input length and `max_tokens` exceed context limit: ..."
	"too many input tokens", // token-limit wording of other providers
	"input tokens exceed",   // Nova-style "Input Tokens Exceeded"
	"context length",        // Llama, Mistral: "maximum context length is 8192 tokens"
	"context window",        // "... exceeds the model's context window"
}

// classify turns an error from Converse into a fault. It is the only place
// this package looks at Bedrock error codes. The fault message, shown to
// users, names the model and carries Bedrock's own explanation; the SDK
// error stays the cause, for logs.
func classify(err error, modelID string) error {
	var api smithy.APIError
	detail := ""
	if errors.As(err, &api) {
		detail = strings.TrimSpace(api.ErrorMessage())
	}
	code := awserr.Code(err, codes)
	status := awserr.Status(err)
	switch {
	case code == fault.Unavailable && awserr.APICode(err) == "" && status == http.StatusTooManyRequests:
		// A bare 429 (a proxy, or a body the SDK could not decode) is still
		// a request to slow down.
		code = fault.RateLimited
	case code == fault.Internal && status >= 400 && status < 500:
		// A client error the SDK could not name: sending it again will not
		// change the answer.
		code = fault.Invalid
	}
	if detail == "" {
		detail = fallbackDetail(err, status)
	}

	switch code {
	case fault.Invalid:
		if isContextOverflow(detail) {
			return fault.Wrap(fault.Invalid, fmt.Errorf("%w: %w", model.ErrContextOverflow, err),
				"the conversation is too long for Bedrock model %s: %s", modelID, detail)
		}
		return fault.Wrap(code, err, "Bedrock rejected the request to model %s: %s", modelID, detail)
	case fault.RateLimited:
		return fault.Wrap(code, err, "Bedrock is throttling requests to model %s: %s", modelID, detail)
	case fault.Unauthorized:
		return fault.Wrap(code, err,
			"Bedrock refused model %s (the runner needs bedrock:InvokeModel on it, and model access must be granted): %s", modelID, detail)
	case fault.NotFound:
		return fault.Wrap(code, err, "Bedrock has no model %s in this region: %s", modelID, detail)
	case fault.Unavailable:
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return fault.Wrap(code, err, "Bedrock model %s did not answer in time", modelID)
		case errors.Is(err, context.Canceled):
			return fault.Wrap(code, err, "the Bedrock call was canceled")
		}
		return fault.Wrap(code, err, "Bedrock is unavailable for model %s: %s", modelID, detail)
	}
	return fault.Wrap(code, err, "unexpected error from Bedrock for model %s: %s", modelID, detail)
}

// isContextOverflow reports whether a validation message says the input is
// larger than the model's window.
func isContextOverflow(message string) bool {
	m := strings.ToLower(message)
	for _, p := range overflowPhrases {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

// fallbackDetail describes an error that carries no service message: its
// code, its HTTP status, or a transport failure.
func fallbackDetail(err error, status int) string {
	if code := awserr.APICode(err); code != "" {
		return code
	}
	if status != 0 {
		return fmt.Sprintf("HTTP %d", status)
	}
	return "could not reach the service"
}
