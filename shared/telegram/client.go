package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/zero-gateway/zero/shared/deadline"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
)

// DefaultBaseURL is the public Bot API.
const DefaultBaseURL = "https://api.telegram.org"

// Retry policy for one Bot API call (see call).
const (
	maxTransientAttempts = 3 // requests that certainly did not reach Telegram
	maxRateLimitWaits    = 5 // 429s honoured before giving up
	defaultRetryAfter    = time.Second
	maxResponseBytes     = 1 << 20
)

// ErrOutcomeUnknown is wrapped (beside a fault.Unavailable error) in the
// error of a sendMessage that may have reached Telegram without ZERO
// learning the answer: a timeout or a broken connection after the request
// was written, or a 5xx. The message may or may not have been delivered, so
// the client does not send it again; the caller decides (the runner lets
// the queue retry the turn, which sends it once more).
var ErrOutcomeUnknown = errors.New("outcome unknown, not resent")

// Client calls the Bot API for one bot. It is safe for concurrent use.
type Client struct {
	baseURL string
	token   string
	client  *http.Client
	backoff time.Duration // first wait after a transient failure; doubles
}

// NewClient returns a client for the bot with token. An empty baseURL means
// DefaultBaseURL; a nil httpClient, one with a 30 s timeout.
func NewClient(baseURL, token string, httpClient *http.Client) *Client {
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	if httpClient == nil {
		httpClient = &http.Client{Timeout: 30 * time.Second}
	}
	return &Client{
		baseURL: strings.TrimRight(baseURL, "/"),
		token:   token,
		client:  httpClient,
		backoff: 250 * time.Millisecond,
	}
}

type sendMessageParams struct {
	ChatID          any    `json:"chat_id"` // int64, or a string such as "@channel"
	MessageThreadID int64  `json:"message_thread_id,omitempty"`
	Text            string `json:"text"`
	ParseMode       string `json:"parse_mode,omitempty"` // "" on the plain-text retry
}

// Render turns model text into sendMessage texts for parse mode HTML:
// `<`, `>` and `&` are escaped, ``` fences, `code` and **bold** become
// tags, and text over 4096 characters becomes several messages, cut at
// paragraph, line or word breaks. Text with nothing visible renders to none.
// It is pure: the same text always renders the same messages.
func (c *Client) Render(text string) []string { return formatHTML(text, maxMessageLength) }

// Post sends one rendered message (see Render) to the chat (and forum
// topic) in to with sendMessage, in parse mode HTML. If Telegram cannot
// parse its entities (400 "can't parse entities"), the same message is sent
// once more as plain text (tags removed, entities decoded, no parse_mode)
// and that answer is final.
//
// Post never sends a message twice when it may have been delivered: an
// error wrapping ErrOutcomeUnknown (class fault.Unavailable) means it may
// or may not be in the chat. See call for the retry rules.
func (c *Client) Post(ctx context.Context, to session.DeliveryContext, message string) error {
	params, err := sendParams(to)
	if err != nil {
		return err
	}
	params.Text = message
	resp, err := c.call(ctx, "sendMessage", params)
	if resp == nil || !cantParseEntities(resp) {
		return err
	}
	// Telegram refused the request before sending anything: safe to send
	// the message's visible text instead.
	params.ParseMode, params.Text = "", plainText(message)
	if _, err := c.call(ctx, "sendMessage", params); err != nil {
		return fmt.Errorf("telegram sendMessage as plain text after %q: %w", resp.Description, err)
	}
	return nil
}

// Send renders text and posts every message. When one fails the error says
// which; the ones before it were delivered.
func (c *Client) Send(ctx context.Context, to session.DeliveryContext, text string) error {
	pieces := c.Render(text)
	for i, piece := range pieces {
		if err := c.Post(ctx, to, piece); err != nil {
			if len(pieces) == 1 {
				return err
			}
			return fmt.Errorf("telegram send: piece %d of %d: %w", i+1, len(pieces), err)
		}
	}
	return nil
}

