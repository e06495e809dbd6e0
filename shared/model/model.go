// Package model is ZERO's provider-neutral view of a language model call.
// Provider adapters (shared/openai, ...) translate it to their wire format.
package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
)

// Roles of a context message. ToolResult is the upstream transcript's name
// for the answer to a tool call.
const (
	User       = "user"
	Assistant  = "assistant"
	ToolResult = "toolResult"
)

// Stop reasons, as the upstream transcript records them.
const (
	StopEnd     = "stop"
	StopLength  = "length"
	StopToolUse = "toolUse"
	StopError   = "error"
	StopAborted = "aborted"
)

// Message is one message of the model context.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCalls are the calls an assistant message made, in order.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// A toolResult message answers the call ToolCallID of tool ToolName.
	ToolCallID string `json:"toolCallId,omitempty"`
	ToolName   string `json:"toolName,omitempty"`
	IsError    bool   `json:"isError,omitempty"`
	// Thinking is an assistant message's reasoning text, recorded and
	// shown on request; adapters do not send it back to the model.
	Thinking string `json:"thinking,omitempty"`
	// EntryID is the transcript line the message was recorded as, so a
	// compaction can name the first message it kept. Adapters ignore it.
	EntryID string `json:"entryId,omitempty"`
	// Images go with a user message's text, for a model that accepts
	// images (see AcceptsImages); an adapter that cannot send them fails
	// the call with fault.Invalid.
	Images []Image `json:"images,omitempty"`
}

// ToolCall is one call the model asked for. Arguments is the JSON text as
// the model produced it: it may be invalid (OpenAI-compatible servers pass
// the model's text through), which the loop answers as a tool error.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolSpec is a tool offered to the model.
type ToolSpec struct {
	Name        string
	Description string
	// Schema is the JSON Schema of the arguments object.
	Schema json.RawMessage
}

// Request is one completion call. Adapters send consecutive toolResult
// messages the way their API wants them (Anthropic and Bedrock: together,
// in the next user message).
type Request struct {
	Model     string // the model name without its provider prefix
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int // 0: the adapter's default
	// Thinking is the reasoning level (ThinkingLevels; "" or off: none).
	// Each adapter sends it in its provider's field, or not at all for a
	// model that takes none (see the adapters' request builders).
	Thinking string
}

// Usage is the token accounting of one call, in ZERO's terms.
type Usage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead,omitempty"`
	CacheWrite int64 `json:"cacheWrite,omitempty"`
	Total      int64 `json:"totalTokens"`
}

// Response is the model's answer: text, tool calls, or both.
type Response struct {
	Text       string
	Thinking   string // reasoning text, when the provider returns it
	ToolCalls  []ToolCall
	StopReason string // StopEnd, StopLength, StopToolUse, StopError, StopAborted
	Usage      Usage
}

// ErrContextOverflow marks a request the model refused because the context
// is larger than its window. Adapters wrap it (errors.Is finds it) so the
// loop can compact and retry instead of failing the run.
var ErrContextOverflow = errors.New("the conversation is longer than the model's context window")

// Client completes a request. Implementations classify errors with fault:
// RateLimited and Unavailable may be retried, Invalid and Unauthorized not.
type Client interface {
	Complete(ctx context.Context, req Request) (Response, error)
}

// Ref is a parsed "provider/model" id.
type Ref struct{ Provider, Name string }

func (r Ref) String() string { return r.Provider + "/" + r.Name }

// ParseRef splits "provider/model". The model part may itself contain
// slashes ("openrouter/meta/llama-3").
func ParseRef(id string) (Ref, error) {
	provider, name, ok := strings.Cut(strings.TrimSpace(id), "/")
	if !ok || provider == "" || name == "" {
		return Ref{}, fault.New(fault.Invalid, "ZERO_MODEL: %q is not of the form provider/model", id)
	}
	return Ref{Provider: strings.ToLower(provider), Name: name}, nil
}

// TransportError classifies a failed provider call that carries no HTTP
// answer (adapters classify answers themselves): the context's deadline or
// cancellation, or a transport failure (DNS, refused connection, reset, an
// unreadable answer). All are fault.Unavailable: a later try may work.
func TransportError(err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fault.Wrap(fault.Unavailable, err, "the model provider did not answer in time")
	case errors.Is(err, context.Canceled):
		return fault.Wrap(fault.Unavailable, err, "the model call was canceled")
	}
	return fault.Wrap(fault.Unavailable, err, "could not reach the model provider")
}

// ProviderMessage is a provider's error text, safe to show a user: the
// message the provider sent (else the HTTP status text) with the API key,
// should the provider echo it, redacted.
func ProviderMessage(message string, status int, apiKey string) string {
	msg := strings.TrimSpace(message)
	if msg == "" {
		msg = http.StatusText(status)
	}
	if msg == "" {
		msg = fmt.Sprintf("HTTP %d", status)
	}
	if apiKey != "" {
		msg = strings.ReplaceAll(msg, apiKey, "[redacted]")
	}
	return msg
}
