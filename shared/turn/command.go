package turn

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/status"
)

// command is a chat command recognised in an inbound message.
type command struct {
	name  string       // "/status", "/send", or the reset trigger; "" for none
	arg   string       // a one-word argument, lower-cased: /send on, /queue collect, /context detail
	rest  string       // free text: what follows a reset trigger, /compact's instructions
	reset bool         // name is a reset trigger (session.resetTriggers: /new, /reset by default)
	spec  *commandSpec // the registry entry; nil for reset triggers and plain text
}

// commandSpec is one slash command of the registry: which arguments make
// it a command (anything else is plain text for the model), which step it
// takes, and how it is answered.
type commandSpec struct {
	args   func(rest string) bool
	text   bool // the argument is free text (command.rest), not a word (command.arg)
	step   Step
	answer func(p *Processor, ctx context.Context, t *turnState, e *session.Entry) (string, error)
}

// commands is the registry of every slash command but the reset triggers,
// which the config names (session.resetTriggers). Commands never reach
// the model and are not part of the conversation: no transcript part, the
// context is kept as is (/compact writes its compaction line).
var commands = map[string]*commandSpec{
	"/status":  {args: noArgs, step: StepCommand, answer: answerStatus},
	"/stop":    {args: noArgs, step: StepCommand, answer: answerStop},
	"/send":    {args: oneWord, step: StepCommand, answer: answerSend},
	"/queue":   {args: oneWord, step: StepCommand, answer: answerQueue},
	"/context": {args: oneOf("", "list", "detail"), step: StepCommand, answer: answerContext},
	"/compact": {args: anyText, text: true, step: StepCompact},
	"/think":   {args: oneWord, step: StepCommand, answer: answerThink},
}

func noArgs(rest string) bool  { return rest == "" }
func anyText(string) bool      { return true }
func oneWord(rest string) bool { return !strings.ContainsAny(rest, " \n\t") }
func oneOf(words ...string) func(string) bool {
	return func(rest string) bool { return slices.Contains(words, strings.ToLower(rest)) }
}

// parseCommand recognises a command: its name must be the message's first
// word. A reset trigger may be followed by text, /compact by instructions;
// the others count only with the arguments they take. Telegram's
// "/cmd@name" form is not a command here: the ingest door drops "@name"
// when the command is this bot's, so one still naming a bot is for
// another bot, plain text.
func parseCommand(text string, resetTriggers []string) command {
	text = strings.TrimSpace(text)
	head, rest, _ := strings.Cut(text, " ")
	if i := strings.IndexAny(head, "\n\t"); i >= 0 {
		head, rest = head[:i], text[i+1:]
	}
	rest = strings.TrimSpace(rest)
	name := strings.ToLower(head)
	if slices.Contains(resetTriggers, name) {
		return command{name: name, rest: rest, reset: true}
	}
	spec, ok := commands[name]
	if !ok || !spec.args(rest) {
		return command{}
	}
	if spec.text {
		return command{name: name, rest: rest, spec: spec}
	}
	return command{name: name, arg: strings.ToLower(rest), spec: spec}
}

func answerStatus(p *Processor, _ context.Context, t *turnState, e *session.Entry) (string, error) {
	return p.status(t, *e), nil
}

func answerStop(p *Processor, ctx context.Context, t *turnState, _ *session.Entry) (string, error) {
	return p.stopCommand(ctx, t)
}

func answerSend(p *Processor, ctx context.Context, t *turnState, e *session.Entry) (string, error) {
	return p.setSendPolicy(ctx, t, e), nil
}

func answerQueue(p *Processor, _ context.Context, t *turnState, e *session.Entry) (string, error) {
	return p.setQueueMode(t, e), nil
}

// answerContext reports what the next run's system prompt holds, largest
// first.
func answerContext(p *Processor, ctx context.Context, t *turnState, e *session.Entry) (string, error) {
	report := p.prompt(ctx, e.AgentID, p.tools(ctx, t, *e, p.modelFor(t.cfg, *e))).Report
	if t.cmd.arg == "detail" {
		return report.Detail(), nil
	}
	return report.List(), nil
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

// status answers /status from the entry and the turn's context, without
// the model.
func (p *Processor) status(t *turnState, e session.Entry) string {
	return p.statusOf(t.cfg, t.msg.SessionKey, e, t.history, t.reset == ResetStale)
}

// statusOf is the status report of the session key whose entry is e and
// whose context is history (nil when not loaded); expired says the
// session just replaced one that expired.
func (p *Processor) statusOf(cfg *config.Config, key string, e session.Entry, history []model.Message, expired bool) string {
	ref := p.modelFor(cfg, e)
	return status.Report(cfg, status.Session{Key: key, Entry: e, History: history, Expired: expired, Model: ref, Window: p.contextWindow(cfg, ref)})
}
