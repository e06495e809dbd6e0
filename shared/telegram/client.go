package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
)

// DefaultBaseURL is the public Bot API.
const DefaultBaseURL = "https://api.telegram.org"

// Retry policy for one Bot API call.
const (
	maxTransientAttempts = 3 // network errors and 5xx
	maxRateLimitWaits    = 5 // 429s honoured before giving up
	defaultRetryAfter    = time.Second
	maxResponseBytes     = 1 << 20
)

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
	ParseMode       string `json:"parse_mode"`
}

// Render turns model text into sendMessage texts for parse mode HTML:
// `<`, `>` and `&` are escaped, ``` fences, `code` and **bold** become
// tags, and text over 4096 characters becomes several messages, cut at
// paragraph, line or word breaks. Text with nothing visible renders to none.
// It is pure: the same text always renders the same messages.
func (c *Client) Render(text string) []string { return formatHTML(text, maxMessageLength) }

// Post sends one rendered message (see Render) to the chat (and forum
// topic) in to with sendMessage.
func (c *Client) Post(ctx context.Context, to session.DeliveryContext, message string) error {
	params, err := sendParams(to)
	if err != nil {
		return err
	}
	params.Text = message
	return c.call(ctx, "sendMessage", params)
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

// SetWebhook points the bot at url, asking Telegram to send secret in
// SecretHeader and to deliver only the update types ZERO handles.
func (c *Client) SetWebhook(ctx context.Context, url, secret string) error {
	if err := CheckSecret(secret); err != nil {
		return err
	}
	params := struct {
		URL            string   `json:"url"`
		SecretToken    string   `json:"secret_token"`
		AllowedUpdates []string `json:"allowed_updates"`
	}{url, secret, []string{"message", "channel_post"}}
	return c.call(ctx, "setWebhook", params)
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
	OK          bool   `json:"ok"`
	ErrorCode   int    `json:"error_code"`
	Description string `json:"description"`
	Parameters  struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

// call POSTs params as JSON to method; ZERO needs no method's result. It
// retries network errors and 5xx a few times with backoff, and waits out
// 429s for as long as Telegram asks if ctx allows.
func (c *Client) call(ctx context.Context, method string, params any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "telegram %s: encode request", method)
	}
	transient, waits := 0, 0
	for {
		resp, err := c.do(ctx, method, body)
		var wait time.Duration
		switch {
		case err == nil && resp.OK:
			return nil
		case err == nil && resp.ErrorCode == http.StatusTooManyRequests:
			waits++
			wait = time.Duration(resp.Parameters.RetryAfter) * time.Second
			if wait <= 0 {
				wait = defaultRetryAfter
			}
			if waits > maxRateLimitWaits || !fits(ctx, wait) {
				return fault.New(fault.RateLimited, "telegram %s: rate limited, retry after %s", method, wait)
			}
		case err == nil:
			return resp.err(method)
		case fault.Is(err, fault.Unavailable) && ctx.Err() == nil:
			transient++
			wait = c.backoff << (transient - 1)
			if transient >= maxTransientAttempts || !fits(ctx, wait) {
				return err
			}
		default:
			return err
		}
		if err := sleep(ctx, wait); err != nil {
			return fault.Wrap(fault.Unavailable, err, "telegram %s: gave up waiting to retry", method)
		}
	}
}

// do makes one request. A 5xx answer or a network failure is returned as a
// fault.Unavailable error; any other answer as the decoded envelope.
func (c *Client) do(ctx context.Context, method string, body []byte) (*apiResponse, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+"/bot"+c.token+"/"+method, bytes.NewReader(body))
	if err != nil {
		return nil, fault.Wrap(fault.Invalid, c.redact(err), "telegram %s: build request", method)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.client.Do(req)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, c.redact(err), "telegram %s", method)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes))
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, c.redact(err), "telegram %s: read response", method)
	}
	var resp apiResponse
	jsonErr := json.Unmarshal(raw, &resp)
	if res.StatusCode >= 500 {
		return nil, fault.New(fault.Unavailable, "telegram %s: %s", method, describe(res.StatusCode, resp.Description))
	}
	if jsonErr != nil {
		return nil, fault.Wrap(fault.Unavailable, jsonErr, "telegram %s: HTTP %d with a malformed body", method, res.StatusCode)
	}
	if !resp.OK && resp.ErrorCode == 0 {
		resp.ErrorCode = res.StatusCode
	}
	return &resp, nil
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

// fits reports whether waiting d still leaves time before ctx's deadline.
func fits(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return !ok || time.Until(deadline) > d
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
