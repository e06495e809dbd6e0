package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zero-gateway/zero/cmd/zero/devstack"
	"github.com/zero-gateway/zero/cmd/zero/devstack/provision"
	"github.com/zero-gateway/zero/shared/secret"
)

// fakeBotToken is the dev default: shaped like a real token (bot id 123456)
// so the webhook can derive its bot id, but Telegram rejects it.
const fakeBotToken = "123456:dev-token"

// devParam maps an environment variable to a template parameter.
type devParam struct {
	env, param string
}

// devParams are the template parameters `zero dev` takes from the
// environment; unset ones keep the template's defaults. The secrets are no
// parameters: see devSettings.secrets.
var devParams = []devParam{
	{"TELEGRAM_API_BASE_URL", "TelegramAPIBaseURL"},
	{"OPENAI_BASE_URL", "OpenAIBaseURL"},
	{"ZERO_MODEL", "ZeroModel"},
	{"DISCORD_PUBLIC_KEY", "DiscordPublicKey"},
	{"DISCORD_APPLICATION_ID", "DiscordApplicationId"},
	{"DISCORD_API_BASE_URL", "DiscordAPIBaseURL"},
}

// devSettings are the template parameters for `zero dev` and what the user
// should be told about them.
type devSettings struct {
	params map[string]string
	// secrets are the secrets' values by name (secret.Spec.Name), taken
	// from their Spec.DevEnv variables; zero dev writes them into the
	// emulator's SSM as SecureString parameters, where the functions read
	// them. The bot id (TelegramBotId) comes from the token.
	secrets map[string]string
	// secret is the webhook secret; generated tells whether it was made up
	// here (then it may be printed) or came from the environment (never printed).
	secret    string
	generated bool
	// gatewayToken is the gateway API's token, generated unless
	// ZERO_GATEWAY_TOKEN is set; it is printed either way (it is local).
	gatewayToken string
	// hooksToken is the webhook hooks' token, generated unless
	// ZERO_HOOKS_TOKEN is set; printed either way (it is local).
	hooksToken string
	// standIn: no bot is configured, so replies go to a local stand-in.
	standIn bool
	notes   []string
}

// devParamsFromEnv reads the parameters from getenv, filling the dev
// defaults: a fake bot token, a generated webhook secret, and the model
// zero/echo (openai/gpt-4o-mini when OPENAI_API_KEY is set).
func devParamsFromEnv(getenv func(string) string) (devSettings, error) {
	s := devSettings{params: map[string]string{}, secrets: map[string]string{}}
	for _, p := range devParams {
		if v := getenv(p.env); v != "" {
			s.params[p.param] = v
		}
	}
	for _, spec := range secret.All() {
		v := getenv(spec.DevEnv)
		if v == "" {
			continue
		}
		// The same rules as `zero secrets set` and the functions' cold
		// start: a short webhook secret or gateway token stops here.
		if err := spec.Check(v); err != nil {
			return s, fmt.Errorf("%s: %w", spec.DevEnv, err)
		}
		s.secrets[spec.Name] = v
	}
	if _, ok := s.secrets[secret.TelegramBotToken.Name]; !ok {
		s.secrets[secret.TelegramBotToken.Name] = fakeBotToken
		if _, ok := s.params["TelegramAPIBaseURL"]; ok {
			s.notes = append(s.notes, "TELEGRAM_BOT_TOKEN is not set: using the fake token "+fakeBotToken)
		} else {
			s.standIn = true
			s.notes = append(s.notes, "TELEGRAM_BOT_TOKEN is not set: replies go to a local Telegram stand-in and are printed here")
		}
	}
	s.params["TelegramBotId"] = secret.BotID(s.secrets[secret.TelegramBotToken.Name])
	var err error
	if s.secret, s.generated, err = s.orGenerate(secret.TelegramWebhookSecret); err != nil {
		return s, err
	}
	if s.gatewayToken, _, err = s.orGenerate(secret.GatewayToken); err != nil {
		return s, err
	}
	if s.hooksToken, _, err = s.orGenerate(secret.HooksToken); err != nil {
		return s, err
	}
	if _, ok := s.params["ZeroModel"]; !ok {
		if getenv("OPENAI_API_KEY") != "" {
			s.params["ZeroModel"] = "openai/gpt-4o-mini"
		} else {
			s.params["ZeroModel"] = "zero/echo"
		}
	}
	return s, nil
}

// orGenerate returns the secret spec names from the environment, or a
// random 32-character one (generated) that zero dev then writes like the
// others.
func (s *devSettings) orGenerate(spec secret.Spec) (value string, generated bool, err error) {
	if v, ok := s.secrets[spec.Name]; ok {
		return v, false, nil
	}
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", false, fmt.Errorf("generate %s: %w", spec.Name, err)
	}
	v := base64.RawURLEncoding.EncodeToString(b[:])
	s.secrets[spec.Name] = v
	return v, true, nil
}

