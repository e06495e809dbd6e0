package turn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/attachment"
	"github.com/zero-gateway/zero/shared/compaction"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/contextstore"
	"github.com/zero-gateway/zero/shared/cost"
	"github.com/zero-gateway/zero/shared/delivery"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/outbox"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/stopmark"
	"github.com/zero-gateway/zero/shared/subagent"
	"github.com/zero-gateway/zero/shared/tools/builtin"
	"github.com/zero-gateway/zero/shared/transcript"
)

// Sender delivers replies on one channel, PartSender by a message's
// place in the reply (delivery.Sender, delivery.PartSender).
type (
	Sender     = delivery.Sender
	PartSender = delivery.PartSender
)

// Enqueuer puts a message straight on the work queue, on its own group
// (delivery.Enqueuer): the outbox's KindDeliver messages.
type Enqueuer = delivery.Enqueuer

// Settings supplies the configuration in force (a config.Cache, re-read
// when zero.json changes).
type Settings interface {
	Current(ctx context.Context) (*config.Config, error)
}

// Processor runs turns. Its fields are set once at cold start; Handle is
// safe for concurrent use on different sessions (the FIFO queue never runs
// two turns of one session at once, and Commit's version check catches it
// if anything else writes the entry meanwhile).
type Processor struct {
	Store      Store
	Transcript *transcript.Log
	// Models holds one client per provider ("openai", "zero", ...). The
	// model of a turn is the session's override, else the agent's model
	// in the config, else DefaultModel.
	Models       map[string]model.Client
	DefaultModel model.Ref
	Senders      map[string]Sender // by channel
	Settings     Settings          // nil means config.Default()
	System       string            // base system prompt; the tools section is added per run
	Hooks        Hooks             // plugin extension points
	Workspace    Workspace         // nil: no workspace files in the prompt
	Runs         run.Store         // nil: runs leave no record or events (and sessions_send cannot wait)
	Log          *slog.Logger
	Now          func() time.Time
	// StopPoll is how often a run reads its session's stop mark while the
	// model (or a tool) is busy; 0 means DefaultStopPoll, < 0 never.
	StopPoll time.Duration
	// Tools are the backends of the built-in tools (shared/tools/builtin):
	// memory, workspace files, web, image URLs, cron, the stored
	// zero.json, the channel messengers. A nil backend leaves its tools
	// out; without Tools.Files the pre-compaction memory flush does not
	// run either. The session tools' stores are the Processor's own
	// (Store, Transcript, Runs), which the engine hands them.
	Tools builtin.Deps
	// Door queues messages for other sessions through the ingest door, as
	// an operator's (sessions_send, sessions_spawn, the cron tool's run
	// and wake, flow steps); nil: those tools are not offered.
	Door Door
	// Outbox keeps announces until they are delivered; Work queues their
	// KindDeliver messages. Both nil: flows announce nothing.
	Outbox outbox.Store
	Work   Enqueuer
	// CallsOf returns the AWS calls made so far with ctx, by
	// "Service.Operation" (the runner's per-session tally,
	// awsconfig.TallyOf); nil: a sub-agent's announce prices its run from
	// the per-turn call profile instead.
	CallsOf func(ctx context.Context) map[string]int
	// Contexts keeps long model contexts as base objects beside the
	// session's inline context item (contextstore); nil: the context is
	// stored whole in the item, for stores without an item size limit.
	Contexts *contextstore.Store
	// Attachments fetch the files that came with a message (a Telegram
	// photo), by channel: a vision model sees them, the image tool reads
	// "attachment:N". A channel without one: the model gets a note.
	Attachments map[string]AttachmentSource
	// Deltas is how a run's streamed text becomes assistant run events
	// and how often they are written (deltas.go); the zero value streams
	// with the default window.
	Deltas DeltaBatching
	// TypingInterval is how often a chat is shown typing while a run
	// works (typing.go); 0 means DefaultTypingInterval.
	TypingInterval time.Duration
	// MaxReceives is the work queue's maxReceiveCount (0: unknown):
	// debounce holds a message only while a failure retry would be left
	// after its next receive (debounce.go).
	MaxReceives int
	// Metrics receives each handled message's measurements (metrics.go);
	// nil: none are taken.
	Metrics TurnMetrics
	// Prices price a turn's AWS calls and Lambda time (the region's, for
	// the deployed architecture); nil: cost.ListPrices (us-east-1).
	Prices *cost.Prices
}

