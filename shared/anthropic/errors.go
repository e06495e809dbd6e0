package anthropic

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// statusOverloaded is Anthropic's "overloaded_error" status: the API is
// temporarily over capacity. It is not in net/http.
const statusOverloaded = 529

// overflowPhrases are the lowercase fragments of a 400 message that says
// the request does not fit the model's window: "prompt is too long: 212345
// tokens > 200000 maximum", and "input length and `max_tokens` exceed
// context limit: ..." (prompt plus the output reserve). The API gives these
// no error code, so the message is the only signal; compacting the context
// cures both.
var overflowPhrases = []string{"prompt is too long", "exceed context limit"}

// classify turns an error from the SDK into a fault. It is the only place
// the adapter classifies errors.
//
// A provider error is not kept as the cause: *sdk.Error holds the outgoing
// *http.Request, credential header included. The cause is rebuilt from the
// status, type, code and request id, and the provider message (the user
// part) is scrubbed of the key.
func classify(err error, apiKey string) error {
	var apiErr *sdk.Error
	switch {
	case errors.As(err, &apiErr):
		return classifyStatus(apiErr, apiKey)
	}
	return model.TransportError(err)
}

// classifyStatus classifies an HTTP error answer:
//   - 401 and 403 -> Unauthorized; 402 (billing) -> Unauthorized too: the
//     account, not the request, needs attention and a retry will not help;
//   - 429 -> RateLimited (spend limits included, with their own message);
//   - 529 overloaded, 408, 409 and other 5xx -> Unavailable;
//   - a "prompt is too long" 400, and 413 (the body is over the API's size
//     limit, which for a text context means it is far too long) -> Invalid
//     wrapping model.ErrContextOverflow, so the loop can compact and retry;
//   - any other 4xx -> Invalid, with the provider's message.
func classifyStatus(e *sdk.Error, apiKey string) error {
	status := e.StatusCode
	cause := fmt.Errorf("anthropic: HTTP %d (type %q, code %q, request-id %q)", status, e.Type(), e.ErrorCode(), e.RequestID)
	msg := model.ProviderMessage(e.Message, e.StatusCode, apiKey)

	switch {
	case status == http.StatusUnauthorized:
		return fault.Wrap(fault.Unauthorized, cause, "the model provider rejected the API key")
	case status == http.StatusForbidden:
		return fault.Wrap(fault.Unauthorized, cause, "the model provider refused access: %s", msg)
	case status == http.StatusPaymentRequired:
		return fault.Wrap(fault.Unauthorized, cause, "the model provider refused the request for billing reasons: %s", msg)
	case status == http.StatusTooManyRequests:
		switch e.ErrorCode() {
		case sdk.ErrorCodeContractSpendLimitReached, sdk.ErrorCodeEnforcedSpendLimitReached:
			return fault.Wrap(fault.RateLimited, cause, "the model provider's spend limit is reached: %s", msg)
		}
		return fault.Wrap(fault.RateLimited, cause, "the model provider is rate limiting requests: %s", msg)
	case status == statusOverloaded || e.Type() == sdk.ErrorTypeOverloadedError:
		return fault.Wrap(fault.Unavailable, cause, "the model provider is overloaded (HTTP %d)", status)
	case status == http.StatusRequestTimeout || status == http.StatusConflict || status >= 500:
		return fault.Wrap(fault.Unavailable, cause, "the model provider is unavailable (HTTP %d)", status)
	case isContextOverflow(e):
		return fault.Wrap(fault.Invalid, fmt.Errorf("%w: %w", model.ErrContextOverflow, cause),
			"the conversation is too long for the model: %s", msg)
	case status >= 400:
		return fault.Wrap(fault.Invalid, cause, "the model provider rejected the request: %s", msg)
	}
	return fault.Wrap(fault.Unavailable, cause, "unexpected answer from the model provider (HTTP %d)", status)
}

// isContextOverflow recognizes a request refused for its size.
func isContextOverflow(e *sdk.Error) bool {
	if e.StatusCode == http.StatusRequestEntityTooLarge {
		return true
	}
	if e.StatusCode != http.StatusBadRequest {
		return false
	}
	lower := strings.ToLower(e.Message)
	for _, p := range overflowPhrases {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}
