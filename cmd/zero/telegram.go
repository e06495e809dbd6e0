package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/telegram"
)

// Environment variables of `zero telegram set-webhook`.
const (
	telegramTokenEnv  = "TELEGRAM_BOT_TOKEN"
	telegramSecretEnv = "TELEGRAM_WEBHOOK_SECRET"
)

// telegramWebhookPath is where the gateway's HTTP API takes Telegram updates.
const telegramWebhookPath = "/webhooks/telegram"

// runTelegram is `zero telegram`: set up the Telegram bot.
func runTelegram(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, "telegram", args, stdout, stderr, []string{
		"usage: zero telegram set-webhook --url PUBLIC_URL [--secret S] [--token T] [--api URL] [--drop-pending]",
		"",
		"set-webhook points the bot at the deployed webhook (PUBLIC_URL/webhooks/telegram).",
	}, map[string]subcommand{"set-webhook": runSetWebhook})
}

// runSetWebhook is `zero telegram set-webhook`: Bot API setWebhook with the
// webhook URL, the secret Telegram sends back in every update and the update
// types ZERO handles. Neither the bot token nor the secret is ever printed.
func runSetWebhook(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero telegram set-webhook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	publicURL := fs.String("url", "", "the public URL of the HTTP API, e.g. https://abc.execute-api.eu-west-1.amazonaws.com (required); "+telegramWebhookPath+" is appended unless it is there")
	secret := fs.String("secret", "", fmt.Sprintf("the webhook secret, 1-256 of A-Z a-z 0-9 _ - (default $%s)", telegramSecretEnv))
	token := fs.String("token", "", fmt.Sprintf("the bot token (default $%s)", telegramTokenEnv))
	api := fs.String("api", telegram.DefaultBaseURL, "the Bot API base URL")
	dropPending := fs.Bool("drop-pending", false, "drop the updates Telegram has queued for the bot")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: zero telegram set-webhook --url PUBLIC_URL [--secret S] [--token T] [--api URL] [--drop-pending]")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Calls the Bot API's setWebhook: url PUBLIC_URL/webhooks/telegram, secret_token S,")
		fmt.Fprintln(stderr, "allowed_updates message and channel_post. The secret must be the stack's webhook")
		fmt.Fprintln(stderr, "secret, or the webhook refuses every update with 401.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("zero telegram set-webhook takes no arguments, got %q", fs.Args())
	}
	if *publicURL == "" {
		fs.Usage()
		return errors.New("--url is required")
	}
	hook, err := webhookURL(*publicURL)
	if err != nil {
		return err
	}
	if *token == "" {
		*token = os.Getenv(telegramTokenEnv)
	}
	if *token == "" {
		return fmt.Errorf("no bot token: pass --token or set %s", telegramTokenEnv)
	}
	if *secret == "" {
		*secret = os.Getenv(telegramSecretEnv)
	}
	if *secret == "" {
		return fmt.Errorf("no webhook secret: pass --secret or set %s", telegramSecretEnv)
	}
	if err := telegram.CheckSecret(*secret); err != nil {
		return fmt.Errorf("set-webhook: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if *dropPending {
		err = setWebhookDroppingPending(ctx, *api, *token, hook, *secret)
	} else {
		err = telegram.NewClient(*api, *token, nil).SetWebhook(ctx, hook, *secret)
	}
	if err != nil {
		return fmt.Errorf("set-webhook: %w", redactSecrets(err, *token, *secret))
	}
	fmt.Fprintf(stdout, "webhook set: %s\n", hook)
	fmt.Fprintln(stdout, "updates: message, channel_post; each carries the secret in X-Telegram-Bot-Api-Secret-Token")
	if *dropPending {
		fmt.Fprintln(stdout, "pending updates dropped")
	}
	return nil
}

// webhookURL is the public URL with the webhook path, added unless it ends
// with it already.
func webhookURL(public string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(public))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("--url %q: want the public https://host of the HTTP API", public)
	}
	s := strings.TrimRight(u.String(), "/")
	if !strings.HasSuffix(s, telegramWebhookPath) {
		s += telegramWebhookPath
	}
	return s, nil
}

// setWebhookDroppingPending is setWebhook with drop_pending_updates, which
// telegram.Client.SetWebhook does not send.
func setWebhookDroppingPending(ctx context.Context, api, token, hook, secret string) error {
	body, err := json.Marshal(map[string]any{
		"url":                  hook,
		"secret_token":         secret,
		"allowed_updates":      []string{"message", "channel_post"},
		"drop_pending_updates": true,
	})
	if err != nil {
		return fmt.Errorf("telegram setWebhook: encode request: %w", err)
	}
	endpoint := strings.TrimRight(api, "/") + "/bot" + token + "/setWebhook"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("telegram setWebhook: build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("telegram setWebhook: %w", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("telegram setWebhook: read response: %w", err)
	}
	var resp struct {
		OK          bool   `json:"ok"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return fmt.Errorf("telegram setWebhook: HTTP %d with a malformed body", res.StatusCode)
	}
	if !resp.OK {
		desc := resp.Description
		if desc == "" {
			desc = http.StatusText(res.StatusCode)
		}
		return fmt.Errorf("telegram setWebhook: %d %s", res.StatusCode, desc)
	}
	return nil
}

// redactedError is an error whose message had secrets removed; it keeps
// the original for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactSecrets replaces the bot token and the webhook secret in err's
// message, so that neither reaches the terminal.
func redactSecrets(err error, token, secret string) error {
	msg := err.Error()
	clean := msg
	if token != "" {
		clean = strings.ReplaceAll(clean, token, "<token>")
	}
	if secret != "" {
		clean = strings.ReplaceAll(clean, secret, "<secret>")
	}
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}
