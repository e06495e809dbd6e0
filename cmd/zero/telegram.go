package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
		"usage: zero telegram set-webhook --url PUBLIC_URL [--secret S] [--token T] [--api URL] [--max-connections N] [--drop-pending]",
		"",
		"set-webhook points the bot at the deployed webhook (PUBLIC_URL/webhooks/telegram).",
	}, map[string]subcommand{"set-webhook": runSetWebhook})
}

// runSetWebhook is `zero telegram set-webhook`: Bot API setWebhook with the
// webhook URL, the secret Telegram sends back in every update, the update
// types ZERO handles (telegram.AllowedUpdates) and max_connections
// (telegram.DefaultMaxConnections unless --max-connections says otherwise;
// see there why 40). Pending updates are dropped only with --drop-pending.
// Neither the bot token nor the secret is ever printed.
func runSetWebhook(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero telegram set-webhook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	publicURL := fs.String("url", "", "the public URL of the HTTP API, e.g. https://abc.execute-api.eu-west-1.amazonaws.com (required); "+telegramWebhookPath+" is appended unless it is there")
	secret := fs.String("secret", "", fmt.Sprintf("the webhook secret, 1-256 of A-Z a-z 0-9 _ - (default $%s)", telegramSecretEnv))
	token := fs.String("token", "", fmt.Sprintf("the bot token (default $%s)", telegramTokenEnv))
	api := fs.String("api", telegram.DefaultBaseURL, "the Bot API base URL")
	maxConns := fs.Int("max-connections", telegram.DefaultMaxConnections, "at most this many updates in flight at once (1-100): the webhook function's concurrency; one chat's updates always come one at a time")
	dropPending := fs.Bool("drop-pending", false, "drop the updates Telegram has queued for the bot (they are lost)")
	allowed := strings.Join(telegram.AllowedUpdates(), ", ")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: zero telegram set-webhook --url PUBLIC_URL [--secret S] [--token T] [--api URL] [--max-connections N] [--drop-pending]")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Calls the Bot API's setWebhook: url PUBLIC_URL/webhooks/telegram, secret_token S,")
		fmt.Fprintf(stderr, "allowed_updates %s, max_connections N. The secret must be the stack's\n", allowed)
		fmt.Fprintln(stderr, "webhook secret, or the webhook refuses every update with 401.")
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
	if *maxConns < 1 || *maxConns > 100 {
		return fmt.Errorf("--max-connections %d: want 1-100", *maxConns)
	}
	hook, err := webhookURL(*publicURL)
	if err != nil {
		return err
	}
	if *token, *secret, err = webhookCredentials(*token, *secret); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	err = telegram.NewClient(*api, *token, nil).SetWebhook(ctx, telegram.Webhook{
		URL:                hook,
		Secret:             *secret,
		MaxConnections:     *maxConns,
		DropPendingUpdates: *dropPending,
	})
	if err != nil {
		return fmt.Errorf("set-webhook: %w", redactSecrets(err, *token, *secret))
	}
	fmt.Fprintf(stdout, "webhook set: %s\n", hook)
	fmt.Fprintf(stdout, "updates: %s; at most %d at once; each carries the secret in %s\n", allowed, *maxConns, telegram.SecretHeader)
	if *dropPending {
		fmt.Fprintln(stdout, "pending updates dropped")
	}
	return nil
}

// webhookCredentials are the bot token and webhook secret of
// set-webhook: the flags', else the environment's; both required, the
// secret in Telegram's alphabet.
func webhookCredentials(token, secret string) (string, string, error) {
	if token == "" {
		token = os.Getenv(telegramTokenEnv)
	}
	if token == "" {
		return "", "", fmt.Errorf("no bot token: pass --token or set %s", telegramTokenEnv)
	}
	if secret == "" {
		secret = os.Getenv(telegramSecretEnv)
	}
	if secret == "" {
		return "", "", fmt.Errorf("no webhook secret: pass --secret or set %s", telegramSecretEnv)
	}
	if err := telegram.CheckSecret(secret); err != nil {
		return "", "", fmt.Errorf("set-webhook: %w", err)
	}
	return token, secret, nil
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
