package openai

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// ContextOverflowPrefix starts the message of the fault.Invalid error returned
// when the prompt does not fit the model's context window. That error also
// wraps model.ErrContextOverflow, which is what callers should test for.
const ContextOverflowPrefix = "context overflow:"

// overflowPhrases are the (lower-cased) phrases by which OpenAI-compatible
// servers that send no context_length_exceeded code say the context is too
// long. Each is specific to a window overflow: a too-large max_tokens on its
// own, or a too-large HTTP body, does not match.
var overflowPhrases = []string{
	"maximum context length",               // OpenAI (older models), vLLM, OpenRouter, Mistral
	"exceeds the context window",           // OpenAI (newer models)
	"longer than the maximum model length", // vLLM ("The decoder prompt ... is longer than the maximum model length")
	"exceeds the available context size",   // llama.cpp server
	"greater than the context length",      // LM Studio
	"maximum prompt length",                // xAI
	"reduce the length of the messages",    // Groq
}

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
	}
	return model.TransportError(err)
}

// classifyStatus classifies an HTTP error answer.
func classifyStatus(e *sdk.Error, apiKey string) error {
	status := e.StatusCode
	cause := fmt.Errorf("openai: HTTP %d (type %q, code %q)", status, e.Type, e.Code)
	msg := model.ProviderMessage(e.Message, e.StatusCode, apiKey)

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
			return fault.Wrap(fault.Invalid, fmt.Errorf("%w: %w", model.ErrContextOverflow, cause),
				"%s %s", ContextOverflowPrefix, msg)
		}
		return fault.Wrap(fault.Invalid, cause, "the model provider rejected the request: %s", msg)
	}
	return fault.Wrap(fault.Unavailable, cause, "unexpected answer from the model provider (HTTP %d)", status)
}

// isContextOverflow recognizes OpenAI's code, llama.cpp's error type, and
// the messages of servers that send neither (overflowPhrases).
func isContextOverflow(e *sdk.Error) bool {
	if e.Code == "context_length_exceeded" || e.Type == "exceed_context_size_error" {
		return true
	}
	msg := strings.ToLower(e.Message)
	for _, p := range overflowPhrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