// Handle processes m. attempt is the delivery count (1 on first delivery).
//
// Contract: nil means m is fully handled and may be deleted from the queue;
// an error means retry later. Steps and their crash behaviour:
//  1. Load entry, context and m's record. Done record: duplicate, return nil.
//     Committed record: a previous attempt got as far as step 4; go to 5.
//  2. Decide the session: a stale entry (session.reset*) or a reset
//     trigger starts a new sessionId derived from m.ID, so a retry decides
//     the same (staleness only grows with time).
//  3. Answer: a command is answered without the model; anything else
//     calls the model (skipped on a retry whose transcript part exists).
//  4. Write transcript part seq+1, create-only (model turns only). If it
//     exists, a previous attempt wrote it: adopt its reply, so every line
//     is written once. A part of another message whose commit never
//     landed (an orphan) is absorbed and the write moves on (orphan.go).
//  5. Commit entry+context+record in one conditional write, with the run's
//     outcome and, after a model call, a check of the stop mark (see
//     commit) where the store is a Committer. A context past its inline
//     budget is first folded into an immutable base object (contextstore),
//     so the retry of a turn killed here reads the context it started
//     from.
//  6. Send the reply (unless the send policy withheld it), recording each
//     delivered message of a long reply.
//  7. Finish the record. A crash after the channel accepted a message and
//     before it was recorded sends that one message again; nothing else
//     repeats.
func (p *Processor) Handle(ctx context.Context, m inbound.Message, attempt int) error {
	return p.handle(ctx, m, attempt, nil, nil)
}

// handle is Handle; a non-nil collected makes the turn answer those
// messages too (queue mode collect): m.Text is their combined prompt and
// the commit records each of them done. loaded, when set, is the snapshot
// of m the caller already read, so it is not read again.
func (p *Processor) handle(ctx context.Context, m inbound.Message, attempt int, collected []inbound.Message, loaded *sessionstate.Snapshot) (err error) {
	ctx, measured := p.startMeter(ctx, m) // metrics.go
	defer func() { measured(err) }()
	if err := m.Validate(); err != nil {
		return err
	}
	if m.Kind == inbound.KindDeliver {
		return p.outboxDelivery().Deliver(ctx, m, attempt) // an announce: no session turn
	}
	if loaded == nil {
		snap, err := p.Store.Load(ctx, m.SessionKey, m.ID)
		if err != nil {
			return fmt.Errorf("load session %s: %w", m.SessionKey, err)
		}
		loaded = &snap
	}
	snap := *loaded
	if m.Flow != nil && m.Flow.Kind == inbound.FlowResult {
		wake, err := p.subagentResult(ctx, m, snap) // subagent_wake.go
		if err != nil || wake == nil {
			return err
		}
		m = *wake
	}
	cfg, err := p.config(ctx)
	if err != nil {
		return err
	}
	plan := PlanTurn(snap, m, cfg, p.Now())
	switch plan.Step {
	case StepDuplicate:
		p.log().InfoContext(ctx, "duplicate message skipped", "message", m.ID, "session", m.SessionKey)
		return nil
	case StepResume:
		return p.deliver(ctx, m, *snap.Receipt)
	case StepMigrate:
		return p.migrate(ctx, m, snap)
	case StepDropStopped:
		return p.dropStopped(ctx, m, snap.Stop)
	}
	t := &turnState{cfg: cfg, msg: m, plan: plan, cmd: plan.Command, text: plan.Prompt, reset: plan.Reset, stored: snap.Entry, stop: snap.Stop}
	return p.turn(ctx, t, snap, attempt, collected)
}

// turn runs a planned command, compaction or model turn: it settles the
// session, answers, commits and delivers.
func (p *Processor) turn(ctx context.Context, t *turnState, snap sessionstate.Snapshot, attempt int, collected []inbound.Message) error {
	m := t.msg
	for _, h := range p.Hooks.MessageReceived {
		h(ctx, m)
	}
	if t.plan.ClearInterrupt {
		if stops, ok := p.Store.(Stops); ok {
			if err := stops.StopDone(ctx, m.SessionKey, m.ID); err != nil {
				return fmt.Errorf("clear the interrupt of %s: %w", m.ID, err)
			}
		}
	}
	entry := p.prepareEntry(p.startSession(ctx, t), m)
	if ref := t.plan.Model; ref.Provider != "" {
		entry.ProviderOverride, entry.ModelOverride = ref.Provider, ref.Name
	}
	t.steer = p.steerFor(t, entry, collected)
	path := session.TranscriptPath(m.SessionKey, entry)
	history, split, err := p.loadContext(ctx, snap.Context, entry, path)
	if err != nil {
		return err
	}
	out, err := p.answer(ctx, t, &entry, history, path, attempt)
	if err != nil {
		return err
	}
	out.text = withResetNotice(resetNotice(t, p.Now()), out.text) // reset_notice.go
	history = out.apply(&entry, history, t)
	out.infraUSD = p.chargeTurn(ctx, &entry, out, t.plan.Step == StepRun) // metrics.go
	t.run.setInfraCost(out.infraUSD)
	if out.compaction != nil {
		split = contextstore.Split{} // the context was replaced: its old base is no prefix of it
	}
	subagent.Archive(&entry, t.cfg, m.SessionKey, p.Now().UnixMilli())
	entry.Version++
	stored, err := p.storeContext(ctx, entry, split, history)
	if err != nil {
		return err
	}
	done := t.steer.collect(ctx, collected, out.messages)
	rec, err := p.commit(ctx, t, entry, stored, out, done)
	if err != nil {
		return err
	}
	t.steer.cleanup(ctx, append([]string{m.ID}, rec.Collected...))
	return p.deliver(ctx, m, rec)
}