func sendParams(to session.DeliveryContext) (sendMessageParams, error) {
	if to.Channel != "" && to.Channel != Channel {
		return sendMessageParams{}, fault.New(fault.Invalid, "telegram send: delivery is for channel %q", to.Channel)
	}
	params := sendMessageParams{ParseMode: "HTML"}
	switch id, err := strconv.ParseInt(to.To, 10, 64); {
	case err == nil:
		params.ChatID = id
	case strings.TrimSpace(to.To) != "":
		params.ChatID = to.To
	default:
		return sendMessageParams{}, fault.New(fault.Invalid, "telegram send: no chat id")
	}
	if to.ThreadID != "" {
		thread, err := strconv.ParseInt(to.ThreadID, 10, 64)
		if err != nil {
			return sendMessageParams{}, fault.New(fault.Invalid, "telegram send: thread id %q is not a number", to.ThreadID)
		}
		params.MessageThreadID = thread
	}
	return params, nil
}

// cantParseEntities reports Telegram's refusal of a message's markup, e.g.
// "Bad Request: can't parse entities: Unsupported start tag "foo" at byte
// offset 3" (older servers say "can't parse message text").
func cantParseEntities(r *apiResponse) bool {
	if r.ErrorCode != http.StatusBadRequest {
		return false
	}
	d := strings.ToLower(r.Description)
	return strings.Contains(d, "can't parse entities") || strings.Contains(d, "can't parse message text")
}

var htmlTag = regexp.MustCompile(`<[^>]*>`)

// plainText is what an HTML message shows: tags removed, entities decoded.
// Render escapes every literal `<`, so each one left is a tag's.
func plainText(htmlText string) string {
	return html.UnescapeString(htmlTag.ReplaceAllString(htmlText, ""))
}

// AllowedUpdates returns the update types ZERO handles, the setWebhook
// allowed_updates: ParseUpdate maps messages (text, captions, pictures,
// a group's migration) and channel posts and skips everything else (edited messages,
// callback queries, membership changes), so Telegram need not send those.
func AllowedUpdates() []string { return []string{"message", "channel_post"} }

// DefaultMaxConnections is the setWebhook max_connections ZERO asks for.
//
// Telegram sends one chat's updates one at a time, so this only caps how
// many chats' updates are in flight at once, i.e. the webhook Lambda's
// concurrency. The webhook only checks, parses and queues (tens of ms
// warm, under a second cold), so 40 connections carry hundreds of updates
// a second warm and still about 40 a second if every request paid a cold
// start: above the bot's own ceiling of about 30 sent messages a second,
// which bounds the replies those updates can get. More connections would
// not answer anyone sooner (the runner's concurrency is capped by
// MainLaneMaxConcurrency); they would only let a backlog (Telegram keeps
// up to 24 h of updates while the webhook is down) arrive as a wider burst
// of cold starts drawing on the account's Lambda concurrency, which the
// runner shares. 40 is also Telegram's default; setting it explicitly
// resets a value changed by hand.
const DefaultMaxConnections = 40

// Webhook is what SetWebhook registers.
type Webhook struct {
	URL    string // the public HTTPS URL of the webhook
	Secret string // the secret_token Telegram sends back in SecretHeader
	// MaxConnections is setWebhook's max_connections (1-100); 0 means
	// DefaultMaxConnections.
	MaxConnections int
	// DropPendingUpdates discards the updates Telegram has queued for the
	// bot (for instance while the webhook was failing); they are lost.
	DropPendingUpdates bool
}

// SetWebhook points the bot at w.URL, asking Telegram to send w.Secret in
// SecretHeader, to deliver only AllowedUpdates and to open at most
// w.MaxConnections connections at once. setWebhook may be repeated, so
// unlike sendMessage it is retried when its outcome is unknown.
func (c *Client) SetWebhook(ctx context.Context, w Webhook) error {
	if err := CheckSecret(w.Secret); err != nil {
		return err
	}
	if w.MaxConnections == 0 {
		w.MaxConnections = DefaultMaxConnections
	}
	if w.MaxConnections < 1 || w.MaxConnections > 100 {
		return fault.New(fault.Invalid, "webhook max_connections must be 1-100, got %d", w.MaxConnections)
	}
	params := struct {
		URL                string   `json:"url"`
		SecretToken        string   `json:"secret_token"`
		AllowedUpdates     []string `json:"allowed_updates"`
		MaxConnections     int      `json:"max_connections"`
		DropPendingUpdates bool     `json:"drop_pending_updates,omitempty"`
	}{w.URL, w.Secret, AllowedUpdates(), w.MaxConnections, w.DropPendingUpdates}
	_, err := c.call(ctx, "setWebhook", params)
	return err
}

