// Package secret is the catalogue of ZERO's secrets (the bot token, the
// webhook secret, the gateway token, the hooks token, the model API keys): their names, the
// function environment variable that names each one's SSM parameter, the
// rules a value must meet, and Derived, which rebuilds what a function
// made from a secret when the secret is rotated.
//
// Values never appear in errors or logs: every error names the secret and
// says what is wrong, never what the value was.
package secret

import (
	"context"
	"crypto/subtle"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/zero-gateway/zero/shared/fault"
)

// MinStrongLen is the least length of a secret ZERO compares against a
// caller's (the webhook secret, the gateway token): 32 characters of a
// 64-letter alphabet are 192 bits.
const MinStrongLen = 32

// Spec describes one secret.
type Spec struct {
	// Name is the secret's short name, the last element of its SSM
	// parameter (/zero/<stack>/secrets/<name>) and what `zero secrets set`
	// takes.
	Name string
	// Env is the function environment variable that holds the SSM
	// parameter's name (template.yaml sets it).
	Env string
	// DevEnv is the variable `zero dev` takes the local value from.
	DevEnv string
	// Use says what the secret is, for help texts.
	Use string
	// Optional secrets may be missing: the feature they unlock is off.
	Optional bool
	// MinLen is the least length accepted (0: any non-empty value).
	MinLen int
	// Alphabet, when set, is every character the value may hold.
	Alphabet string
	// check is an extra rule on the shape (nil: none).
	check func(v string) string
}

// urlSafe is the alphabet of Telegram's secret_token and of what `zero dev`
// generates (base64url).
const urlSafe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"

// The secrets. The runner reads the bot token and the model keys, the
// webhook only its secret (it gets the bot id, not the token), the gateway
// and the hooks only their tokens.
var (
	TelegramBotToken = Spec{
		Name: "telegram-bot-token", Env: "TELEGRAM_BOT_TOKEN_PARAMETER", DevEnv: "TELEGRAM_BOT_TOKEN",
		Use:   "the bot token from @BotFather (<bot id>:<secret>); the runner replies with it",
		check: checkBotToken,
	}
	TelegramWebhookSecret = Spec{
		Name: "telegram-webhook-secret", Env: "TELEGRAM_WEBHOOK_SECRET_PARAMETER", DevEnv: "TELEGRAM_WEBHOOK_SECRET",
		Use:    "the setWebhook secret_token Telegram sends back on every update",
		MinLen: MinStrongLen, Alphabet: urlSafe,
		check: func(v string) string {
			if len(v) > 256 {
				return "is longer than Telegram's 256 characters"
			}
			return ""
		},
	}
	GatewayToken = Spec{
		Name: "gateway-token", Env: "ZERO_GATEWAY_TOKEN_PARAMETER", DevEnv: "ZERO_GATEWAY_TOKEN",
		Use:      "the gateway API's bearer token (missing: the gateway refuses every call)",
		Optional: true, MinLen: MinStrongLen,
	}
	HooksToken = Spec{
		Name: "hooks-token", Env: "ZERO_HOOKS_TOKEN_PARAMETER", DevEnv: "ZERO_HOOKS_TOKEN",
		Use:      "the webhook hooks' bearer token, POST /hooks/wake and /hooks/agent (missing: every hook is refused)",
		Optional: true, MinLen: MinStrongLen,
	}
	DiscordBotToken = Spec{
		Name: "discord-bot-token", Env: "DISCORD_BOT_TOKEN_PARAMETER", DevEnv: "DISCORD_BOT_TOKEN",
		Use:      "the Discord bot token; the runner posts with it once an interaction's 15 minutes are over (missing: those replies are dropped)",
		Optional: true,
	}
	OpenAIAPIKey = Spec{
		Name: "openai-api-key", Env: "OPENAI_API_KEY_PARAMETER", DevEnv: "OPENAI_API_KEY",
		Use: "the key of the OpenAI-compatible API (missing: provider openai off, unless a local base URL)", Optional: true,
	}
	AnthropicAPIKey = Spec{
		Name: "anthropic-api-key", Env: "ANTHROPIC_API_KEY_PARAMETER", DevEnv: "ANTHROPIC_API_KEY",
		Use: "the key of Anthropic's API (missing: provider anthropic off)", Optional: true,
	}
	BraveAPIKey = Spec{
		Name: "brave-api-key", Env: "BRAVE_API_KEY_PARAMETER", DevEnv: "BRAVE_API_KEY",
		Use: "the Brave Search API key of web_search (missing: web_search answers that it is not configured)", Optional: true,
	}
)

