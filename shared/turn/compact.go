package turn

import (
	"context"
	"fmt"

	"github.com/zero-gateway/zero/shared/compaction"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/transcript"
)

// compact summarises history before its last compaction.KeepTurns user
// turns with one model call, between the compaction hooks and run
// events. It returns nil when there is nothing old enough to compact.
// instructions (from /compact) steer the summary.
func (p *Processor) compact(ctx context.Context, t *turnState, ref model.Ref, history []model.Message, instructions string, tokensBefore int64) (*compaction.Compaction, error) {
	k := compaction.KeptFrom(history)
	if k <= 0 {
		return nil, nil
	}
	if tokensBefore <= 0 {
		tokensBefore = compaction.EstimateTokens(history)
	}
	ev := CompactionEvent{SessionKey: t.msg.SessionKey, TokensBefore: tokensBefore, Manual: t.cmd.name == "/compact"}
	for _, h := range p.Hooks.BeforeCompaction {
		h(ctx, ev)
	}
	t.run.compaction(run.PhaseStart, map[string]any{"tokensBefore": tokensBefore, "manual": ev.Manual})
	client, ok := p.Models[ref.Provider]
	if !ok {
		return nil, fault.New(fault.Invalid, "cannot compact: no %s provider configured", ref.Provider)
	}
	summary, err := compaction.Summarize(ctx, client, ref, history[:k], instructions)
	if err != nil {
		return nil, err
	}
	ev.Summary = summary
	for _, h := range p.Hooks.AfterCompaction {
		h(ctx, ev)
	}
	t.run.compaction(run.PhaseEnd, map[string]any{"tokensBefore": tokensBefore, "summary": summary})
	return compaction.New(history, k, summary, tokensBefore), nil
}

// compactCommand runs /compact [instructions]: it compacts the context now
// and records the compaction as the turn's transcript part, create-only,
// at the first free seq past the entry: orphan parts on the way (messages
// whose commit never landed, see orphans) are absorbed, the compaction
// keeping their messages after the summary. A retry adopts the part its
// predecessor wrote. The answer is a command reply; with too little
// history it compacts nothing, writes nothing and says so (orphans are
// then left to the next turn).
func (p *Processor) compactCommand(ctx context.Context, t *turnState, e session.Entry, history []model.Message, path string, attempt int) (turnOutput, error) {
	m := t.msg
	o := newOrphans(path, e, history)
	var own []transcript.Line
	var err error
	if attempt > 1 {
		if own, err = p.claim(ctx, m.ID, o); err != nil {
			return turnOutput{}, err
		}
	}
	var c *compaction.Compaction
	if own == nil {
		if c, err = p.compact(ctx, t, p.modelFor(t.cfg, e), o.history, t.cmd.rest, e.TotalTokens); err != nil {
			return turnOutput{}, err
		}
		if c == nil {
			return turnOutput{command: true, text: "Nothing to compact yet: the conversation is only a few turns long."}, nil
		}
		own, err = p.place(ctx, m.ID, o, func(seq int64, parent string) []any {
			c.Line.ID, c.Line.SourceID, c.Line.Timestamp, c.Line.ParentID = transcript.EntryID(m.ID, transcript.CompactionEntry), m.ID, transcript.Timestamp(p.Now()), nil
			if parent != "" {
				c.Line.ParentID = &parent
			}
			if seq == 1 {
				return []any{transcript.NewHeader(e.SessionID, e.AgentID, c.Line.Timestamp), c.Line}
			}
			return []any{c.Line}
		})
		if err != nil {
			return turnOutput{}, err
		}
	}
	if own != nil {
		if c = compaction.Adopt(own, m.ID, o.history); c == nil {
			return turnOutput{}, fault.New(fault.Internal, "transcript part %d of %s holds no compaction of %s", o.seq, path, m.ID)
		}
	} else if len(o.sources) > 0 {
		c.Dropped = max(0, compaction.KeptIndex(o.history, c.Line.FirstKeptEntryID)) // counted as a retry counts it
	}
	c.History = compaction.Apply(o.history, c.Line)
	out := turnOutput{command: true, compaction: c, text: fmt.Sprintf(
		"Compacted: %d earlier messages are now a summary (about %d tokens before); the last %d turns are kept as they were.",
		c.Dropped, c.Line.TokensBefore, compaction.KeepTurns)}
	o.into(&out)
	return out, nil
}
