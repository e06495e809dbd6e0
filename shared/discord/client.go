package discord

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/deadline"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
)

// DefaultBaseURL is Discord's REST API.
const DefaultBaseURL = "https://discord.com/api/v10"

// MaxMessageLength is Discord's cap on a message's content.
const MaxMessageLength = 2000

const (
	maxRateLimitWaits = 5
	defaultRetryAfter = time.Second
	maxResponseBytes  = 1 << 20
	// tokenMargin is kept before the interaction token's expiry: a
	// request started later goes through the bot token instead.
	tokenMargin = 30 * time.Second
)

// ClientConfig configures NewClient.
type ClientConfig struct {
	BaseURL       string // "" means DefaultBaseURL
	ApplicationID string // for the interaction webhooks
	// BotToken, when set, posts messages whose interaction token has
	// expired (or that have none); without it they are undeliverable.
	BotToken   string
	HTTPClient *http.Client // nil: 30 s timeout
	// CDNBaseURL, when set, is where FetchAttachment sends its requests
	// instead of the attachment URL's CDN host (for fakes).
	CDNBaseURL string
	Now        func() time.Time // nil: time.Now
}

// Client delivers replies to Discord; it is the runner's turn.Sender (and
// turn.PartSender) for channel discord. It is safe for concurrent use.
type Client struct {
	base, appID, botToken string
	cdnBase               string
	http                  *http.Client
	now                   func() time.Time
}

