// Package anthropic adapts ZERO's model.Client to Anthropic's Messages API
// (POST /v1/messages) through the official SDK,
// github.com/anthropics/anthropic-sdk-go/v2.
//
// The adapter is split in steps: buildParams (request.go: model.Request ->
// SDK params: system prompt, tools, and the context folded into alternating
// user/assistant turns with tool results), mapResponse (response.go: SDK
// message -> model.Response) and classify (errors.go: SDK error -> fault),
// which is the only place errors are classified.
package anthropic

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// DefaultBaseURL is Anthropic's own endpoint, used when Config.BaseURL is
// empty.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens is the output limit sent when neither the request nor
// Config sets one: the Messages API requires max_tokens on every call.
const DefaultMaxTokens = 4096

// anthropicHost is the host that requires an API key.
const anthropicHost = "api.anthropic.com"

// Config configures a Client.
type Config struct {
	// APIKey authenticates the requests; SDK v2 sends it as
	// "Authorization: Bearer <key>" (not x-api-key). It may be empty only
	// for a server other than api.anthropic.com (a gateway or proxy that
	// adds its own credentials).
	APIKey string
	// BaseURL is the API root that "v1/messages" is appended to, without a
	// trailing "/v1"; DefaultBaseURL when empty.
	BaseURL string
	// HTTPClient carries the requests; http.DefaultClient when nil.
	HTTPClient *http.Client
	// MaxRetries is how many times the SDK retries a 408, 409, 429, 5xx
	// (529 overloaded included) or network failure before giving up; 0
	// means one attempt only, negative values count as 0. Retries never
	// outlive the context given to Complete: once it is done the SDK
	// returns its error instead of waiting for the next attempt.
	MaxRetries int
	// MaxTokens is the output limit for a request whose MaxTokens is 0;
	// DefaultMaxTokens when not positive.
	MaxTokens int
}

// Client is a model.Client for the Messages API. It is safe for concurrent
// use.
type Client struct {
	messages  sdk.MessageService
	apiKey    string // kept only to scrub it from provider messages
	maxTokens int64
}

var _ model.Client = (*Client)(nil)

// New returns a Client. It fails with fault.Invalid when the base URL is not
// an http(s) URL, or when the key is missing for api.anthropic.com.
//
// The SDK's message service is built directly from these options rather
// than through sdk.NewClient, so no ambient ANTHROPIC_* variable (key, base
// URL, custom headers, profile) leaks into requests: what is sent is what
// Config says.
func New(cfg Config) (*Client, error) {
	base := strings.TrimSpace(cfg.BaseURL)
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fault.New(fault.Invalid, "Anthropic base URL %q is not an http(s) URL", base)
	}
	if cfg.APIKey == "" && strings.EqualFold(u.Hostname(), anthropicHost) {
		return nil, fault.New(fault.Invalid,
			"ANTHROPIC_API_KEY is not set: %s needs an API key (only a gateway that adds its own credentials may go without one)", base)
	}

	opts := []option.RequestOption{
		option.WithBaseURL(base),
		// WithMaxRetries panics on a negative count.
		option.WithMaxRetries(max(cfg.MaxRetries, 0)),
	}
	// An empty key would still send an empty bearer header; a keyless
	// gateway gets no credential header at all.
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	maxTokens := int64(cfg.MaxTokens)
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	return &Client{messages: sdk.NewMessageService(opts...), apiKey: cfg.APIKey, maxTokens: maxTokens}, nil
}

// Complete implements model.Client with one non-streaming Messages call.
// The answer's tool calls carry their input object as JSON text. A request
// the adapter cannot express fails with fault.Invalid before anything is
// sent; a context-overflow refusal is a fault.Invalid error for which
// errors.Is(err, model.ErrContextOverflow) holds.
func (c *Client) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	params, err := buildParams(req, c.maxTokens)
	if err != nil {
		return model.Response{}, err
	}
	msg, err := c.messages.New(ctx, params)
	if err != nil {
		return model.Response{}, classify(err, c.apiKey)
	}
	return mapResponse(msg)
}