// answer produces the turn's output: a command's reply, a compaction, or
// the model's run.
func (p *Processor) answer(ctx context.Context, t *turnState, entry *session.Entry, history []model.Message, path string, attempt int) (turnOutput, error) {
	t.history = history
	meterOf(ctx).ran = true
	switch t.plan.Step {
	case StepCommand:
		reply, err := t.cmd.spec.answer(p, ctx, t, entry) // may change the session's settings
		return turnOutput{text: reply, command: true}, err
	case StepCompact:
		return p.compactCommand(ctx, t, *entry, history, path, attempt)
	}
	ref := p.modelFor(t.cfg, *entry)
	started := time.Now()
	out, err := p.modelTurn(ctx, t, *entry, history, path, ref, attempt)
	if err != nil {
		return out, err
	}
	meterOf(ctx).ranModel(time.Since(started), out.usage, t.cfg, ref)
	out.ref = ref
	t.window = p.contextWindow(t.cfg, ref)
	if entry.VerboseLevel == "on" && out.text != "" {
		out.text = toolSummaries(out.messages) + out.text
	}
	if entry.ReasoningLevel == "on" && out.text != "" {
		out.text = reasoning(out.messages) + out.text
	}
	t.asked = true
	return out, nil
}

// apply is the one place a turn's output changes the session entry: a
// command's settings, a compaction's counters, a run's transcript position,
// tokens and model. It returns the context after the turn.
func (out turnOutput) apply(e *session.Entry, history []model.Message, t *turnState) []model.Message {
	id := t.msg.ID
	if out.absorbed != nil { // orphan parts before the turn's own (orphan.go)
		history = out.absorbed.moveEntry(e)
	}
	switch t.plan.Step {
	case StepCommand:
		return history
	case StepCompact:
		if c := out.compaction; c != nil {
			e.TranscriptSeq++
			e.LastEntryID = transcript.EntryID(id, transcript.CompactionEntry)
			e.CompactionCount++
			e.TotalTokens = compaction.EstimateTokens(c.History)
			return c.History
		}
		return history
	}
	e.AbortedLastRun = out.stopped
	e.TranscriptSeq++
	e.LastEntryID = transcript.EntryID(id, len(out.messages)-1)
	e.InputTokens += out.usage.Input
	e.OutputTokens += out.usage.Output
	// totalTokens is what the context holds after this turn, as upstream
	// UIs read it ("context used"): the last call's prompt and answer.
	e.TotalTokens = out.last.Input + out.last.CacheRead + out.last.CacheWrite + out.last.Output
	e.Model, e.ModelProvider = out.ref.Name, out.ref.Provider // the model that answered last
	e.ContextTokens = t.window                                // the window in use
	chosenModel(e, out.messages, t)
	if out.compaction != nil {
		history = out.compaction.History
		e.CompactionCount++
	}
	return append(history, out.messages...)
}

// turnState carries one turn's inputs between its steps.
type turnState struct {
	cfg    *config.Config
	msg    inbound.Message
	plan   Plan
	cmd    command
	text   string         // what the model is asked: the plan's prompt
	stored *session.Entry // the entry before this message; nil for a new key
	reset  ResetReason    // why a new session started
	run    *runTracker    // the model run's record and events; nil when not recorded
	stop   *stopmark.Mark // the session's /stop mark at load time
	asked  bool           // the model answered this turn: its commit checks for a /stop
	window int64          // the context window of the model that answered (tokens)
	// images go with the prompt to a model that accepts them; imageRefs
	// are the message's image attachments, recorded instead of the bytes
	// (attachments.go).
	images    []model.Image
	imageRefs []inbound.Attachment
	// history is the context before this turn (set by answer): /status
	// and session_status estimate its size when the entry reports none.
	history []model.Message
	steer   *steerer // queue mode steer: messages taken in at tool boundaries; nil otherwise
}

// startSession returns the entry this message continues: the stored one,
// or a fresh session as the plan's reset reason says, running the session
// hooks. The new sessionId derives from the message, so a retry of a turn
// that died before its commit lands in the same transcript.
func (p *Processor) startSession(ctx context.Context, t *turnState) session.Entry {
	newID := session.NewID(t.msg.ID)
	if t.stored == nil {
		agentID := session.NormalizeAgentID(t.msg.AgentID)
		p.sessionHooks(ctx, p.Hooks.SessionStart, SessionEvent{SessionKey: t.msg.SessionKey, SessionID: newID, AgentID: agentID, Reason: string(ResetNewKey)})
		return subagent.WithModel(session.Entry{SessionID: newID}, t.msg)
	}
	e := *t.stored
	if t.reset == ResetNone {
		return e
	}
	p.log().InfoContext(ctx, "new session", "session", t.msg.SessionKey, "reason", string(t.reset),
		"old_session_id", e.SessionID, "session_id", newID)
	p.sessionHooks(ctx, p.Hooks.SessionEnd, SessionEvent{SessionKey: t.msg.SessionKey, SessionID: e.SessionID, AgentID: e.AgentID, Reason: string(t.reset)})
	p.sessionHooks(ctx, p.Hooks.SessionStart, SessionEvent{SessionKey: t.msg.SessionKey, SessionID: newID, AgentID: e.AgentID, Reason: string(t.reset)})
	return subagent.WithModel(e.Reset(newID), t.msg)
}