// CheckSecret reports whether secret is a valid setWebhook secret_token:
// 1-256 characters of A-Z a-z 0-9 _ -. The error never contains it.
func CheckSecret(secret string) error {
	if secret == "" || len(secret) > 256 || strings.Trim(secret,
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
		return fault.New(fault.Invalid, "webhook secret must be 1-256 characters of A-Z a-z 0-9 _ -")
	}
	return nil
}

// apiResponse is the Bot API's envelope.
type apiResponse struct {
	OK          bool            `json:"ok"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Result      json.RawMessage `json:"result"` // a successful call's result
	Parameters  struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`

	retryAfterHeader string // the HTTP Retry-After header, if any
}

// repeatable reports whether method may be sent again when an earlier
// request's outcome is unknown: doing it twice changes nothing more than
// doing it once. sendMessage is not: a second one is a second message.
func repeatable(method string) bool {
	switch method {
	case "setWebhook", "deleteWebhook", "getWebhookInfo", "getMe", "getFile",
		// the message tool's actions that set a state, not add one
		"setMessageReaction", "editMessageText", "deleteMessage", "pinChatMessage", "unpinChatMessage":
		return true
	}
	return false
}

// call POSTs params as JSON to method. It returns the answer it ended
// with: the success (its Result) or the error answer (nil after a
// network failure), and the classified error.
//
// Retries, all inside ctx's deadline:
//   - 429: Telegram refused the request, so it is sent again after
//     parameters.retry_after (default 1 s), up to maxRateLimitWaits times.
//     A wait that does not fit ctx's deadline (deadline.Default: a second
//     left for the request after it, a minute without a deadline) is not started: the error
//     (fault.Unavailable) comes back at once, for a later retry.
//   - a request that certainly did not reach Telegram (it was never
//     written whole: dial, DNS or TLS errors, a connection lost while
//     writing) is retried with backoff, up to maxTransientAttempts.
//   - a request that may have reached Telegram (written whole, then a
//     timeout or a broken connection, or a 5xx answer) is retried only for
//     repeatable methods. For the others (sendMessage) the error wraps
//     ErrOutcomeUnknown and is returned at once.
//   - any other answer is final (see apiResponse.err).
func (c *Client) call(ctx context.Context, method string, params any) (*apiResponse, error) {
	body, err := json.Marshal(params)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "telegram %s: encode request", method)
	}
	transient, waits := 0, 0
	for {
		a := c.do(ctx, method, body)
		var wait time.Duration
		switch {
		case a.resp != nil && a.resp.OK:
			return a.resp, nil
		case a.resp != nil && a.resp.ErrorCode == http.StatusTooManyRequests:
			waits++
			wait = a.resp.retryAfter()
			if waits > maxRateLimitWaits {
				return a.resp, fault.New(fault.Unavailable, "telegram %s: still rate limited after %d waits, retry after %s", method, maxRateLimitWaits, wait)
			}
			if !deadline.Default.Fits(ctx, wait) {
				return a.resp, fault.New(fault.Unavailable, "telegram %s: rate limited, retry after %s: more than the time left", method, wait)
			}
		case a.resp != nil:
			return a.resp, a.resp.err(method)
		case a.written && !repeatable(method):
			return nil, fmt.Errorf("%w; %w", a.err, ErrOutcomeUnknown)
		case ctx.Err() == nil:
			transient++
			wait = c.backoff << (transient - 1)
			if transient >= maxTransientAttempts || !deadline.Default.Fits(ctx, wait) {
				return nil, a.err
			}
		default:
			return nil, a.err
		}
		if err := deadline.Sleep(ctx, wait); err != nil {
			return nil, fault.Wrap(fault.Unavailable, err, "telegram %s: gave up waiting to retry", method)
		}
	}
}

