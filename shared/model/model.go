// Package model is ZERO's provider-neutral view of a language model call.
// Provider adapters (shared/openai, ...) translate it to their wire format.
package model

import (
	"context"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
)

// Roles of a context message.
const (
	User      = "user"
	Assistant = "assistant"
)

// Message is one message of the model context.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one completion call.
type Request struct {
	Model    string // the model name without its provider prefix
	System   string
	Messages []Message
}

// Usage is the token accounting of one call, in ZERO's terms.
type Usage struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	Total  int64 `json:"totalTokens"`
}

// Response is the model's answer.
type Response struct {
	Text       string
	StopReason string // stop | length | toolUse | error | aborted
	Usage      Usage
}

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