func (p *Processor) sessionHooks(ctx context.Context, hooks []func(context.Context, SessionEvent), ev SessionEvent) {
	for _, h := range hooks {
		h(ctx, ev)
	}
}

// modelFor picks the model of a turn: the session's override, else the
// agent's configured model, else the deployment default.
func (p *Processor) modelFor(cfg *config.Config, e session.Entry) model.Ref {
	if e.ModelOverride != "" && e.ProviderOverride != "" {
		return model.Ref{Provider: e.ProviderOverride, Name: e.ModelOverride}
	}
	if ref, ok := cfg.DefaultModel(e.AgentID); ok {
		return ref
	}
	return p.DefaultModel
}

// modelTurn asks the model (or adopts the answer a killed attempt already
// wrote) and writes the turn's transcript part, create-only, at the first
// free seq past the entry. Orphan parts on the way (messages whose commit
// never landed, see orphans) are absorbed: their messages join the
// committed context before this turn's. The model is not asked again for
// them: an orphan first met when the part is written stays out of the
// answer already given (it is history from then on); a retry reads the
// parts before asking, so its model does see the orphans it finds.
// Idempotent: a retry absorbs the same orphans and adopts its own part.
func (p *Processor) modelTurn(ctx context.Context, t *turnState, entry session.Entry, history []model.Message, path string, ref model.Ref, attempt int) (turnOutput, error) {
	m := t.msg
	rt, err := p.startRun(ctx, t, entry, ref, attempt)
	if err != nil {
		return turnOutput{}, err
	}
	t.run = rt
	if rt != nil {
		if rt.blocks, err = p.blockReplier(ctx, t, entry, attempt); err != nil {
			return turnOutput{}, err
		}
	}
	o := newOrphans(path, entry, history)
	if attempt > 1 {
		// A retry may find the part its predecessor wrote; reusing it
		// saves a model call and keeps the transcript single.
		own, err := p.claim(ctx, m.ID, o)
		if err != nil {
			return turnOutput{}, err
		}
		if own != nil {
			return p.adoptRun(ctx, rt, own, o, m.ID)
		}
	}
	prompt, err := p.attachImages(ctx, t, ref, t.text)
	if err != nil {
		return turnOutput{}, err
	}
	out, err := p.runCompacting(ctx, t, entry, o.history, prompt, ref)
	if err != nil {
		return out, err
	}
	attachment.RecordRefs(out.messages, m.Channel, t.imageRefs)
	for i := range out.messages {
		out.messages[i].EntryID = transcript.EntryID(m.ID, i)
	}
	own, err := p.place(ctx, m.ID, o, func(seq int64, parent string) []any {
		return transcript.Turn{Seq: seq, SessionID: entry.SessionID, AgentID: entry.AgentID, Parent: parent, SourceID: m.ID, Now: p.Now(),
			Compaction: out.compactionLine(), Messages: out.messages, Model: ref, Stop: out.stop, Usage: out.usage}.Lines()
	})
	if err != nil {
		return out, err
	}
	if own != nil {
		return p.adoptRun(ctx, rt, own, o, m.ID)
	}
	o.intoRun(&out, m.ID)
	rt.end(out)
	return out, nil
}

// runCompacting runs the agent loop, compacting the context first when it
// nears the window, or once when the model reports an overflow. An
// overflow that compaction cannot fix becomes a notice to the user.
func (p *Processor) runCompacting(ctx context.Context, t *turnState, entry session.Entry, history []model.Message, prompt string, ref model.Ref) (turnOutput, error) {
	var comp *compaction.Compaction
	var err error
	if p.needsCompaction(t.cfg, ref, entry, history, prompt) {
		p.flushMemory(ctx, t, entry, history, ref) // silent; see memory_flush.go
		if comp, err = p.compact(ctx, t, ref, history, "", entry.TotalTokens); err != nil {
			return turnOutput{}, err
		}
		if comp != nil {
			history = comp.History
		}
	}
	out, err := p.complete(ctx, t, entry, history, prompt, ref)
	if errors.Is(err, model.ErrContextOverflow) && comp == nil {
		// The model says the context is too long: compact once and retry.
		p.log().InfoContext(ctx, "context overflow; compacting", "session", t.msg.SessionKey, "model", ref.String())
		if comp, err = p.compact(ctx, t, ref, history, "", entry.TotalTokens); err != nil {
			return turnOutput{}, err
		}
		err = model.ErrContextOverflow // nothing old enough to compact
		if comp != nil {
			history = comp.History
			out, err = p.complete(ctx, t, entry, history, prompt, ref)
		}
	}
	if errors.Is(err, model.ErrContextOverflow) {
		p.log().ErrorContext(ctx, "context overflow after compaction", "session", t.msg.SessionKey, "model", ref.String(), "err", err)
		out, err = failedTurn(prompt, "⚠️ The conversation no longer fits the model's context window, even after compacting it. Send /new to start a new session."), nil
	}
	out.compaction = comp
	return out, err
}

