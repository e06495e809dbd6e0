package webfetch

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/fault"
)

// The limits of one fetch.
const (
	DefaultMaxBytes = 2 << 20          // bytes read from the response body
	DefaultTimeout  = 15 * time.Second // the whole fetch: connect, redirects, body
	DefaultMaxChars = 50_000           // characters of extracted content returned
	MaxMaxChars     = 200_000          // the largest maxChars a call may ask for
	userAgent       = "Mozilla/5.0 (compatible; ZERO-web_fetch/1.0)"
)

// Extract modes.
const (
	ModeMarkdown = "markdown"
	ModeText     = "text"
)

// Request is one web_fetch call.
type Request struct {
	URL      string
	Mode     string // ModeMarkdown (default) or ModeText
	MaxChars int    // 0: DefaultMaxChars; capped at MaxMaxChars
}

// Page is what a fetch returns.
type Page struct {
	URL         string // the final URL, after redirects
	Status      int
	ContentType string
	Title       string
	Content     string // the readable content, at most MaxChars characters
	Truncated   bool   // the body or the content was cut at a limit
}

// Fetcher fetches pages. Client should come from NewClient (its guard is
// what protects against SSRF); the zero limits take the defaults.
type Fetcher struct {
	Client   *http.Client
	MaxBytes int64
	Timeout  time.Duration
}

// Fetch gets req.URL and extracts its readable content. Errors are
// fault errors whose message the model can read: fault.Invalid for a bad
// URL, a refused address, too many redirects or an unsupported content
// type; fault.Unavailable for network failures, timeouts and HTTP errors
// (4xx and 5xx statuses).
func (f *Fetcher) Fetch(ctx context.Context, req Request) (Page, error) {
	u, err := checkURL(req.URL)
	if err != nil {
		return Page{}, err
	}
	mode, maxChars, err := checkOptions(req)
	if err != nil {
		return Page{}, err
	}
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	page, body, err := f.get(ctx, u)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Page{}, fault.Wrap(fault.Unavailable, err, "web_fetch: %s took longer than %s", u.Redacted(), timeout)
		}
		return Page{}, err
	}
	final, _ := url.Parse(page.URL)
	page.Title, page.Content, err = extract(body, page.ContentType, final, mode)
	if err != nil {
		return Page{}, err
	}
	if utf8.RuneCountInString(page.Content) > maxChars {
		page.Content, page.Truncated = string([]rune(page.Content)[:maxChars]), true
	}
	return page, nil
}

// checkURL accepts absolute http and https URLs with a host.
func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fault.Wrap(fault.Invalid, err, "web_fetch: %q is not a URL", raw)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fault.New(fault.Invalid, "web_fetch: only http and https URLs are fetched, not %q", u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fault.New(fault.Invalid, "web_fetch: the URL has no host")
	}
	if u.User != nil {
		return nil, fault.New(fault.Invalid, "web_fetch: URLs with credentials (user:password@) are not fetched")
	}
	return u, nil
}

// checkOptions validates the mode and bounds maxChars.
func checkOptions(req Request) (mode string, maxChars int, err error) {
	switch mode = strings.ToLower(strings.TrimSpace(req.Mode)); mode {
	case "":
		mode = ModeMarkdown
	case ModeMarkdown, ModeText:
	default:
		return "", 0, fault.New(fault.Invalid, "web_fetch: extractMode must be %q or %q, not %q", ModeMarkdown, ModeText, req.Mode)
	}
	switch maxChars = req.MaxChars; {
	case maxChars < 0:
		return "", 0, fault.New(fault.Invalid, "web_fetch: maxChars must be positive")
	case maxChars == 0:
		maxChars = DefaultMaxChars
	case maxChars > MaxMaxChars:
		maxChars = MaxMaxChars
	}
	return mode, maxChars, nil
}

// get does the request and reads at most MaxBytes of the body.
func (f *Fetcher) get(ctx context.Context, u *url.URL) (Page, []byte, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Page{}, nil, fault.Wrap(fault.Invalid, err, "web_fetch: bad request for %s", u.Redacted())
	}
	hreq.Header.Set("User-Agent", userAgent)
	hreq.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5")
	resp, err := f.Client.Do(hreq)
	if err != nil {
		if fault.CodeOf(err) != fault.Internal {
			return Page{}, nil, err // a refused address or redirect keeps its own message
		}
		return Page{}, nil, fault.Wrap(fault.Unavailable, err, "web_fetch: could not fetch %s: %v", u.Redacted(), err)
	}
	defer resp.Body.Close()
	page := Page{URL: resp.Request.URL.String(), Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
	if resp.StatusCode >= 400 {
		return Page{}, nil, fault.New(fault.Unavailable, "web_fetch: %s answered HTTP %d", u.Redacted(), resp.StatusCode)
	}
	limit := f.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return Page{}, nil, fault.Wrap(fault.Unavailable, err, "web_fetch: reading %s: %v", u.Redacted(), err)
	}
	if int64(len(body)) > limit {
		body, page.Truncated = body[:limit], true
	}
	return page, body, nil
}

// mediaType is the lower-cased media type of a Content-Type header.
func mediaType(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
	}
	return mt
}