func runDev(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	opts, full, err := parseDevFlags(args, stderr)
	if err != nil {
		return err
	}
	settings, err := devParamsFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	// Validate the config before starting anything: a bad file stops here.
	conf, err := loadDevConfig(os.Getenv)
	if err != nil {
		return err
	}
	startup := &startupLog{out: stderr, full: full, now: time.Now}
	logf := startup.logf
	for _, n := range settings.notes {
		logf("note: %s", n)
	}
	for _, line := range describeDevConfig(conf) {
		logf("%s", line)
	}
	if settings.standIn {
		tg, err := startTelegramStandIn(stdout)
		if err != nil {
			return err
		}
		defer tg.Close()
		settings.params["TelegramAPIBaseURL"] = tg.URL
	}
	opts.Params, opts.Secrets, opts.Config = settings.params, settings.secrets, storable(conf.data)
	opts.Output, opts.Logf = stderr, logf
	st, err := devstack.Start(ctx, opts)
	if err != nil {
		startup.failed()
		return fmt.Errorf("start local stack: %w", err)
	}
	defer st.Close()
	startup.started()
	if conf.loc.path != "" {
		w := newConfigWatcher(conf.loc.path, conf.stamp, st.PutConfig, logf)
		go w.run(ctx, configPollInterval)
	}
	if full {
		fmt.Fprint(stdout, "\n"+st.Describe())
	}
	newDevBanner(st, settings, conf, full).print(stdout) // dev_banner.go

	<-ctx.Done()
	// A second Ctrl-C quits at once; children die with us (Pdeathsig).
	signal.Reset(os.Interrupt, syscall.SIGTERM)
	logf("stopping (finishing the open queue polls, up to %s; Ctrl-C again to quit now)", opts.PollWait)
	err = st.Close()
	logf("stopped")
	return err
}

// parseDevFlags reads zero dev's flags into the stack's options (the
// parameters, secrets and config come from the environment).
func parseDevFlags(args []string, stderr io.Writer) (opts devstack.Options, full bool, err error) {
	fs := flag.NewFlagSet("zero dev", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { devUsage(stderr, fs) }
	root := fs.String("root", ".", "repository root (template.yaml, infra/, functions/)")
	addr := fs.String("addr", devstack.DefaultFrontAddr, "HTTP API listen address")
	emu := fs.String("emulator", devstack.DefaultEmulatorAddr, "AWS emulator address to use, or to start moto on")
	prefix := fs.String("prefix", devstack.DefaultPrefix, "name prefix of the local resources")
	pollWait := fs.Duration("poll-wait", 5*time.Second, "SQS long-poll wait of the queue triggers, 1s-20s (Ctrl-C waits for an open poll to end, so that no message stays hidden)")
	pools := fs.String("pool", "", "RIE processes per function, e.g. Runner=4,TelegramWebhook=2")
	verbose := fs.Bool("v", false, "also show the RIE's per-invocation log lines")
	fullFlag := fs.Bool("full", false, "show every startup step and list every route, queue, function, trigger, output and skipped resource")
	if err := fs.Parse(args); err != nil {
		return devstack.Options{}, false, err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return devstack.Options{}, false, fmt.Errorf("zero dev takes no arguments, got %q", fs.Args())
	}
	sizes, err := parsePoolSizes(*pools)
	if err != nil {
		return devstack.Options{}, false, err
	}
	return devstack.Options{
		Root: *root, Prefix: *prefix, EmulatorAddr: *emu, FrontAddr: *addr,
		PollWait: *pollWait, PoolSizes: sizes, Verbose: *verbose,
	}, *fullFlag, nil
}

// devUsage is zero dev's help.
func devUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `usage: zero dev [flags]

Runs ZERO locally without Docker: provisions template.yaml's queues, table and bucket
on the AWS emulator (uses one answering on -emulator, else starts moto there), builds
the functions for this machine, runs them under aws-lambda-rie, serves the HTTP API
routes and feeds the SQS triggers. Ctrl-C stops everything it started.

Parameters come from TELEGRAM_API_BASE_URL, OPENAI_BASE_URL, ZERO_MODEL, DISCORD_PUBLIC_KEY
(hex), DISCORD_APPLICATION_ID and DISCORD_API_BASE_URL; DISCORD_BOT_TOKEN is a secret. The secrets
TELEGRAM_BOT_TOKEN, TELEGRAM_WEBHOOK_SECRET, ZERO_GATEWAY_TOKEN, OPENAI_API_KEY and
ANTHROPIC_API_KEY are written into the emulator's SSM as SecureString parameters, where
the functions read them; the webhook secret and the gateway token need 32+ characters
(generated when unset).

The config is the zero.json named by ZERO_CONFIG, else ~/.zero/zero.json, else a local
config that admits everyone. It is validated at start (an invalid one stops zero dev) and
watched: valid edits apply within seconds, invalid ones are reported and not applied.

`)
	fs.PrintDefaults()
}

// configPollInterval is how often `zero dev` looks at zero.json for edits.
const configPollInterval = 2 * time.Second

// describeDevConfig says which config `zero dev` runs with, and its warnings.
func describeDevConfig(c devConfig) []string {
	if !c.loc.exists {
		lines := []string{devConfigNotice}
		if c.loc.path != "" {
			lines = append(lines, fmt.Sprintf("create %s or set %s to use your own; zero dev picks it up when it appears", c.loc.path, configEnv))
		}
		return lines
	}
	lines := []string{"config: " + c.loc.path}
	for _, w := range c.cfg.Warnings() {
		lines = append(lines, "config warning: "+w)
	}
	return lines
}

// telegramPath is the route path to show in the sample request.
func telegramPath(routes []provision.Route) string {
	for _, r := range routes {
		if strings.Contains(r.Path, "telegram") {
			return r.Path
		}
	}
	if len(routes) > 0 && routes[0].Path != "$default" {
		return routes[0].Path
	}
	return "/webhooks/telegram"
}

// parsePoolSizes parses "Runner=4,TelegramWebhook=2".
func parsePoolSizes(s string) (map[string]int, error) {
	sizes := map[string]int{}
	if s == "" {
		return sizes, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, n, ok := strings.Cut(strings.TrimSpace(part), "=")
		size, err := strconv.Atoi(n)
		if !ok || name == "" || err != nil || size < 1 {
			return nil, fmt.Errorf("-pool %q: want Function=N with N >= 1", part)
		}
		sizes[name] = size
	}
	return sizes, nil
}