// needsCompaction reports whether the context, with the new prompt, would
// leave less than the reserve free in the model's window (contextWindow:
// configured, reported, known or the stated default, so compaction is the
// normal path, not only a reaction to an overflow error). The reserve is
// at most half the window, so a small window does not compact every turn.
func (p *Processor) needsCompaction(cfg *config.Config, ref model.Ref, e session.Entry, history []model.Message, prompt string) bool {
	if len(history) == 0 {
		return false
	}
	window := p.contextWindow(cfg, ref)
	reserve := min(int64(cfg.Agents.Defaults.Compaction.ReserveTokens), window/2)
	used := e.TotalTokens
	if used <= 0 {
		used = compaction.EstimateTokens(history)
	}
	return used+int64(len(prompt)/4) > window-reserve
}

// contextWindow is the context window of ref in tokens:
// agents.defaults.contextTokens when set, else what the provider's client
// reports, else the known-models table, else model.DefaultContextWindow.
func (p *Processor) contextWindow(cfg *config.Config, ref model.Ref) int64 {
	if n := cfg.Agents.Defaults.ContextTokens; n > 0 {
		return int64(n)
	}
	return model.ContextWindow(p.Models[ref.Provider], ref)
}

// greetingPrompt is the turn a reset sent alone runs.
const greetingPrompt = "A new session was just started. Greet the user in one short sentence."

func (p *Processor) config(ctx context.Context) (*config.Config, error) {
	if p.Settings == nil {
		return config.Default(), nil
	}
	cfg, err := p.Settings.Current(ctx)
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	return cfg, nil
}

// deliver sends a committed reply, message by message from the first one
// not yet delivered, and finishes its record.
func (p *Processor) deliver(ctx context.Context, m inbound.Message, rec receipt.Receipt) error {
	switch {
	case rec.Withheld:
		p.log().InfoContext(ctx, "reply withheld by the send policy", "message", m.ID, "session", m.SessionKey)
	case rec.AlreadySent:
		p.log().InfoContext(ctx, "reply already sent with the message tool; not sent again", "message", m.ID, "session", m.SessionKey)
	case rec.Reply != "" && rec.Delivery.Channel != inbound.Internal:
		if err := p.sendReply(ctx, m, rec); err != nil {
			return err
		}
	}
	if err := p.closeDeferral(ctx, m, rec); err != nil {
		return err
	}
	if rec.Outcome == run.StatusAborted {
		if err := p.releaseRemoteStop(ctx, m.SessionKey, nil); err != nil {
			return err
		}
	}
	if err := p.continueFlow(ctx, m, rec); err != nil {
		return err
	}
	if err := p.Store.Finish(ctx, m.SessionKey, m.ID); err != nil {
		return fmt.Errorf("finish %s: %w", m.ID, err)
	}
	p.log().InfoContext(ctx, "turn done", "message", m.ID, "session", m.SessionKey)
	return nil
}

// sendReply sends rec's reply, message by message from the first one not
// yet delivered (recording each but the last), and runs the
// message_sent hooks when it all went out. A reply the channel refuses
// for good is logged and given up (it stays in the transcript).
func (p *Processor) sendReply(ctx context.Context, m inbound.Message, rec receipt.Receipt) error {
	sender, ok := p.Senders[rec.Delivery.Channel]
	if !ok {
		p.log().WarnContext(ctx, "no sender for channel; reply kept in transcript only", "channel", rec.Delivery.Channel, "message", m.ID)
		return nil
	}
	var msgs []string
	if text := unsent(rec.Reply, rec.Streamed); text != "" {
		msgs = sender.Render(text)
	}
	for i := rec.Sent; i < len(msgs); i++ {
		if err := delivery.Post(ctx, sender, rec.Delivery, rec.StreamedParts+i, msgs[i]); err != nil {
			if !delivery.Undeliverable(err) {
				return fmt.Errorf("send reply %d/%d for %s: %w", i+1, len(msgs), m.ID, err)
			}
			// The channel refused this reply for good (bot blocked, chat
			// gone, bad request): retrying would hold the session's queue
			// group for nothing. The reply stays in the transcript.
			p.log().ErrorContext(ctx, "reply not deliverable; giving up", "message", m.ID, "session", m.SessionKey,
				"part", i+1, "parts", len(msgs), "err", err)
			return nil
		}
		// The last message is recorded by Finish; a one-message reply
		// costs no extra write.
		if i < len(msgs)-1 {
			if err := p.Store.Progress(ctx, m.SessionKey, m.ID, i+1); err != nil {
				return fmt.Errorf("record reply progress for %s: %w", m.ID, err)
			}
		}
	}
	o := Outgoing{SessionKey: m.SessionKey, MessageID: m.ID, Channel: rec.Delivery.Channel, To: rec.Delivery.To, Text: rec.Reply}
	for _, h := range p.Hooks.MessageSent {
		h(ctx, o)
	}
	return nil
}