// NewClient returns a Client for cfg.
func NewClient(cfg ClientConfig) *Client {
	c := &Client{base: strings.TrimRight(cfg.BaseURL, "/"), appID: cfg.ApplicationID, botToken: cfg.BotToken,
		cdnBase: strings.TrimRight(cfg.CDNBaseURL, "/"), http: cfg.HTTPClient, now: cfg.Now}
	if c.base == "" {
		c.base = DefaultBaseURL
	}
	if c.http == nil {
		c.http = &http.Client{Timeout: 30 * time.Second}
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

// Render splits text into messages of at most MaxMessageLength characters,
// cut at a paragraph, line or word break when there is one. Discord renders
// the model's Markdown itself. Text with nothing visible renders to none.
func (c *Client) Render(text string) []string { return split(text, MaxMessageLength) }

// Post sends a message that is not the first of its reply: a follow-up
// while the interaction token is valid, else a channel message with the
// bot token.
func (c *Client) Post(ctx context.Context, to session.DeliveryContext, message string) error {
	return c.PostPart(ctx, to, 1, message)
}

// PostPart sends message number part of a reply to to. While to's
// interaction token is valid (TokenLifetime from its issue, less a
// margin), part 0 edits the deferred response
// (PATCH /webhooks/{app}/{token}/messages/@original) and the others are
// follow-ups (POST /webhooks/{app}/{token}); later, or without a token,
// every part is POST /channels/{to.To}/messages with the bot token.
// Every message is sent with allowed_mentions {parse: []}.
//
// Errors: fault.Invalid (the request is refused for good, or there is no
// way left to deliver: token expired and no bot token), fault.NotFound
// (the channel is gone or the bot may not write there),
// fault.Unauthorized (a bad bot token), fault.Unavailable (network, 5xx,
// rate limited beyond the deadline).
func (c *Client) PostPart(ctx context.Context, to session.DeliveryContext, part int, message string) error {
	if to.Channel != "" && to.Channel != Channel {
		return fault.New(fault.Invalid, "discord send: delivery is for channel %q", to.Channel)
	}
	body := messageBody{Content: message, AllowedMentions: noMentions()}
	if c.tokenValid(to) {
		path := "/webhooks/" + url.PathEscape(c.appID) + "/" + url.PathEscape(to.ReplyToken)
		method, what := http.MethodPost, "follow-up"
		if part == 0 {
			method, path, what = http.MethodPatch, path+"/messages/@original", "edit original"
		}
		return c.call(ctx, what, method, path, "", body)
	}
	if c.botToken == "" {
		return fault.New(fault.Invalid, "discord send: the interaction token has expired and no bot token is configured (secret discord-bot-token)")
	}
	if strings.TrimSpace(to.To) == "" {
		return fault.New(fault.Invalid, "discord send: no channel id")
	}
	if err := snowflake("channel", to.To); err != nil {
		return err
	}
	return c.call(ctx, "channel message", http.MethodPost, "/channels/"+url.PathEscape(to.To)+"/messages", "Bot "+c.botToken, body)
}

// tokenValid reports whether to's interaction token can still be used.
func (c *Client) tokenValid(to session.DeliveryContext) bool {
	if to.ReplyToken == "" || c.appID == "" {
		return false
	}
	issued := time.UnixMilli(to.ReplyTokenAt)
	return c.now().Before(issued.Add(TokenLifetime - tokenMargin))
}

type messageBody struct {
	Content         string          `json:"content"`
	AllowedMentions allowedMentions `json:"allowed_mentions"`
}

// call sends one request, waiting out 429s (retry_after, seconds) while
// the wait fits ctx's deadline. Nothing else is retried: a message whose
// outcome is unknown is not sent twice (the queue's retry resends it).
func (c *Client) call(ctx context.Context, what, method, path, auth string, v any) error {
	return c.callInto(ctx, what, method, path, auth, v, nil)
}

// callInto is call with a JSON answer decoded into out (nil: ignored); a
// nil v sends no body.
func (c *Client) callInto(ctx context.Context, what, method, path, auth string, v, out any) error {
	var payload []byte
	if v != nil {
		var err error
		if payload, err = json.Marshal(v); err != nil {
			return fault.Wrap(fault.Internal, err, "discord %s: encode", what)
		}
	}
	for waits := 0; ; waits++ {
		status, wait, desc, raw, err := c.do(ctx, method, path, auth, payload)
		if err != nil {
			return fault.Wrap(fault.Unavailable, err, "discord %s", what)
		}
		switch {
		case status >= 200 && status < 300:
			return decodeAnswer(what, raw, out)
		case status == http.StatusTooManyRequests:
			if waits >= maxRateLimitWaits {
				return fault.New(fault.Unavailable, "discord %s: still rate limited after %d waits", what, waits)
			}
			if !deadline.Default.Fits(ctx, wait) {
				return fault.New(fault.Unavailable, "discord %s: rate limited, retry after %s: more than the time left", what, wait)
			}
			if err := deadline.Sleep(ctx, wait); err != nil {
				return fault.Wrap(fault.Unavailable, err, "discord %s: gave up waiting to retry", what)
			}
		case status >= 500:
			return fault.New(fault.Unavailable, "discord %s: %d %s", what, status, desc)
		case status == http.StatusUnauthorized && auth != "":
			return fault.New(fault.Unauthorized, "discord %s: 401 %s (check the bot token)", what, desc)
		case status == http.StatusForbidden || status == http.StatusNotFound:
			return fault.New(fault.NotFound, "discord %s: %d %s", what, status, desc)
		default:
			return fault.New(fault.Invalid, "discord %s: %d %s", what, status, desc)
		}
	}
}

// decodeAnswer decodes a success's body into out (nil: nothing to read).
func decodeAnswer(what string, raw []byte, out any) error {
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fault.Wrap(fault.Unavailable, err, "discord %s: malformed answer", what)
	}
	return nil
}

// do makes one request: its status, a 429's wait, Discord's message, the
// body. The error (no answer) never carries the path, which holds the
// token. A nil payload sends no body.
func (c *Client) do(ctx context.Context, method, path, auth string, payload []byte) (int, time.Duration, string, []byte, error) {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return 0, 0, "", nil, fmt.Errorf("build request")
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", "DiscordBot (https://github.com/zero-gateway/zero, 1)")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if asURLError(err, &ue) {
			err = ue.Err // the URL holds the interaction token
		}
		return 0, 0, "", nil, err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes))
	var ans struct {
		Message    string  `json:"message"`
		RetryAfter float64 `json:"retry_after"`
	}
	_ = json.Unmarshal(raw, &ans)
	wait := time.Duration(ans.RetryAfter * float64(time.Second))
	if wait <= 0 {
		wait = defaultRetryAfter
	}
	if ans.Message == "" {
		ans.Message = http.StatusText(res.StatusCode)
	}
	return res.StatusCode, wait, ans.Message, raw, nil
}

func asURLError(err error, target **url.Error) bool {
	ue, ok := err.(*url.Error)
	if ok {
		*target = ue
	}
	return ok
}

// split cuts text into pieces of at most limit characters (runes),
// preferring a paragraph break, then a line break, then a space in the
// second half of a piece.
func split(text string, limit int) []string {
	text = strings.TrimSpace(text)
	var out []string
	for text != "" {
		if utf8.RuneCountInString(text) <= limit {
			out = append(out, text)
			break
		}
		cut := byteIndexOfRune(text, limit)
		head := text[:cut]
		for _, sep := range []string{"\n\n", "\n", " "} {
			if i := strings.LastIndex(head, sep); i > 0 && utf8.RuneCountInString(head[:i]) > limit/2 {
				cut = i
				break
			}
		}
		if piece := strings.TrimSpace(text[:cut]); piece != "" {
			out = append(out, piece)
		}
		text = strings.TrimSpace(text[cut:])
	}
	return out
}

// byteIndexOfRune is the byte offset of rune n of s.
func byteIndexOfRune(s string, n int) int {
	i := 0
	for j := range s {
		if i == n {
			return j
		}
		i++
	}
	return len(s)
}
