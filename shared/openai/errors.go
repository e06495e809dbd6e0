package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"

	"github.com/zero-gateway/zero/shared/fault"
)

// ContextOverflowPrefix starts the message of the fault.Invalid error returned
// when the prompt does not fit the model's context window.
const ContextOverflowPrefix = "context overflow:"

// classify turns an error from the SDK into a fault. It is the only place the
// adapter classifies errors.
//
// A provider error is not kept as the cause: *sdk.Error holds the outgoing
// *http.Request, Authorization header included. The cause is rebuilt from the
// status, type and code only, and the provider message is scrubbed of the key.
func classify(err error, apiKey string) error {
	var apiErr *sdk.Error
	switch {
	case errors.As(err, &apiErr):
		return classifyStatus(apiErr, apiKey)
	case errors.Is(err, context.DeadlineExceeded):
		return fault.Wrap(fault.Unavailable, err, "the model provider did not answer in time")
	case errors.Is(err, context.Canceled):
		return fault.Wrap(fault.Unavailable, err, "the model call was canceled")
	}
	// Transport failures (DNS, refused connection, reset) and unreadable
	// responses: the provider may well answer on a later try.
	return fault.Wrap(fault.Unavailable, err, "could not reach the model provider")
}

// classifyStatus classifies an HTTP error answer.
func classifyStatus(e *sdk.Error, apiKey string) error {
	status := e.StatusCode
	cause := fmt.Errorf("openai: HTTP %d (type %q, code %q)", status, e.Type, e.Code)
	msg := providerMessage(e, apiKey)

	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fault.Wrap(fault.Unauthorized, cause, "the model provider rejected the API key")
	case status == http.StatusTooManyRequests:
		if e.Code == "insufficient_quota" {
			return fault.Wrap(fault.RateLimited, cause, "the model provider's quota is exhausted: %s", msg)
		}
		return fault.Wrap(fault.RateLimited, cause, "the model provider is rate limiting requests: %s", msg)
	case status == http.StatusRequestTimeout || status == http.StatusConflict || status >= 500:
		return fault.Wrap(fault.Unavailable, cause, "the model provider is unavailable (HTTP %d)", status)
	case status >= 400:
		if isContextOverflow(e) {
			return fault.Wrap(fault.Invalid, cause, "%s %s", ContextOverflowPrefix, msg)
		}
		return fault.Wrap(fault.Invalid, cause, "the model provider rejected the request: %s", msg)
	}
	return fault.Wrap(fault.Unavailable, cause, "unexpected answer from the model provider (HTTP %d)", status)
}

// isContextOverflow recognizes OpenAI's code and the message that vLLM and
// OpenRouter send without one.
func isContextOverflow(e *sdk.Error) bool {
	return e.Code == "context_length_exceeded" ||
		strings.Contains(strings.ToLower(e.Message), "maximum context length")
}

// providerMessage is the provider's error text, safe to show a user.
func providerMessage(e *sdk.Error, apiKey string) string {
	msg := strings.TrimSpace(e.Message)
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	if msg == "" {
		msg = fmt.Sprintf("HTTP %d", e.StatusCode)
	}
	if apiKey != "" {
		msg = strings.ReplaceAll(msg, apiKey, "[redacted]")
	}
	return msg
}
