package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/zero-gateway/zero/cmd/zero/devstack"
)

// devReadyLine ends zero dev's ready banner: a reader of the output (a
// test, a script) knows the stack is up once it sees it.
const devReadyLine = "Ctrl-C stops everything."

// devBanner is what the ready banner tells: where ZERO runs, its tokens,
// and how to try it. It holds no stack, so it can be printed and tested
// without one.
type devBanner struct {
	front, endpoint string
	emulatorStarted bool
	telegramPath    string
	model           string
	gatewayToken    string
	hooksToken      string
	secret          string // the webhook secret to show; "" when it came from the environment
	standIn         bool
	config          string   // the config file, or devConfigNotice
	skipped         []string // the template's resources not emulated locally, sorted
	full            bool     // -full: the full listing was printed above
}

// newDevBanner reads the banner's facts off a started stack.
func newDevBanner(st *devstack.Stack, s devSettings, conf devConfig, full bool) devBanner {
	b := devBanner{
		front: st.FrontURL, endpoint: st.EndpointURL, emulatorStarted: st.EmulatorStarted,
		telegramPath: telegramPath(st.Resources.Routes), model: s.params["ZeroModel"],
		gatewayToken: s.gatewayToken, hooksToken: s.hooksToken, standIn: s.standIn, full: full,
		config: devConfigNotice,
	}
	if s.generated {
		b.secret = s.secret
	}
	if conf.loc.exists {
		b.config = conf.loc.path + " (edits apply within seconds)"
	}
	for id := range st.Resources.Skipped {
		b.skipped = append(b.skipped, id)
	}
	sort.Strings(b.skipped)
	return b
}

// print writes the banner: at most about 20 lines, the three next steps
// last (before devReadyLine).
func (b devBanner) print(w io.Writer) {
	fmt.Fprintf(w, "\nZERO is running locally (model %s).\n", b.model)
	fmt.Fprintf(w, "  gateway       %s/rpc  token %s\n", b.front, b.gatewayToken)
	fmt.Fprintf(w, "  control page  %s/  (sign in with the gateway token)\n", b.front)
	fmt.Fprintf(w, "  hooks         %s/hooks/agent and /hooks/wake  token %s\n", b.front, b.hooksToken)
	emulator := b.endpoint
	if b.emulatorStarted {
		emulator += " (moto, started here; stops with zero dev)"
	}
	fmt.Fprintf(w, "  AWS emulator  %s\n", emulator)
	fmt.Fprintf(w, "  config        %s\n", b.config)
	if b.standIn {
		fmt.Fprintln(w, "  telegram      no bot token: replies go to a local stand-in and are printed here")
	}
	if len(b.skipped) > 0 && !b.full {
		fmt.Fprintf(w, "  %d template resources are not emulated locally (IAM roles, alarms, log groups, ...); `zero dev -full` lists everything\n", len(b.skipped))
	}
	secretArg := "$TELEGRAM_WEBHOOK_SECRET"
	if b.secret != "" {
		secretArg = b.secret
	}
	fmt.Fprintf(w, "\nTry it (in another terminal, after: export ZERO_GATEWAY_URL=%s ZERO_GATEWAY_TOKEN=%s):\n", b.front, b.gatewayToken)
	fmt.Fprintln(w, `  1. bin/zero chat        (or once: bin/zero agent --message "hello")`)
	fmt.Fprintf(w, "  2. curl -sS -X POST '%s%s' -H 'Content-Type: application/json' \\\n", b.front, b.telegramPath)
	fmt.Fprintf(w, "       -H 'X-Telegram-Bot-Api-Secret-Token: %s' --data @events/telegram-private-text.json\n", secretArg)
	fmt.Fprintf(w, "  3. open %s/ and sign in with the gateway token\n", b.front)
	fmt.Fprintln(w, devReadyLine)
}

// startupLog is zero dev's log while the stack starts: with full, every
// step as it happens; otherwise only the steps worth waiting for (the
// emulator, the first build) and IAM refusals, the rest kept and printed
// only if the start fails. Once ready, every line passes.
type startupLog struct {
	mu    sync.Mutex
	out   io.Writer
	full  bool
	ready bool
	built bool     // the "building" line was shown
	kept  []string // lines not shown
	now   func() time.Time
}

// logf is the stack's and zero dev's Logf.
func (l *startupLog) logf(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	line := fmt.Sprintf("%s zero dev: %s\n", l.now().Format("15:04:05"), msg)
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.full || l.ready || shownAtStart(msg):
		io.WriteString(l.out, line)
	case strings.HasPrefix(msg, "building ") && !l.built:
		l.built = true
		fmt.Fprintf(l.out, "%s zero dev: building the functions (the first build takes a while)\n", l.now().Format("15:04:05"))
		l.kept = append(l.kept, line)
	default:
		l.kept = append(l.kept, line)
	}
}

// shownAtStart are the startup lines shown without -full.
func shownAtStart(msg string) bool {
	for _, p := range []string{"starting moto", "using the AWS emulator", "IAM: ", "note: ", "config warning: ", "config: ", devConfigNotice, "create "} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// started marks the stack ready: from now on every line passes.
func (l *startupLog) started() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ready, l.kept = true, nil
}

// failed prints the lines kept back, so a failed start can be read; the
// lines after it pass.
func (l *startupLog) failed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.kept {
		io.WriteString(l.out, line)
	}
	l.ready, l.kept = true, nil
}
