// Package openai adapts ZERO's model.Client to the OpenAI Chat Completions
// API through the official SDK. Any server that speaks the same wire format
// (Ollama, vLLM, OpenRouter, ...) works by pointing BaseURL at it.
//
// The adapter is split in small steps so tool calling and streaming can be
// added beside the text path: buildParams (model.Request -> SDK params),
// mapResponse (SDK completion -> model.Response) and classify (SDK error ->
// fault), which is the only place errors are classified.
package openai

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// DefaultBaseURL is OpenAI's own endpoint, used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// openAIHost is the host that requires an API key.
const openAIHost = "api.openai.com"

// Config configures a Client.
type Config struct {
	// APIKey is sent as "Authorization: Bearer <key>". It may be empty only
	// for a server other than api.openai.com (a local Ollama or vLLM).
	APIKey string
	// BaseURL is the API root that "/chat/completions" is appended to;
	// DefaultBaseURL when empty.
	BaseURL string
	// HTTPClient carries the requests; http.DefaultClient when nil.
	HTTPClient *http.Client
	// MaxRetries is how many times the SDK retries a 408, 409, 429, 5xx or
	// network failure before giving up; 0 means one attempt only. Negative
	// values count as 0.
	MaxRetries int
}

// Client is a model.Client for the Chat Completions API.
type Client struct {
	chat   sdk.ChatCompletionService
	apiKey string // kept only to scrub it from provider messages
}

var _ model.Client = (*Client)(nil)

// New returns a Client. It fails with fault.Invalid when the base URL is not
// an http(s) URL, or when the key is missing for api.openai.com.
//
// The SDK's chat service is built directly from these options rather than
// through sdk.NewClient, so no ambient OPENAI_* environment variable (org,
// project, custom headers) leaks into requests sent to another server.
func New(cfg Config) (*Client, error) {
	base := strings.TrimSpace(cfg.BaseURL)
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fault.New(fault.Invalid, "OpenAI base URL %q is not an http(s) URL", base)
	}
	if cfg.APIKey == "" && strings.EqualFold(u.Hostname(), openAIHost) {
		return nil, fault.New(fault.Invalid,
			"OPENAI_API_KEY is not set: %s needs an API key (only a local OpenAI-compatible server may go without one)", base)
	}

	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(max(cfg.MaxRetries, 0)),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Client{chat: sdk.NewChatCompletionService(opts...), apiKey: cfg.APIKey}, nil
}

// Complete implements model.Client.
func (c *Client) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	params, err := buildParams(req)
	if err != nil {
		return model.Response{}, err
	}
	completion, err := c.chat.New(ctx, params)
	if err != nil {
		return model.Response{}, classify(err, c.apiKey)
	}
	return mapResponse(completion)
}

// buildParams translates a model.Request into Chat Completions parameters:
// the system prompt first (when set), then the messages in order.
func buildParams(req model.Request) (sdk.ChatCompletionNewParams, error) {
	if strings.TrimSpace(req.Model) == "" {
		return sdk.ChatCompletionNewParams{}, fault.New(fault.Invalid, "no model name given for the OpenAI provider")
	}
	msgs := make([]sdk.ChatCompletionMessageParamUnion, 0, len(req.Messages)+1)
	if req.System != "" {
		msgs = append(msgs, sdk.SystemMessage(req.System))
	}
	for i, m := range req.Messages {
		p, ok := messageParam(m)
		if !ok {
			return sdk.ChatCompletionNewParams{}, fault.New(fault.Invalid, "message %d has unsupported role %q", i, m.Role)
		}
		msgs = append(msgs, p)
	}
	return sdk.ChatCompletionNewParams{Model: req.Model, Messages: msgs}, nil
}

// messageParam translates one context message; false for an unknown role.
func messageParam(m model.Message) (sdk.ChatCompletionMessageParamUnion, bool) {
	switch m.Role {
	case model.User:
		return sdk.UserMessage(m.Content), true
	case model.Assistant:
		return sdk.AssistantMessage(m.Content), true
	}
	return sdk.ChatCompletionMessageParamUnion{}, false
}

// mapResponse translates the first choice and the usage of a completion.
func mapResponse(c *sdk.ChatCompletion) (model.Response, error) {
	if c == nil || len(c.Choices) == 0 {
		return model.Response{}, fault.New(fault.Unavailable, "the model provider returned no answer (no choices)")
	}
	choice := c.Choices[0]
	text := choice.Message.Content
	if text == "" {
		text = choice.Message.Refusal
	}
	return model.Response{
		Text:       text,
		StopReason: stopReason(choice.FinishReason),
		Usage:      mapUsage(c.Usage),
	}, nil
}

// stopReason maps a Chat Completions finish_reason to ZERO's stop reasons.
// An absent or unknown reason (some compatible servers send none) counts as
// a normal stop.
func stopReason(finish string) string {
	switch finish {
	case "length":
		return "length"
	case "tool_calls", "function_call":
		return "toolUse"
	case "content_filter":
		return "error"
	}
	return "stop"
}

// mapUsage maps token usage; Total is derived when the server omits it.
func mapUsage(u sdk.CompletionUsage) model.Usage {
	total := u.TotalTokens
	if total == 0 {
		total = u.PromptTokens + u.CompletionTokens
	}
	return model.Usage{Input: u.PromptTokens, Output: u.CompletionTokens, Total: total}
}