// attempt is the result of one request.
type attempt struct {
	resp    *apiResponse // the decoded answer (not 5xx); nil when err is set
	err     error        // fault.Unavailable: no usable answer
	written bool         // the request was written whole: Telegram may have acted on it
}

// do makes one request. A 5xx answer or a network failure is an error
// (fault.Unavailable); any other answer the decoded envelope.
//
// written comes from httptrace: WroteRequest reports the request handed
// whole to the connection (HTTP/1 and HTTP/2 alike). A request that was
// not cannot have been acted upon: Telegram reads the whole body (its
// Content-Length) before doing anything. net/http itself resends a POST
// only when none of it was written.
func (c *Client) do(ctx context.Context, method string, body []byte) attempt {
	var written atomic.Bool
	trace := &httptrace.ClientTrace{WroteRequest: func(info httptrace.WroteRequestInfo) {
		if info.Err == nil {
			written.Store(true)
		}
	}}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost,
		c.baseURL+"/bot"+c.token+"/"+method, bytes.NewReader(body))
	if err != nil {
		return attempt{err: fault.Wrap(fault.Invalid, c.redact(err), "telegram %s: build request", method)}
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.client.Do(req)
	if err != nil {
		return attempt{err: fault.Wrap(fault.Unavailable, c.redact(err), "telegram %s", method), written: written.Load()}
	}
	defer res.Body.Close()
	// From here on Telegram has answered: it had the request.
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes))
	if err != nil {
		return attempt{err: fault.Wrap(fault.Unavailable, c.redact(err), "telegram %s: read response (HTTP %d)", method, res.StatusCode), written: true}
	}
	var resp apiResponse
	jsonErr := json.Unmarshal(raw, &resp)
	resp.retryAfterHeader = res.Header.Get("Retry-After")
	switch {
	case res.StatusCode >= 500:
		return attempt{err: fault.New(fault.Unavailable, "telegram %s: %s", method, describe(res.StatusCode, resp.Description)), written: true}
	case jsonErr != nil && res.StatusCode == http.StatusTooManyRequests:
		// A proxy's 429 without the envelope: still a refusal.
		resp = apiResponse{ErrorCode: res.StatusCode, retryAfterHeader: resp.retryAfterHeader}
	case jsonErr != nil:
		return attempt{err: fault.Wrap(fault.Unavailable, jsonErr, "telegram %s: HTTP %d with a malformed body", method, res.StatusCode), written: true}
	}
	if !resp.OK && resp.ErrorCode == 0 {
		resp.ErrorCode = res.StatusCode
	}
	return attempt{resp: &resp, written: true}
}

// retryAfter is how long a 429 asks to wait: parameters.retry_after, else
// the Retry-After header (seconds), else defaultRetryAfter.
func (r *apiResponse) retryAfter() time.Duration {
	if r.Parameters.RetryAfter > 0 {
		return time.Duration(r.Parameters.RetryAfter) * time.Second
	}
	if s, err := strconv.Atoi(strings.TrimSpace(r.retryAfterHeader)); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return defaultRetryAfter
}

// err classifies a Bot API error answer.
func (r *apiResponse) err(method string) error {
	code := fault.Invalid // 400: the request itself, e.g. "chat not found"
	switch r.ErrorCode {
	case http.StatusUnauthorized, http.StatusNotFound:
		// A bad token: a configuration problem, fixed outside this call.
		code = fault.Unauthorized
	case http.StatusForbidden:
		// The bot may not write to this chat (blocked, kicked): the
		// recipient is gone for this bot, not the bot's credentials.
		code = fault.NotFound
	}
	return fault.New(code, "telegram %s: %s", method, describe(r.ErrorCode, r.Description))
}

func describe(status int, description string) string {
	if description == "" {
		description = http.StatusText(status)
	}
	return strconv.Itoa(status) + " " + description
}

// redact removes the bot token from err: *url.Error carries the request URL,
// which has the token in its path.
func (c *Client) redact(err error) error {
	var ue *url.Error
	if c.token == "" || !errors.As(err, &ue) {
		return err
	}
	return &url.Error{Op: ue.Op, URL: strings.ReplaceAll(ue.URL, c.token, "<token>"), Err: ue.Err}
}