// prepareEntry returns the entry to write for m: the session's entry with
// routing metadata refreshed from m.
func (p *Processor) prepareEntry(stored session.Entry, m inbound.Message) session.Entry {
	e := stored
	if e.AgentID == "" {
		// The agent the channel routed to (bindings); a global-scope key
		// names no agent. A session keeps its agent (and so its
		// transcript folder) for life.
		e.AgentID = session.NormalizeAgentID(m.AgentID)
	}
	if m.Label != "" {
		e.Label = m.Label
	}
	if m.SpawnedBy != "" {
		e.SpawnedBy = m.SpawnedBy
	}
	if m.Channel == inbound.Internal && e.Channel != "" {
		// A run requested through the API without delivery: the session
		// keeps the routing its channel gave it.
		e.Touch(p.Now().UnixMilli())
		return e
	}
	e.Channel = m.Channel
	e.ChatType = m.ChatType
	if m.GroupID != "" {
		e.GroupID = m.GroupID
	}
	if m.Subject != "" {
		e.Subject = m.Subject
		e.DisplayName = m.Subject
	}
	label := m.Subject
	if label == "" {
		label = m.SenderName
	}
	e.Origin = e.Origin.Merge(session.Origin{Label: label, Provider: m.Channel, From: m.From, To: m.To, AccountID: m.AccountID, ThreadID: m.ThreadID})
	e.SetDelivery(session.DeliveryContext{Channel: m.Channel, To: m.To, AccountID: m.AccountID, ThreadID: m.ThreadID})
	e.Touch(p.Now().UnixMilli())
	return e
}

// loadContext returns the model context this turn starts from and the
// split it was stored as. A stored context of another session (a reset),
// or none, or one whose base object is gone (expired by the bucket's
// lifecycle rule after a long idle time) is rebuilt from the transcript,
// with no base. A retried turn loads the split the last commit stored, so
// it starts from the same context as the attempt before it.
func (p *Processor) loadContext(ctx context.Context, c *sessionstate.ModelContext, e session.Entry, path string) ([]model.Message, contextstore.Split, error) {
	if c == nil || c.SessionID != e.SessionID {
		msgs, err := p.rebuildContext(ctx, e, path)
		return msgs, contextstore.Split{}, err
	}
	split := splitOf(*c)
	if split.Base == "" {
		return split.Tail, split, nil
	}
	if p.Contexts == nil {
		return nil, split, fault.New(fault.Internal, "the context of %s has a base object and this runner has no context store", e.SessionID)
	}
	msgs, err := p.Contexts.Expand(ctx, split)
	if fault.Is(err, fault.NotFound) {
		p.log().WarnContext(ctx, "context base missing; rebuilding the context from the transcript", "session_id", e.SessionID, "base", split.Base)
		msgs, err = p.rebuildContext(ctx, e, path)
		return msgs, contextstore.Split{}, err
	}
	if err != nil {
		return nil, split, fmt.Errorf("load context of %s: %w", e.SessionID, err)
	}
	return msgs, split, nil
}

// storeContext is the Context a turn commits for msgs, the context after
// it: folded by p.Contexts (a new base object when the inline tail
// outgrows its budget), or whole when the runner has no context store
// (stores without an item limit: tests, tools).
func (p *Processor) storeContext(ctx context.Context, e session.Entry, prev contextstore.Split, msgs []model.Message) (sessionstate.ModelContext, error) {
	if p.Contexts == nil {
		return sessionstate.ModelContext{SessionID: e.SessionID, Messages: msgs}, nil
	}
	split, err := p.Contexts.Fold(ctx, contextstore.Folder(e.AgentID, e.SessionID), prev, msgs)
	if err != nil {
		return sessionstate.ModelContext{}, fmt.Errorf("store context of %s: %w", e.SessionID, err)
	}
	return sessionstate.ModelContext{SessionID: e.SessionID, Base: split.Base, BaseLen: split.BaseLen, Messages: split.Tail}, nil
}

