package turn

import (
	"context"
	"fmt"
	"slices"

	"github.com/zero-gateway/zero/shared/compaction"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/transcript"
)

// maxOrphans bounds the orphan parts one turn absorbs. More in a row means
// something keeps failing every commit of the session: the turn fails
// with a clear error instead of reading on.
const maxOrphans = 8

// orphans is a turn's walk over the transcript parts past its entry's
// TranscriptSeq. An orphan part is one whose message never committed: its
// part was written (create-only) and every delivery's commit failed, so
// the message went to the dead-letter queue with the entry still before
// the part. The transcript is the source of truth and its readers already
// include the part, so the next turn absorbs it instead of failing on it
// forever: the orphan's context messages (and its compaction, applied)
// join the history before the turn's own messages, the entry moves past
// it, and the turn's own part goes to the next free seq, its first line
// chained to the orphan's last. Every absorbed part is logged at Warn with
// its message id; nothing is dropped.
//
// The walk only reads: a retry of the turn walks the same parts to the
// same result, and finds its own part (a killed attempt's) after them.
type orphans struct {
	path        string
	seq         int64            // the turn's own part: the first part not absorbed
	history     []model.Message  // the context before part seq: the turn's, with the absorbed parts applied
	lastEntryID string           // the id of the last line before part seq
	sources     []string         // the absorbed parts' message ids, in order
	compactions int64            // absorbed compaction lines apply has to count
	compaction  *transcript.Line // the last absorbed compaction line
}

// newOrphans starts a walk at the part after e's TranscriptSeq, with
// history the context e's turns left.
func newOrphans(path string, e session.Entry, history []model.Message) *orphans {
	return &orphans{path: path, seq: e.TranscriptSeq + 1, history: slices.Clip(history), lastEntryID: e.LastEntryID}
}

// claim reads the parts from o.seq on, absorbing each part of another
// message, until it reaches a free seq (it returns nil) or a part of
// messageID's own, a killed attempt's (it returns its lines); o.seq is then
// that seq. A part is messageID's when every line of it has messageID as
// its source. More than maxOrphans parts to absorb is a fault.Conflict
// error. It only reads, so a retry walks the same parts to the same end.
func (p *Processor) claim(ctx context.Context, messageID string, o *orphans) ([]transcript.Line, error) {
	for {
		lines, err := p.Transcript.Part(ctx, o.path, o.seq)
		if fault.Is(err, fault.NotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read transcript part %d: %w", o.seq, err)
		}
		source := sourceOf(lines)
		if source == messageID {
			return lines, nil
		}
		if len(o.sources) == maxOrphans {
			return nil, fault.New(fault.Conflict, "transcript %s has more than %d orphan parts in a row from part %d (messages whose commit never landed); not absorbing more",
				o.path, maxOrphans, o.seq-maxOrphans)
		}
		p.log().WarnContext(ctx, "transcript part of an uncommitted message adopted into the next turn",
			"message", messageID, "orphan_message", source, "part", o.seq, "path", o.path)
		o.absorb(source, lines)
	}
}

// place writes the turn's part at o.seq, create-only, its lines built by
// lines for the seq and the id of the line before it. When the part
// exists it claims from there: another message's part is absorbed and the
// write moves on to the next seq; messageID's own part (a killed attempt
// wrote it) is returned for the caller to adopt, so every line is written
// once (a crash after the write leaves a part the retry claims as its
// own). nil, nil: the part was written at o.seq.
func (p *Processor) place(ctx context.Context, messageID string, o *orphans, lines func(seq int64, parent string) []any) ([]transcript.Line, error) {
	for range maxOrphans + 1 {
		err := p.Transcript.WritePart(ctx, o.path, o.seq, lines(o.seq, o.lastEntryID))
		if err == nil {
			return nil, nil
		}
		if !fault.Is(err, fault.Conflict) {
			return nil, fmt.Errorf("write transcript part %d: %w", o.seq, err)
		}
		own, err := p.claim(ctx, messageID, o)
		if err != nil || own != nil {
			return own, err
		}
	}
	return nil, fault.New(fault.Conflict, "transcript part %d of %s: the create-only write keeps conflicting", o.seq, o.path)
}

// adoptRun adopts the run messageID's own part (at o.seq, after the
// orphans o absorbed) records, as a killed attempt left it.
func (p *Processor) adoptRun(ctx context.Context, rt *runTracker, own []transcript.Line, o *orphans, messageID string) (turnOutput, error) {
	out, ok := p.adopt(own, o.history)
	if !ok {
		return out, fault.New(fault.Internal, "transcript part %d of %s holds no context message of %s", o.seq, o.path, messageID)
	}
	o.intoRun(&out, messageID)
	rt.replayBlocks(ctx, out.messages)
	rt.end(out)
	return out, nil
}

// absorb takes in one orphan part as ContextOf reads it: its context
// messages appended, its compaction applied.
func (o *orphans) absorb(source string, lines []transcript.Line) {
	for _, l := range lines {
		switch {
		case l.Type == "compaction":
			o.history = compaction.Apply(o.history, l)
			o.compactions++
			o.compaction = &l
		case l.Type == "message" && l.Message != nil && transcript.ContextRole(l.Message.Role):
			o.history = append(o.history, transcript.ToContext(l))
		}
		if l.ID != "" {
			o.lastEntryID = l.ID
		}
	}
	o.sources = append(o.sources, source)
	o.seq++
}

// into hands the absorbed parts, if any, to apply through out.
func (o *orphans) into(out *turnOutput) {
	if len(o.sources) > 0 {
		out.absorbed = o
	}
}

// intoRun is into for a model turn. The turn's own compaction was made
// before the orphans were known: its context is recomputed over them, as
// ContextOf would read the transcript. An orphan's compaction with none of
// the turn's own becomes out.compaction (apply counts it there), so the
// turn stores its context afresh: the stored split's base is no longer a
// prefix of it.
func (o *orphans) intoRun(out *turnOutput, messageID string) {
	if len(o.sources) == 0 {
		return
	}
	o.into(out)
	switch {
	case out.compaction != nil:
		line := out.compaction.Line
		line.ID = transcript.EntryID(messageID, transcript.CompactionEntry)
		out.compaction.History = compaction.Apply(o.history, line)
	case o.compaction != nil:
		out.compaction = &compaction.Compaction{Line: *o.compaction, History: o.history}
		o.compactions--
	}
}

// moveEntry moves e to the last absorbed part (apply then counts the
// turn's own) and returns the context before the turn's own part.
func (o *orphans) moveEntry(e *session.Entry) []model.Message {
	e.TranscriptSeq, e.LastEntryID = o.seq-1, o.lastEntryID
	e.CompactionCount += o.compactions
	return o.history
}

// sourceOf is the message that wrote lines: the source every line names,
// or "" when they are none or disagree.
func sourceOf(lines []transcript.Line) string {
	if len(lines) == 0 {
		return ""
	}
	for _, l := range lines[1:] {
		if l.SourceID != lines[0].SourceID {
			return ""
		}
	}
	return lines[0].SourceID
}
