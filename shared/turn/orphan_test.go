package turn_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/contextstore"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/transcript"
	"github.com/zero-gateway/zero/shared/transcript/transcripttest"
	"github.com/zero-gateway/zero/shared/turn/turntest"
)

// refusingStore refuses every commit of the messages in refuse, as a
// DynamoDB error that outlasts a message's deliveries would: the message
// goes to the dead-letter queue with its transcript part written and the
// entry still before it.
type refusingStore struct {
	*turntest.CrashStore
	refuse map[string]bool
}

func (s refusingStore) Commit(ctx context.Context, key string, e session.Entry, c sessionstate.ModelContext, r receipt.Receipt) error {
	if s.refuse[r.MessageID] {
		return fault.New(fault.Unavailable, "commit of %s refused", r.MessageID)
	}
	return s.CrashStore.Commit(ctx, key, e, c, r)
}

func (s refusingStore) CommitWith(ctx context.Context, key string, e session.Entry, c sessionstate.ModelContext, r receipt.Receipt, x sessionstate.Extra) error {
	if s.refuse[r.MessageID] {
		return fault.New(fault.Unavailable, "commit of %s refused", r.MessageID)
	}
	return s.CrashStore.CommitWith(ctx, key, e, c, r, x)
}

// orphanRig is a rig whose store refuses the commits of lost messages and
// whose log is kept.
func orphanRig(lost ...inbound.Message) (*rig, *bytes.Buffer) {
	r := newRig()
	refuse := map[string]bool{}
	for _, m := range lost {
		refuse[m.ID] = true
	}
	r.proc.Store = refusingStore{CrashStore: r.crash, refuse: refuse}
	var log bytes.Buffer
	r.proc.Log = slog.New(slog.NewTextHandler(&log, nil))
	return r, &log
}

// lose delivers m five times, every commit refused, as the queue does
// before it gives m to the dead-letter queue.
func (r *rig) lose(t *testing.T, m inbound.Message) {
	t.Helper()
	for attempt := 1; attempt <= 5; attempt++ {
		if err := r.proc.Handle(context.Background(), m, attempt); err == nil {
			t.Fatalf("attempt %d of %s committed; want its commit refused", attempt, m.ID)
		}
	}
}

// deliver delivers m until it is handled (at most three times), then once
// more, as a late redelivery; it returns the attempt that succeeded.
func (r *rig) deliver(t *testing.T, m inbound.Message) int {
	t.Helper()
	for attempt := 1; attempt <= 3; attempt++ {
		if err := r.proc.Handle(context.Background(), m, attempt); err == nil {
			if err := r.proc.Handle(context.Background(), m, attempt+1); err != nil {
				t.Fatalf("late redelivery of %s: %v", m.ID, err)
			}
			return attempt
		}
	}
	t.Fatalf("%s not handled in 3 attempts", m.ID)
	return 0
}

// said is msgs as "role:content", for diffs.
func said(msgs []model.Message) []string {
	out := []string{}
	for _, m := range msgs {
		out = append(out, m.Role+":"+m.Content)
	}
	return out
}