// rebuildContext rebuilds the model context before this turn from the
// transcript, for when the stored context is missing or unusable.
func (p *Processor) rebuildContext(ctx context.Context, e session.Entry, path string) ([]model.Message, error) {
	if e.TranscriptSeq == 0 {
		return nil, nil
	}
	// The context cache is gone (deleted, or written by an older version):
	// rebuild it from the transcript, the source of truth.
	stream, err := p.Transcript.Read(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("read transcript of %s: %w", e.SessionID, err)
	}
	return compaction.ContextOf(stream), nil
}

type turnOutput struct {
	// messages are the turn's new context messages as recorded: the
	// prompt, then the assistant's messages and tool results.
	messages   []model.Message
	text       string      // the reply
	usage      model.Usage // summed over the run's model calls
	last       model.Usage // the last call's: what the context holds now
	stop       string
	command    bool                   // answered by a command, not the model
	ref        model.Ref              // the model that answered (StepRun)
	compaction *compaction.Compaction // the context was compacted before the run
	stopped    bool                   // /stop interrupted the run
	absorbed   *orphans               // orphan parts taken in before the turn's own part; nil: none
	infraUSD   float64                // the turn's infrastructure cost up to its commit (metrics.go)
}

// complete runs the agent loop. Retryable model failures return an error
// (the queue retries the turn); permanent ones become a clean notice to the
// user, the detail going to the log.
func (p *Processor) complete(ctx context.Context, t *turnState, entry session.Entry, history []model.Message, prompt string, ref model.Ref) (turnOutput, error) {
	failed := func(text string) turnOutput { return failedTurn(prompt, text) }
	client, ok := p.Models[ref.Provider]
	if !ok {
		p.log().ErrorContext(ctx, "model provider not configured", "model", ref.String(), "message", t.msg.ID)
		return failed("⚠️ The model " + ref.String() + " is not available: this deployment has no " + ref.Provider + " provider configured."), nil
	}
	stopTyping := p.startTyping(ctx, t, entry)
	defer stopTyping()
	loop := &agent.Loop{Model: client, Tools: p.tools(ctx, t, entry, ref), Hooks: t.run.hooks(p.Hooks.Tools), Interrupt: p.interrupt(t), Steer: t.steer.loopHook()}
	system := p.systemPrompt(ctx, t, entry, ref, prompt, loop.Tools)
	runCtx, cancel, limit := p.runContext(ctx, t.cfg, t.msg.TimeoutSeconds)
	defer cancel()
	watchCtx, watch := p.watchStop(runCtx, t)
	// A message too large for the window is shortened with a marker (the
	// transcript keeps it whole), so compaction can always make room.
	window := p.contextWindow(t.cfg, ref)
	prompt = compaction.Shorten(prompt, compaction.MessageLimit(window))
	run, err := loop.Run(watchCtx, agent.Input{
		Model: ref.Name, System: system, History: compaction.FitWindow(compaction.Prune(history), window), Prompt: prompt, Images: t.images,
		OnText: t.run.onText(ctx, p.Deltas), Thinking: runThinking(entry, t.msg),
	})
	if mark := watch.stop(); mark != nil && !errors.Is(err, agent.ErrStopped) {
		// A /stop arrived while the model (or a tool) was busy: whatever
		// the cancelled call returned, the run is stopped.
		p.countAborted(ctx, t, mark)
		err = agent.ErrStopped
	}
	if errors.Is(err, agent.ErrStopped) {
		notice := stoppedNotice
		msgs := append(loop.Persisted(run), model.Message{Role: model.Assistant, Content: notice})
		return turnOutput{messages: msgs, text: notice, usage: run.Usage, last: run.Last, stop: model.StopAborted, stopped: true}, nil
	}
	if err != nil && runCtx.Err() != nil && limit < runLimit(t.cfg, t.msg.TimeoutSeconds) {
		return turnOutput{}, fmt.Errorf("run of %s after %s: %w", t.msg.ID, limit.Round(time.Millisecond), ErrOutOfTime)
	}
	if err != nil && runCtx.Err() != nil && ctx.Err() == nil {
		// The run's own time limit, not the function's: stop cleanly,
		// keep what the run did, tell the user.
		p.log().WarnContext(ctx, "run timed out", "message", t.msg.ID, "limit", limit.String())
		notice := fmt.Sprintf("⏱️ The run was stopped after %s, its time limit (agents.defaults.timeoutSeconds).", limit.Round(time.Second))
		msgs := append(loop.Persisted(run), model.Message{Role: model.Assistant, Content: notice})
		return turnOutput{messages: msgs, text: notice, usage: run.Usage, last: run.Last, stop: model.StopAborted}, nil
	}
	if err != nil {
		if fault.Retryable(err) || errors.Is(err, model.ErrContextOverflow) {
			return turnOutput{}, fmt.Errorf("model %s: %w", ref, err)
		}
		p.log().ErrorContext(ctx, "model call failed", "model", ref.String(), "message", t.msg.ID, "err", err)
		return failed("⚠️ The model could not answer: " + fault.Message(err)), nil
	}
	out := turnOutput{messages: loop.Persisted(run), text: run.Reply, usage: run.Usage, last: run.Last, stop: run.Stop}

	for _, h := range p.Hooks.AgentEnd {
		h(ctx, AgentEnd{SessionKey: t.msg.SessionKey, AgentID: entry.AgentID, Model: ref, Messages: out.messages, Reply: out.text, Usage: out.usage, Stop: out.stop})
	}
	return out, nil
}

