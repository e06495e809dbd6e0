// Package openai adapts ZERO's model.Client to the OpenAI Chat Completions
// API through the official SDK. Any server that speaks the same wire format
// (Ollama, vLLM, OpenRouter, ...) works by pointing BaseURL at it.
//
// The adapter is split in steps: buildParams (request.go: model.Request ->
// SDK params, tools and tool results included), mapResponse (response.go:
// SDK completion -> model.Response) and classify (errors.go: SDK error ->
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
	// limit is the request field that carries model.Request.MaxTokens; see
	// limitFieldFor.
	limit limitField
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
	isOpenAI := strings.EqualFold(u.Hostname(), openAIHost)
	if cfg.APIKey == "" && isOpenAI {
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
	return &Client{
		chat:   sdk.NewChatCompletionService(opts...),
		apiKey: cfg.APIKey,
		limit:  limitFieldFor(isOpenAI),
	}, nil
}

// Complete implements model.Client. The answer's tool calls carry their
// arguments verbatim, valid JSON or not; a context-overflow refusal is a
// fault.Invalid error for which errors.Is(err, model.ErrContextOverflow)
// holds.
func (c *Client) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	params, err := buildParams(req, c.limit)
	if err != nil {
		return model.Response{}, err
	}
	completion, err := c.chat.New(ctx, params)
	if err != nil {
		return model.Response{}, classify(err, c.apiKey)
	}
	return mapResponse(completion)
}