// All lists every secret, by name.
func All() []Spec {
	all := []Spec{DiscordBotToken, TelegramBotToken, TelegramWebhookSecret, GatewayToken, HooksToken, OpenAIAPIKey, AnthropicAPIKey, BraveAPIKey}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all
}

// Lookup finds a secret by its short name; the error lists the known ones.
func Lookup(name string) (Spec, error) {
	var names []string
	for _, s := range All() {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Spec{}, fault.New(fault.Invalid, "unknown secret %q (known: %s)", name, strings.Join(names, ", "))
}

// Parameter is the SSM parameter of secret name in stack: template.yaml
// names the same one in the function's environment and IAM policy.
func Parameter(stack, name string) string {
	return "/zero/" + stack + "/secrets/" + name
}

// Check tells whether v is acceptable as the secret's value. The error
// (fault.Invalid) names the secret and the rule, never the value.
func (s Spec) Check(v string) error {
	if v == "" {
		return fault.New(fault.Invalid, "secret %s is empty", s.Name)
	}
	if n := len(v); n < s.MinLen {
		return fault.New(fault.Invalid, "secret %s is too short: it needs at least %d characters (generate one with: openssl rand -base64 48 | tr -d '/+=\\n')", s.Name, s.MinLen)
	}
	for _, r := range v {
		if s.Alphabet != "" && !strings.ContainsRune(s.Alphabet, r) {
			return fault.New(fault.Invalid, "secret %s may hold only A-Z a-z 0-9 _ -", s.Name)
		}
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fault.New(fault.Invalid, "secret %s holds a blank or control character (a pasted newline?)", s.Name)
		}
	}
	if s.check != nil {
		if why := s.check(v); why != "" {
			return fault.New(fault.Invalid, "secret %s %s", s.Name, why)
		}
	}
	return nil
}

// checkBotToken wants <bot id>:<secret>, the id being digits.
func checkBotToken(v string) string {
	id, rest, ok := strings.Cut(v, ":")
	if !ok || id == "" || rest == "" || strings.Trim(id, "0123456789") != "" {
		return "is malformed: want <bot id>:<secret> from @BotFather"
	}
	return ""
}

// BotID is the numeric bot id in front of a bot token's ':' ("" when the
// token is malformed). It is public: Telegram shows it in the bot's links.
func BotID(token string) string {
	if checkBotToken(token) != "" {
		return ""
	}
	id, _, _ := strings.Cut(token, ":")
	return id
}

// Getter gives a secret's current value by its spec (ssmparam.Secrets is
// one: read at cold start, re-read after a TTL).
type Getter interface {
	Get(ctx context.Context, s Spec) (string, error)
}

// Derived is something built from a secret (a client holding a token, a
// handler holding a secret) that is rebuilt when the secret's value
// changes, so a rotation reaches it within the getter's TTL. Safe for
// concurrent use.
type Derived[T any] struct {
	src   Getter
	spec  Spec
	build func(value string) (T, error)

	mu   sync.Mutex
	last []byte
	cur  T
	have bool
}

// Derive returns a Derived that builds with build from spec's value.
func Derive[T any](src Getter, spec Spec, build func(value string) (T, error)) *Derived[T] {
	return &Derived[T]{src: src, spec: spec, build: build}
}

// Get returns what was built from the secret's current value, building it
// again if the value changed. When the secret cannot be read the error
// names it.
func (d *Derived[T]) Get(ctx context.Context) (T, error) {
	v, err := d.src.Get(ctx, d.spec)
	if err != nil {
		var zero T
		return zero, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.have && len(d.last) == len(v) && subtle.ConstantTimeCompare(d.last, []byte(v)) == 1 {
		return d.cur, nil
	}
	cur, err := d.build(v)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("secret %s: %w", d.spec.Name, err)
	}
	d.cur, d.last, d.have = cur, []byte(v), true
	return cur, nil
}

// OrEmpty reads through g, a secret that is not set (fault.NotFound) being
// "" rather than an error: for optional secrets, whose absence turns a
// feature off.
func OrEmpty(g Getter) Getter { return orEmpty{g} }

type orEmpty struct{ g Getter }

func (o orEmpty) Get(ctx context.Context, s Spec) (string, error) {
	v, err := o.g.Get(ctx, s)
	if fault.Is(err, fault.NotFound) {
		return "", nil
	}
	return v, err
}
