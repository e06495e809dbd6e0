// Package brave is a client of the Brave Search web search API
// (GET /res/v1/web/search with the X-Subscription-Token header), for the
// web_search tool.
package brave

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
)

// DefaultBaseURL is Brave's API; BRAVE_API_BASE_URL overrides it (fakes).
const DefaultBaseURL = "https://api.search.brave.com"

// MaxCount is the most results one search asks for.
const MaxCount = 10

// maxBody is the most bytes of an answer read (a 10-result answer is far
// smaller).
const maxBody = 2 << 20

// Result is one web result.
type Result struct {
	Title       string `json:"title"`
	URL         string `json:"url"`
	Description string `json:"description"`
}

// Client searches with one API key. Safe for concurrent use.
type Client struct {
	key     string
	baseURL string
	http    *http.Client
}

// New returns a client; an empty key is a fault.Unauthorized error that
// says how to set one. baseURL "" is DefaultBaseURL; httpClient nil is a
// client with a 15 s timeout.
func New(key, baseURL string, httpClient *http.Client) (*Client, error) {
	if strings.TrimSpace(key) == "" {
		return nil, fault.New(fault.Unauthorized, "web_search is not configured: no Brave Search API key (set the brave-api-key secret: zero secrets set brave-api-key)")
	}
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	if httpClient == nil {
		httpClient = &http.Client{Timeout: 15 * time.Second}
	}
	return &Client{key: key, baseURL: strings.TrimRight(baseURL, "/"), http: httpClient}, nil
}

// answer is the part of Brave's response the tool reads.
type answer struct {
	Web struct {
		Results []Result `json:"results"`
	} `json:"web"`
}

// Search returns up to count (1..MaxCount, clamped) web results for
// query. Errors are fault errors: Invalid for an empty query,
// Unauthorized for a key Brave refuses, RateLimited for 429, Unavailable
// for network failures and other bad statuses. The key never appears in
// an error.
func (c *Client) Search(ctx context.Context, query string, count int) ([]Result, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, fault.New(fault.Invalid, "web_search: the query is empty")
	}
	count = min(max(count, 1), MaxCount)
	q := url.Values{"q": {query}, "count": {strconv.Itoa(count)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+"/res/v1/web/search?"+q.Encode(), nil)
	if err != nil {
		return nil, fault.Wrap(fault.Invalid, err, "web_search: bad request")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", c.key)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "web_search: Brave Search unreachable")
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "web_search: reading Brave's answer")
	}
	if err := statusError(resp.StatusCode); err != nil {
		return nil, err
	}
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "web_search: Brave's answer is not the expected JSON")
	}
	if len(a.Web.Results) > count {
		a.Web.Results = a.Web.Results[:count]
	}
	return a.Web.Results, nil
}

// statusError classifies a non-2xx status.
func statusError(status int) error {
	switch {
	case status >= 200 && status < 300:
		return nil
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fault.New(fault.Unauthorized, "web_search: Brave Search refused the API key (HTTP %d)", status)
	case status == http.StatusTooManyRequests:
		return fault.New(fault.RateLimited, "web_search: Brave Search rate limit reached (HTTP 429); try again later")
	default:
		return fault.New(fault.Unavailable, "web_search: Brave Search answered HTTP %d", status)
	}
}

// String names the client without its key.
func (c *Client) String() string { return fmt.Sprintf("brave(%s)", c.baseURL) }
