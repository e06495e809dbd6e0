package turn

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/session"
)

// command is a chat command recognised in an inbound message.
type command struct {
	name  string // "/status", "/send", or the reset trigger; "" for none
	arg   string // /send: on | off | inherit; /context: list | detail
	rest  string // a reset trigger: the text after it, passed on to the model; /compact: instructions
	reset bool   // name is a reset trigger (/new, /reset, session.resetTriggers)
}

// parseCommand recognises the session commands. A reset trigger must be
// the message's first word and may be followed by text, as may /compact
// (its instructions); /status and /send count only when sent on their own. Telegram's "/cmd@BotName" form in
// groups is accepted.
func parseCommand(text string, resetTriggers []string) command {
	text = strings.TrimSpace(text)
	head, rest, _ := strings.Cut(text, " ")
	if i := strings.IndexAny(head, "\n\t"); i >= 0 {
		head, rest = head[:i], text[i+1:]
	}
	rest = strings.TrimSpace(rest)
	name := strings.ToLower(head)
	if at := strings.IndexByte(name, '@'); at > 0 && strings.HasPrefix(name, "/") {
		name = name[:at]
	}
	switch {
	case slices.Contains(resetTriggers, name):
		return command{name: name, rest: rest, reset: true}
	case (name == "/status" || name == "/stop") && rest == "":
		return command{name: name}
	case name == "/compact":
		return command{name: name, rest: rest}
	case name == "/queue" && !strings.ContainsAny(rest, " \n\t"):
		return command{name: name, arg: strings.ToLower(rest)}
	case name == "/context" && (rest == "" || strings.EqualFold(rest, "list") || strings.EqualFold(rest, "detail")):
		return command{name: name, arg: strings.ToLower(rest)}
	case name == "/send" && !strings.ContainsAny(rest, " \n\t"):
		return command{name: name, arg: strings.ToLower(rest)}
	}
	return command{}
}

// command runs t's command against e. It returns the reply and true when the
// command is answered without the model; a reset trigger returns false after
// applying its model choice, and the turn goes on to the model with the
// text that followed the trigger.
func (p *Processor) command(ctx context.Context, t *turnState, e *session.Entry) (string, bool) {
	switch {
	case t.cmd.reset:
		t.text = t.cmd.rest
		word, after, _ := strings.Cut(t.cmd.rest, " ")
		if ref, ok := t.cfg.ResolveModel(word); ok && word != "" {
			e.ProviderOverride, e.ModelOverride = ref.Provider, ref.Name
			t.text = strings.TrimSpace(after)
		}
		return "", false
	case t.cmd.name == "/status":
		return p.status(t, *e), true
	case t.cmd.name == "/send":
		return p.setSendPolicy(ctx, t, e), true
	case t.cmd.name == "/queue":
		return p.setQueueMode(t, e), true
	case t.cmd.name == "/context":
		// What the next run's system prompt holds, largest first.
		report := p.prompt(ctx, e.AgentID, p.tools(t, *e, p.modelFor(t.cfg, *e))).Report
		if t.cmd.arg == "detail" {
			return report.Detail(), true
		}
		return report.List(), true
	}
	return "", false
}

// setSendPolicy handles /send on|off|inherit: owners only.
func (p *Processor) setSendPolicy(ctx context.Context, t *turnState, e *session.Entry) string {
	channel := t.msg.Channel
	if !t.cfg.IsOwner(channel, t.msg.From) {
		p.log().WarnContext(ctx, "send policy change refused: sender is not an owner",
			"session", t.msg.SessionKey, "from", t.msg.From)
		return fmt.Sprintf("Only an owner can change whether this session sends replies. Owners are listed in channels.%s.owners in zero.json.", channel)
	}
	switch t.cmd.arg {
	case "on":
		e.SendPolicy = session.SendAllow
		return "Sending is on for this session."
	case "off":
		e.SendPolicy = session.SendDeny
		return "Sending is off for this session: replies are still recorded, but none are sent."
	case "inherit":
		e.SendPolicy = ""
		state := "on"
		if !t.cfg.SendPolicy().Allows(t.msg.SessionKey, e.Channel, e.ChatType, "") {
			state = "off"
		}
		return "This session now follows session.sendPolicy in zero.json: sending is " + state + "."
	}
	return "Usage: /send on | off | inherit"
}

// status answers /status from the entry, without the model.
func (p *Processor) status(t *turnState, e session.Entry) string {
	var b strings.Builder
	b.WriteString("ZERO is reachable.\n")
	fmt.Fprintf(&b, "Session: %s\n", session.Display(t.msg.SessionKey, t.cfg.Keys()))
	fmt.Fprintf(&b, "Session id: %s", e.SessionID)
	if t.reset == "stale" {
		b.WriteString(" (new: the previous session expired)")
	}
	b.WriteString("\n")
	ref := p.modelFor(t.cfg, e)
	source := "default"
	if e.ModelOverride != "" {
		source = "set for this session"
	}
	fmt.Fprintf(&b, "Model: %s (%s)\n", ref, source)
	if e.ContextTokens > 0 {
		fmt.Fprintf(&b, "Context: %d of %d tokens (%d%%)\n", e.TotalTokens, e.ContextTokens, e.TotalTokens*100/e.ContextTokens)
	} else {
		fmt.Fprintf(&b, "Context: %d tokens used\n", e.TotalTokens)
	}
	fmt.Fprintf(&b, "Thinking: %s · Verbose: %s\n", orDefault(e.ThinkingLevel, "off"), orDefault(e.VerboseLevel, "off"))
	policy := "from config"
	if e.SendPolicy != "" {
		policy = "set for this session"
	}
	state := "on"
	if !t.cfg.SendPolicy().Allows(t.msg.SessionKey, e.Channel, e.ChatType, e.SendPolicy) {
		state = "off"
	}
	fmt.Fprintf(&b, "Sending: %s (%s)", state, policy)
	return b.String()
}

func orDefault(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// IsStop reports whether text is a /stop sent on its own, which channel
// functions act on before queueing (see stop.go).
func IsStop(text string) bool { return parseCommand(text, nil).name == "/stop" }