// systemPrompt is a run's system prompt: the assembled prompt for its
// tools, as the before_agent_start hooks leave it, then their added
// context and the message's extra system prompt.
func (p *Processor) systemPrompt(ctx context.Context, t *turnState, entry session.Entry, ref model.Ref, prompt string, tools []agent.Tool) string {
	start := AgentStart{SessionKey: t.msg.SessionKey, AgentID: entry.AgentID, Model: ref, Prompt: prompt, System: p.prompt(ctx, entry.AgentID, tools).Text}
	for _, h := range p.Hooks.BeforeAgentStart {
		h(ctx, &start)
	}
	if extra := strings.TrimSpace(t.msg.ExtraSystemPrompt); extra != "" {
		start.Context = append(start.Context, extra)
	}
	system := start.System
	for _, c := range start.Context {
		system += "\n\n" + c
	}
	return system
}

// runMargin is kept between a run's time limit and the function's own
// deadline, for writing the transcript, committing and replying.
const runMargin = 15 * time.Second

// runContext bounds one agent run by agents.defaults.timeoutSeconds, the
// run's requested timeout (seconds; 0 for none) and the function's deadline
// less runMargin, whichever is sooner.
func (p *Processor) runContext(ctx context.Context, cfg *config.Config, requested int64) (context.Context, context.CancelFunc, time.Duration) {
	limit := runLimit(cfg, requested)
	if deadline, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(deadline)-runMargin)
	}
	limit = max(limit, time.Second)
	c, cancel := context.WithTimeout(ctx, limit)
	return c, cancel, limit
}

// runLimit is a run's own time limit: agents.defaults.timeoutSeconds, or
// the run's requested timeout (the gateway's agent) when shorter.
func runLimit(cfg *config.Config, requested int64) time.Duration {
	limit := time.Duration(cfg.Agents.Defaults.TimeoutSeconds) * time.Second
	if limit <= 0 {
		limit = config.DefaultTimeoutSeconds * time.Second
	}
	if requested > 0 {
		limit = min(limit, time.Duration(requested)*time.Second)
	}
	return limit
}

// ErrOutOfTime fails a run that the function's deadline cut short before
// its own time limit: not the run's fault, so the message is retried in an
// invocation with time for it instead of answered with a timeout notice.
var ErrOutOfTime = fault.New(fault.Unavailable, "the invocation's deadline stopped the run before its time limit")

// failedTurn records a turn the model could not answer: the prompt and
// the notice the user gets.
func failedTurn(prompt, notice string) turnOutput {
	return turnOutput{text: notice, stop: model.StopError, messages: []model.Message{
		{Role: model.User, Content: prompt}, {Role: model.Assistant, Content: notice},
	}}
}

// compactionLine is the run's compaction line for its transcript part;
// nil: the run compacted nothing.
func (out turnOutput) compactionLine() *transcript.Line {
	if out.compaction == nil {
		return nil
	}
	return &out.compaction.Line
}

// adopt returns the run recorded in lines, a part its message wrote (the
// caller checked whose), so a retry replies as the first attempt would
// have; history is the context before the part. false: the part holds no
// context message.
func (p *Processor) adopt(lines []transcript.Line, history []model.Message) (turnOutput, bool) {
	var out turnOutput
	for _, l := range lines {
		if l.Type == "compaction" {
			out.compaction = &compaction.Compaction{Line: l, History: compaction.Apply(history, l)}
			continue
		}
		if l.Message == nil || !transcript.ContextRole(l.Message.Role) {
			continue
		}
		out.messages = append(out.messages, transcript.ToContext(l))
		if l.Message.Role == model.Assistant && l.Message.Usage != nil {
			u := l.Message.Usage
			out.usage = model.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Total: u.TotalTokens}
			out.last, out.stop = out.usage, l.Message.StopReason
		}
	}
	if len(out.messages) == 0 {
		return turnOutput{}, false
	}
	out.text = agent.Reply(out.messages)
	if out.stop == model.StopError {
		// A failure notice, not a model answer: Reply must not reshape it.
		out.text = out.messages[len(out.messages)-1].Content
	}
	return out, true
}

// outboxDelivery delivers the outbox's items with the Processor's
// outbox, queue and senders.
func (p *Processor) outboxDelivery() delivery.Outbox {
	return delivery.Outbox{Store: p.Outbox, Work: p.Work, Senders: p.Senders, Now: p.Now, Log: p.log()}
}

func (p *Processor) log() *slog.Logger {
	if p.Log == nil {
		return slog.Default()
	}
	return p.Log
}
