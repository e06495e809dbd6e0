package turn

import (
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
)

// Step is what a turn does with its message, decided before any side
// effect (PlanTurn).
type Step int

// The steps of a turn.
const (
	StepDuplicate   Step = iota + 1 // a done record: skip it
	StepResume                      // a committed record: deliver what it holds
	StepMigrate                     // move the session to the group's new key
	StepDropStopped                 // queued before a pending /stop: drop it
	StepCommand                     // a command answered without the model
	StepCompact                     // /compact: summarise the context
	StepRun                         // the model answers
)

var stepNames = map[Step]string{
	StepDuplicate: "duplicate", StepResume: "resume", StepMigrate: "migrate", StepDropStopped: "drop-stopped",
	StepCommand: "command", StepCompact: "compact", StepRun: "run",
}

func (s Step) String() string { return stepNames[s] }

// ResetReason says why a turn starts a new sessionId.
type ResetReason string

// The reset reasons, as the session hooks report them.
const (
	ResetNone    ResetReason = ""
	ResetNewKey  ResetReason = "new-key" // the key had no session
	ResetCommand ResetReason = "new"     // /new, /reset or another reset trigger
	ResetCron    ResetReason = "cron"    // every run of a cron job starts afresh
	ResetStale   ResetReason = "stale"   // the daily or idle reset passed
)

// Plan is a turn decided: what it does, why it starts a new session, and
// what the model is asked.
type Plan struct {
	Step    Step
	Command command     // the recognised command (StepCommand, StepCompact, reset triggers)
	Reset   ResetReason // ResetNone: the stored session goes on
	// Prompt is what the model is asked (StepRun): the text, what follows
	// a reset trigger, or a greeting for a reset sent alone.
	Prompt string
	// Model is the model a reset trigger named (/new gpt-4o …); zero if none.
	Model model.Ref
	// ClearInterrupt: this message interrupted the session's previous run
	// (queue mode interrupt); its stop mark has done its work.
	ClearInterrupt bool
}

// PlanTurn decides what the turn of m does, from what Load returned, the
// configuration and the time. Pure: a retry with the same inputs plans the
// same turn (staleness only grows with time).
func PlanTurn(snap sessionstate.Snapshot, m inbound.Message, cfg *config.Config, now time.Time) Plan {
	if rec := snap.Receipt; rec != nil {
		if rec.State == receipt.Done {
			return Plan{Step: StepDuplicate}
		}
		return Plan{Step: StepResume}
	}
	if m.Kind == inbound.KindMigrate {
		return Plan{Step: StepMigrate}
	}
	if m.Kind == "" && snap.Stop.Active(m.ID, now.UnixMilli()) {
		return Plan{Step: StepDropStopped}
	}
	cmd := parseCommand(m.Text, cfg.ResetTriggers())
	p := Plan{Step: StepRun, Command: cmd, Prompt: m.Text, Reset: resetReason(snap, m, cfg, cmd, now)}
	if s := snap.Stop; s != nil && s.Pending && s.MessageID == m.ID && cmd.name != "/stop" {
		p.ClearInterrupt = true
	}
	switch {
	case cmd.reset:
		p.Prompt, p.Model = resetPrompt(cmd.rest, cfg, cfg.IsOwner(m.Channel, m.From))
	case cmd.spec != nil:
		p.Step = cmd.spec.step
	}
	return p
}

// resetReason says whether m starts a new session, and why. A cron
// session (agent:<id>:cron:<job>) starts afresh only for a job's run
// (cron.Fired); anything else sent into it (sessions_send, a reply-back
// round, chat.send, an agent call) continues its history.
func resetReason(snap sessionstate.Snapshot, m inbound.Message, cfg *config.Config, cmd command, now time.Time) ResetReason {
	if snap.Entry == nil {
		return ResetNewKey
	}
	lc := cfg.Lifecycle()
	switch {
	case cmd.reset:
		return ResetCommand
	case session.Kind(m.SessionKey, cfg.Keys()) == session.KindCron && cron.Fired(m):
		return ResetCron
	case lc.Stale(lc.PolicyFor(m.Channel, session.ResetTypeOf(m.ChatType, m.ThreadID)), snap.Entry.UpdatedAt, now):
		return ResetStale
	}
	return ResetNone
}

// resetPrompt splits what follows a reset trigger into a model choice and
// the prompt. The first word is a model only when the config names it (an
// alias or a listed model; an owner may name any provider/model:
// config.ResetModel); anything else is the start of the message, so
// "/new 1/2 cup of flour" asks "1/2 cup of flour". A trigger sent alone
// (or with a model only) gets a greeting turn confirming the reset.
func resetPrompt(rest string, cfg *config.Config, owner bool) (string, model.Ref) {
	var ref model.Ref
	prompt := rest
	word, after := rest, ""
	if i := strings.IndexAny(rest, " \n\t"); i >= 0 {
		word, after = rest[:i], rest[i+1:]
	}
	if r, ok := cfg.ResetModel(word, owner); ok {
		ref, prompt = r, strings.TrimSpace(after)
	}
	if strings.TrimSpace(prompt) == "" {
		prompt = greetingPrompt
	}
	return prompt, ref
}