// committedContext is the main session's stored context, expanded.
func (r *rig) committedContext(t *testing.T) []model.Message {
	t.Helper()
	snap, err := r.store.Load(context.Background(), "agent:main:main", "")
	if err != nil || snap.Context == nil {
		t.Fatalf("no stored context (%v)", err)
	}
	if r.proc.Contexts == nil {
		return snap.Context.Messages
	}
	msgs, err := r.proc.Contexts.Expand(context.Background(),
		contextstore.Split{Base: snap.Context.Base, BaseLen: snap.Context.BaseLen, Tail: snap.Context.Messages})
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// checkChain fails unless every transcript line's parentId is the line
// before it, and returns the lines' sources.
func checkChain(t *testing.T, lines []transcript.Line) []string {
	t.Helper()
	var sources []string
	for i, l := range lines {
		sources = append(sources, l.SourceID)
		if i > 0 && (l.ParentID == nil || *l.ParentID != lines[i-1].ID) {
			t.Errorf("line %d (%s) parentId = %v; want %s: the chain is broken", i, l.ID, l.ParentID, lines[i-1].ID)
		}
	}
	return sources
}

// TestOrphanPartIsAdopted: a message whose commit never lands leaves its
// transcript part behind the entry; the next message absorbs it instead
// of failing on it forever. Its answer stays as given, the orphan's
// messages come before it in the committed context, its own part follows
// the orphan's in one parentId chain, and its retry changes nothing.
func TestOrphanPartIsAdopted(t *testing.T) {
	tests := []struct {
		name    string
		orphans int // messages lost in a row after the first turn
		crash   int // kills of the next message before its commit
	}{
		{"one orphan", 1, 0},
		{"one orphan, next message killed before its commit", 1, 1},
		{"two orphans in a row", 2, 0},
		{"two orphans, next message killed twice before its commit", 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lost []inbound.Message
			for i := range tt.orphans {
				lost = append(lost, msg(2+i, fmt.Sprintf("lost %d", i+1)))
			}
			r, log := orphanRig(lost...)
			r.handle(t, msg(1, "t1"))
			wantContext := []string{"user:t1", "assistant:echo: t1 (call 1)"}
			wantSources := []string{msg(1, "").ID, msg(1, "").ID}
			for i, m := range lost {
				r.lose(t, m)
				wantContext = append(wantContext, "user:"+m.Text, fmt.Sprintf("assistant:echo: %s (call %d)", m.Text, i+2))
				wantSources = append(wantSources, m.ID, m.ID)
			}
			next := msg(2+tt.orphans, "after")
			r.crash.CommitBefore = tt.crash
			if got := r.deliver(t, next); got != tt.crash+1 {
				t.Fatalf("handled on attempt %d; want %d", got, tt.crash+1)
			}
			reply := fmt.Sprintf("echo: after (call %d)", tt.orphans+2)
			wantContext = append(wantContext, "user:after", "assistant:"+reply)
			wantSources = append(wantSources, next.ID, next.ID)

			if r.model.calls != tt.orphans+2 {
				t.Errorf("model calls = %d; want %d (one per message)", r.model.calls, tt.orphans+2)
			}
			if diff := cmp.Diff("echo: t1 (call 1) | "+reply, sentTexts(r)); diff != "" {
				t.Errorf("sent (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantContext, said(r.committedContext(t))); diff != "" {
				t.Errorf("committed context (-want +got):\n%s", diff)
			}
			lines := r.transcriptLines(t)
			if diff := cmp.Diff(wantSources, checkChain(t, lines)); diff != "" {
				t.Errorf("transcript sources (-want +got):\n%s", diff)
			}
			e := r.entry(t, "agent:main:main")
			if e.TranscriptSeq != int64(tt.orphans+2) || e.LastEntryID != lines[len(lines)-1].ID {
				t.Errorf("entry at part %d, last line %s; want part %d, %s", e.TranscriptSeq, e.LastEntryID, tt.orphans+2, lines[len(lines)-1].ID)
			}
			for _, m := range lost {
				if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "orphan_message="+m.ID) {
					t.Errorf("no warning names the orphan %s; log:\n%s", m.ID, log)
				}
			}
			// A lost message redriven from the dead-letter queue is a
			// duplicate now: its answer is already history.
			for _, m := range lost {
				if err := r.proc.Handle(context.Background(), m, 1); err != nil {
					t.Fatalf("redrive of %s: %v", m.ID, err)
				}
			}
			if r.model.calls != tt.orphans+2 || sentTexts(r) != "echo: t1 (call 1) | "+reply {
				t.Errorf("a redriven orphan was answered again: %d model calls, sent %q", r.model.calls, sentTexts(r))
			}
			// The turn after it continues from the whole history.
			r.handle(t, msg(3+tt.orphans, "later"))
			if diff := cmp.Diff(append(wantContext, "user:later"), said(r.model.seen[len(r.model.seen)-1])); diff != "" {
				t.Errorf("the next model request (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOrphanCompactPartIsAdopted: a /compact whose commit never lands
// leaves its compaction part behind the entry. The next message, a model
// turn or another /compact, applies it: the committed context starts from
// its summary (stored afresh: the old base is no prefix of it), the entry
// counts it, and the transcript chain runs through it.
func TestOrphanCompactPartIsAdopted(t *testing.T) {
	const summary = "user:Summary of the earlier conversation:\n"
	kept := []string{"user:t2", "assistant:a2", "user:t3", "assistant:a3"}
	tests := []struct {
		name        string
		next        string // the message after the lost /compact
		crash       int    // kills of it before its commit
		wantReply   string
		wantContext []string
		wantCount   int64 // compactionCount
	}{
		{"a model turn", "t5", 0, "b", append(append([]string{summary + "one"}, kept...), "user:t5", "assistant:b"), 1},
		{"a model turn killed before its commit", "t5", 1, "b", append(append([]string{summary + "one"}, kept...), "user:t5", "assistant:b"), 1},
		{"a /compact", "/compact", 0, "Compacted: 1 earlier messages", append([]string{summary + "two"}, kept...), 2},
		{"a /compact killed before its commit", "/compact", 1, "Compacted: 1 earlier messages", append([]string{summary + "two"}, kept...), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lost := msg(4, "/compact")
			r, log := orphanRig(lost)
			r.proc.Contexts = contextstore.New(transcripttest.NewMemBucket()).WithInline(300)
			llm := &scriptModel{summary: "one", answers: []model.Response{used("a1", 10), used("a2", 10), used("a3", 10), used("b", 10), used("c", 10)}}
			r.proc.Models["zero"] = llm
			for i := 1; i <= 3; i++ {
				r.handle(t, msg(i, fmt.Sprintf("t%d", i)))
			}
			r.lose(t, lost)
			llm.summary = "two"
			next := msg(5, tt.next)
			r.crash.CommitBefore = tt.crash
			r.deliver(t, next)

			if got := r.lastSent(t); !strings.HasPrefix(got, tt.wantReply) {
				t.Errorf("reply %q; want it to start with %q", got, tt.wantReply)
			}
			if diff := cmp.Diff(tt.wantContext, said(r.committedContext(t))); diff != "" {
				t.Errorf("committed context (-want +got):\n%s", diff)
			}
			lines := r.transcriptLines(t)
			sources := checkChain(t, lines)
			if got := sources[6:]; got[0] != lost.ID || lines[6].Type != "compaction" || got[len(got)-1] != next.ID {
				t.Errorf("transcript after turn 3: sources %v, first line %s; want the lost compaction then %s's part", got, lines[6].Type, next.ID)
			}
			e := r.entry(t, "agent:main:main")
			if e.TranscriptSeq != 5 || e.CompactionCount != tt.wantCount || e.LastEntryID != lines[len(lines)-1].ID {
				t.Errorf("entry at part %d, compactionCount %d, last line %s; want 5, %d, %s", e.TranscriptSeq, e.CompactionCount, e.LastEntryID, tt.wantCount, lines[len(lines)-1].ID)
			}
			if !strings.Contains(log.String(), "orphan_message="+lost.ID) {
				t.Errorf("no warning names the orphan %s; log:\n%s", lost.ID, log)
			}
			// The turn after it continues from the committed context.
			r.handle(t, msg(6, "t6"))
			if diff := cmp.Diff(append(tt.wantContext, "user:t6"), said(llm.seen[len(llm.seen)-1].Messages)); diff != "" {
				t.Errorf("the next model request (-want +got):\n%s", diff)
			}
		})
	}
}
