package turn_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/run/runtest"
	"github.com/zero-gateway/zero/shared/turn"
)

// streamModel is a model.Streamer that answers with its pieces, one delta
// each; probe (when set) runs after delta probeAt, while the answer is
// still streaming.
type streamModel struct {
	pieces  []string
	probeAt int
	probe   func()
	// failFirstAfter, when > 0, makes the first stream fail (retryable)
	// after that many deltas: a provider dropping the answer mid-way.
	failFirstAfter int

	mu      sync.Mutex
	streams int
}

func (s *streamModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	return s.Stream(ctx, req, nil)
}

func (s *streamModel) Stream(_ context.Context, _ model.Request, sink model.TextSink) (model.Response, error) {
	s.mu.Lock()
	s.streams++
	first := s.streams == 1
	s.mu.Unlock()
	for i, p := range s.pieces {
		if first && s.failFirstAfter > 0 && i == s.failFirstAfter {
			return model.Response{}, fault.New(fault.Unavailable, "the provider dropped the stream")
		}
		if sink != nil {
			sink(p)
		}
		if i+1 == s.probeAt && s.probe != nil {
			s.probe()
		}
	}
	return model.Response{Text: strings.Join(s.pieces, ""), StopReason: model.StopEnd, Usage: model.Usage{Input: 10, Output: 5, Total: 15}}, nil
}

// assistantEvents returns the run's assistant events' deltas ("" for the
// final event, which carries the whole text and no delta) and the final
// texts, from afterSeq on.
func assistantEvents(t *testing.T, runs *runtest.MemStore, id string) (deltas []string, finals []string) {
	t.Helper()
	evs, err := runs.Events(context.Background(), id, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Stream != run.StreamAssistant {
			continue
		}
		var data struct {
			Delta *string `json:"delta"`
			Text  string  `json:"text"`
			Phase string  `json:"phase"`
		}
		if err := json.Unmarshal(ev.Data, &data); err != nil {
			t.Fatal(err)
		}
		if data.Phase != "" {
			continue // a block sent to the chat (blockreply_test.go)
		}
		if data.Delta == nil {
			finals = append(finals, data.Text)
			continue
		}
		deltas = append(deltas, *data.Delta)
	}
	return deltas, finals
}

// TestStreamedTextBecomesBatchedAssistantEvents: a streamed answer's text
// is stored as assistant delta events while the run is still going,
// batched (fewer events than deltas), in order, and followed by the final
// assistant event; a retry that adopts the recorded answer calls the
// model no more and streams nothing again; the silent token is never
// shown, not even in part.
func TestStreamedTextBecomesBatchedAssistantEvents(t *testing.T) {
	words := strings.SplitAfter("The forecast for Paris says sun all week, with a light breeze from the west and mild nights.", " ")

	t.Run("deltas are stored in batches before the run ends", func(t *testing.T) {
		r := newRig()
		runs := r.useRuns()
		m := msg(1, "weather?")
		id := run.NewID(m.ID)
		var during []string
		llm := &streamModel{pieces: words, probeAt: 12, probe: func() { during, _ = assistantEvents(t, runs, id) }}
		r.proc.Models["zero"] = llm
		r.proc.Deltas = turn.DeltaBatching{Window: 3e9} // the rig's clock ticks 1 s a reading
		if err := r.proc.Handle(context.Background(), m, 1); err != nil {
			t.Fatal(err)
		}
		whole := strings.Join(words, "")
		if len(during) == 0 || !strings.HasPrefix(whole, strings.Join(during, "")) {
			t.Fatalf("while streaming, the stored deltas were %q: want a non-empty prefix of the answer", during)
		}
		deltas, finals := assistantEvents(t, runs, id)
		if got := strings.Join(deltas, ""); got != whole {
			t.Errorf("the deltas make %q, want %q", got, whole)
		}
		if len(deltas) >= len(words) || len(deltas) < 2 {
			t.Errorf("%d delta events for %d deltas: want them batched", len(deltas), len(words))
		}
		if diff := cmp.Diff([]string{whole}, finals); diff != "" {
			t.Errorf("final assistant events (-want +got):\n%s", diff)
		}
		if got := events(t, runs, id); got[0] != "lifecycle/start" || got[len(got)-1] != "lifecycle/end" {
			t.Errorf("events %v: want lifecycle start first and end last", got)
		}
	})

	t.Run("a retry after a crash does not stream again", func(t *testing.T) {
		r := newRig()
		runs := r.useRuns()
		llm := &streamModel{pieces: words}
		r.proc.Models["zero"] = llm
		r.proc.Deltas = turn.DeltaBatching{Window: 3e9}
		r.crash.CommitBefore = 1 // dies after the transcript part, before the commit
		m := msg(1, "weather?")
		if err := r.proc.Handle(context.Background(), m, 1); err == nil {
			t.Fatal("crash not injected")
		}
		first, _ := assistantEvents(t, runs, run.NewID(m.ID))
		if err := r.proc.Handle(context.Background(), m, 2); err != nil {
			t.Fatal(err)
		}
		if llm.streams != 1 {
			t.Errorf("the model streamed %d times, want once", llm.streams)
		}
		deltas, finals := assistantEvents(t, runs, run.NewID(m.ID))
		if diff := cmp.Diff(first, deltas); diff != "" {
			t.Errorf("the retry changed the delta events (-first attempt +after the retry):\n%s", diff)
		}
		if len(finals) != 1 {
			t.Errorf("final assistant events %q, want one", finals)
		}
		if got := r.sender.Sent; len(got) != 1 {
			t.Errorf("sent %+v, want the answer once", got)
		}
	})

	t.Run("the silent token is never shown", func(t *testing.T) {
		r := newRig()
		runs := r.useRuns()
		r.proc.Models["zero"] = &streamModel{pieces: []string{"NO", "_", "REP", "LY"}}
		r.proc.Deltas = turn.DeltaBatching{Window: 1e9, Bytes: 1}
		m := msg(1, "psst")
		if err := r.proc.Handle(context.Background(), m, 1); err != nil {
			t.Fatal(err)
		}
		if deltas, finals := assistantEvents(t, runs, run.NewID(m.ID)); len(deltas)+len(finals) != 0 {
			t.Errorf("assistant events %q %q for a silent answer, want none", deltas, finals)
		}
	})

	t.Run("off: the model is not streamed", func(t *testing.T) {
		r := newRig()
		runs := r.useRuns()
		r.proc.Models["zero"] = &streamModel{pieces: words}
		r.proc.Deltas = turn.DeltaBatching{Off: true}
		m := msg(1, "weather?")
		if err := r.proc.Handle(context.Background(), m, 1); err != nil {
			t.Fatal(err)
		}
		if deltas, _ := assistantEvents(t, runs, run.NewID(m.ID)); len(deltas) != 0 {
			t.Errorf("delta events %q with deltas off", deltas)
		}
	})
}
