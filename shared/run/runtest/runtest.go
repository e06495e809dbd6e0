// Package runtest holds the conformance suite every run store runs, and
// an in-memory store (MemStore) for unit tests of the core.
package runtest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/run"
)

// Store is what the suite checks: one implementation's run.Store and
// run.Reader.
type Store interface {
	run.Store
	run.Reader
}

// TestStore checks the run.Store and run.Reader contracts. Every subtest
// uses its own random run ids, so newStore may return the same backing
// store every time.
func TestStore(t *testing.T, newStore func(t *testing.T) Store) {
	ctx := context.Background()

	t.Run("get of an unknown run is not found", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Get(ctx, run.NewID("")); !fault.Is(err, fault.NotFound) {
			t.Fatalf("Get = %v; want fault.NotFound", err)
		}
	})

	t.Run("an unknown run has no events", func(t *testing.T) {
		s := newStore(t)
		id := run.NewID("")
		if evs, err := s.Events(ctx, id, 0, 0); err != nil || len(evs) != 0 {
			t.Fatalf("Events = %v, %v; want none", evs, err)
		}
		if last, err := s.LastSeq(ctx, id); err != nil || last != 0 {
			t.Fatalf("LastSeq = %d, %v; want 0", last, err)
		}
	})

	t.Run("start then get round-trips every field", func(t *testing.T) {
		s := newStore(t)
		rec := fullRecord()
		rec.Status = "" // means running
		if err := s.Start(ctx, rec, nil); err != nil {
			t.Fatalf("Start: %v", err)
		}
		rec.Status = run.StatusRunning
		wantRecord(t, s, rec)
	})

	t.Run("start stores its events, in order, under the run", func(t *testing.T) {
		s := newStore(t)
		rec := started()
		evs := events(rec.RunID, 1, 3)
		evs[1].RunID = "" // implied by the write
		if err := s.Start(ctx, rec, []run.Event{evs[2], evs[0], evs[1]}); err != nil {
			t.Fatalf("Start: %v", err)
		}
		wantEvents(t, s, rec.RunID, events(rec.RunID, 1, 3))
	})

	t.Run("start of an existing run keeps its fields and fills missing ones", func(t *testing.T) {
		s := newStore(t)
		first := started()
		first.Model = ""
		if err := s.Start(ctx, first, events(first.RunID, 1, 2)); err != nil {
			t.Fatalf("Start: %v", err)
		}
		retry := first
		retry.StartedAt, retry.SessionKey, retry.Model = first.StartedAt+5000, "agent:main:other", "gpt-retry"
		if err := s.Start(ctx, retry, events(first.RunID, 2, 3)); err != nil {
			t.Fatalf("Start again: %v", err)
		}
		want := first
		want.Model = "gpt-retry" // the first start had none
		wantRecord(t, s, want)
		wantEvents(t, s, first.RunID, events(first.RunID, 1, 3))
	})

	t.Run("start of a finished run keeps it finished", func(t *testing.T) {
		s := newStore(t)
		rec := started()
		start(t, s, rec)
		done := finished(rec, run.StatusOK)
		if err := s.Finish(ctx, done, nil); err != nil {
			t.Fatalf("Finish: %v", err)
		}
		if err := s.Start(ctx, rec, events(rec.RunID, 1, 1)); err != nil {
			t.Fatalf("Start of a finished run: %v", err)
		}
		wantRecord(t, s, done)
		wantEvents(t, s, rec.RunID, events(rec.RunID, 1, 1))
	})

	t.Run("append, then read after a seq with a limit", func(t *testing.T) {
		s := newStore(t)
		rec := started()
		start(t, s, rec)
		all := events(rec.RunID, 1, 60) // more than one batch of a store that batches by 25
		for _, part := range [][]run.Event{all[:30], all[30:]} {
			if err := s.Append(ctx, rec.RunID, part); err != nil {
				t.Fatalf("Append: %v", err)
			}
		}
		wantEvents(t, s, rec.RunID, all)
		tests := []struct {
			after int64
			limit int
			want  []run.Event
		}{
			{0, 0, all},
			{0, 1, all[:1]},
			{10, 5, all[10:15]},
			{58, 10, all[58:]},
			{60, 10, nil},
			{-3, 2, all[:2]},
			{run.MaxSeq, 10, nil},
		}
		for _, tc := range tests {
			got, err := s.Events(ctx, rec.RunID, tc.after, tc.limit)
			if err != nil {
				t.Fatalf("Events(after %d, limit %d): %v", tc.after, tc.limit, err)
			}
			if !sameEvents(got, tc.want) {
				t.Errorf("Events(after %d, limit %d) = seqs %v; want %v", tc.after, tc.limit, seqs(got), seqs(tc.want))
			}
		}
		if last, err := s.LastSeq(ctx, rec.RunID); err != nil || last != 60 {
			t.Fatalf("LastSeq = %d, %v; want 60", last, err)
		}
	})

	t.Run("append needs no record", func(t *testing.T) {
		s := newStore(t)
		id := run.NewID("")
		if err := s.Append(ctx, id, events(id, 1, 2)); err != nil {
			t.Fatalf("Append: %v", err)
		}
		wantEvents(t, s, id, events(id, 1, 2))
		if _, err := s.Get(ctx, id); !fault.Is(err, fault.NotFound) {
			t.Fatalf("Get = %v; want fault.NotFound: Append creates no record", err)
		}
	})

	t.Run("runs do not see each other's events", func(t *testing.T) {
		s := newStore(t)
		a := started()
		b := a
		b.RunID = a.RunID + "0" // a's id is a prefix of b's
		start(t, s, a)
		start(t, s, b)
		if err := s.Append(ctx, a.RunID, events(a.RunID, 1, 2)); err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, b.RunID, events(b.RunID, 1, 3)); err != nil {
			t.Fatal(err)
		}
		wantEvents(t, s, a.RunID, events(a.RunID, 1, 2))
		wantEvents(t, s, b.RunID, events(b.RunID, 1, 3))
	})

	t.Run("a replayed run keeps one copy of everything", func(t *testing.T) {
		s := newStore(t)
		rec := started()
		done := finished(rec, run.StatusOK)
		all := events(rec.RunID, 1, 7)
		for attempt := 1; attempt <= 2; attempt++ {
			if err := s.Start(ctx, rec, all[:1]); err != nil {
				t.Fatalf("attempt %d: Start: %v", attempt, err)
			}
			if err := s.Append(ctx, rec.RunID, all[1:5]); err != nil {
				t.Fatalf("attempt %d: Append: %v", attempt, err)
			}
			if err := s.Finish(ctx, done, all[5:]); err != nil {
				t.Fatalf("attempt %d: Finish: %v", attempt, err)
			}
		}
		wantRecord(t, s, done)
		wantEvents(t, s, rec.RunID, all)
	})

	t.Run("writing a seq again replaces the event", func(t *testing.T) {
		s := newStore(t)
		id := run.NewID("")
		first := events(id, 1, 2)
		if err := s.Append(ctx, id, first); err != nil {
			t.Fatal(err)
		}
		second := first[1]
		second.Stream, second.Data = run.StreamAssistant, json.RawMessage(`{"text":"again"}`)
		if err := s.Append(ctx, id, []run.Event{second}); err != nil {
			t.Fatal(err)
		}
		wantEvents(t, s, id, []run.Event{first[0], second})
	})

	t.Run("event data round-trips", func(t *testing.T) {
		s := newStore(t)
		id := run.NewID("")
		big := `"` + strings.Repeat("é", (run.MaxDataBytes-2)/2) + `"` // exactly at the limit
		datas := []string{"", `{"phase":"start","n":1.5e300,"nested":{"a":[1,"b",null,true]}}`, `"plain"`, `[1,2]`, `0`, `{}`, `{"text":"ünïcode ✓ <b>&"}`, big}
		var evs []run.Event
		for i, d := range datas {
			e := run.Event{RunID: id, Seq: int64(i + 1), Stream: "custom-stream", TS: int64(i)}
			if d != "" {
				e.Data = json.RawMessage(d)
			}
			evs = append(evs, e)
		}
		if len(big) != run.MaxDataBytes {
			t.Fatalf("test data of %d bytes; want %d", len(big), run.MaxDataBytes)
		}
		if err := s.Append(ctx, id, evs); err != nil {
			t.Fatalf("Append: %v", err)
		}
		wantEvents(t, s, id, evs)
	})

	t.Run("finish sets the terminal fields and keeps the rest", func(t *testing.T) {
		s := newStore(t)
		rec := fullRecord()
		rec.Status, rec.EndedAt, rec.Error, rec.Usage = run.StatusRunning, 0, "", run.Usage{}
		start(t, s, rec)
		// StartedAt 1 in Finish: the stored one stays.
		done := run.Record{RunID: rec.RunID, Status: run.StatusError, StartedAt: 1, EndedAt: rec.StartedAt + 900, Error: "model unavailable", Usage: run.Usage{Input: 10, Output: 2, Total: 12}, Model: "fallback", Reply: "partial answer"}
		evs := events(rec.RunID, 1, 2)
		if err := s.Finish(ctx, done, evs); err != nil {
			t.Fatalf("Finish: %v", err)
		}
		want := rec
		want.Status, want.EndedAt, want.Error, want.Usage, want.Model, want.Reply = done.Status, done.EndedAt, done.Error, done.Usage, done.Model, done.Reply
		wantRecord(t, s, want)
		wantEvents(t, s, rec.RunID, evs)
	})

	t.Run("finish without optional fields keeps the stored ones", func(t *testing.T) {
		s := newStore(t)
		rec := started()
		start(t, s, rec)
		if err := s.Finish(ctx, run.Record{RunID: rec.RunID, Status: run.StatusAborted, EndedAt: rec.StartedAt + 1}, nil); err != nil {
			t.Fatalf("Finish: %v", err)
		}
		want := rec
		want.Status, want.EndedAt = run.StatusAborted, rec.StartedAt+1
		wantRecord(t, s, want)
	})

	t.Run("finish again: the same status is a no-op, another a conflict", func(t *testing.T) {
		s := newStore(t)
		rec := started()
		start(t, s, rec)
		done := finished(rec, run.StatusOK)
		if err := s.Finish(ctx, done, events(rec.RunID, 1, 1)); err != nil {
			t.Fatalf("Finish: %v", err)
		}
		tests := []struct {
			name   string
			status string
			want   fault.Code // "" for success
		}{
			{"same status", run.StatusOK, ""},
			{"error after ok", run.StatusError, fault.Conflict},
			{"timeout after ok", run.StatusTimeout, fault.Conflict},
			{"aborted after ok", run.StatusAborted, fault.Conflict},
		}
		for _, tc := range tests {
			again := finished(rec, tc.status)
			again.EndedAt += 777
			again.Error, again.Model = "later", "later-model"
			err := s.Finish(ctx, again, events(rec.RunID, 2, 2))
			if fault.CodeOf(err) != tc.want {
				t.Fatalf("%s: Finish = %v; want %q", tc.name, err, tc.want)
			}
			wantRecord(t, s, done) // unchanged either way
		}
		// The same-status replay wrote its events.
		if last, err := s.LastSeq(ctx, rec.RunID); err != nil || last != 2 {
			t.Fatalf("LastSeq = %d, %v; want 2 (the replay's event)", last, err)
		}
	})

	t.Run("finish of an unknown run is not found", func(t *testing.T) {
		s := newStore(t)
		rec := finished(started(), run.StatusOK)
		if err := s.Finish(ctx, rec, events(rec.RunID, 1, 1)); !fault.Is(err, fault.NotFound) {
			t.Fatalf("Finish = %v; want fault.NotFound", err)
		}
		if _, err := s.Get(ctx, rec.RunID); !fault.Is(err, fault.NotFound) {
			t.Fatalf("Get = %v; want fault.NotFound: Finish must not create the run", err)
		}
	})

	t.Run("many events in one start and one finish", func(t *testing.T) {
		s := newStore(t)
		rec := started()
		all := events(rec.RunID, 1, 260) // past a 100-item transaction, twice
		if err := s.Start(ctx, rec, all[:130]); err != nil {
			t.Fatalf("Start: %v", err)
		}
		if err := s.Finish(ctx, finished(rec, run.StatusOK), all[130:]); err != nil {
			t.Fatalf("Finish: %v", err)
		}
		wantEvents(t, s, rec.RunID, all)
		wantRecord(t, s, finished(rec, run.StatusOK))
	})

	t.Run("concurrent finishes: one status wins", func(t *testing.T) {
		s := newStore(t)
		rec := started()
		start(t, s, rec)
		statuses := []string{run.StatusOK, run.StatusError, run.StatusTimeout, run.StatusAborted}
		errs := make([]error, len(statuses))
		var wg sync.WaitGroup
		for i, st := range statuses {
			wg.Go(func() { errs[i] = s.Finish(ctx, finished(rec, st), nil) })
		}
		wg.Wait()
		got, err := s.Get(ctx, rec.RunID)
		if err != nil {
			t.Fatal(err)
		}
		wins := 0
		for i, err := range errs {
			switch {
			case err == nil:
				wins++
				if statuses[i] != got.Status {
					t.Errorf("Finish(%s) succeeded but the run is %s", statuses[i], got.Status)
				}
			case !fault.Is(err, fault.Conflict):
				t.Errorf("Finish(%s) = %v; a lost race must be fault.Conflict", statuses[i], err)
			}
		}
		if wins != 1 {
			t.Fatalf("%d finishes succeeded (%v); want exactly one", wins, errs)
		}
	})

	t.Run("invalid input is refused and writes nothing", func(t *testing.T) {
		s := newStore(t)
		rec := started()
		id := rec.RunID
		ev := func(mut func(*run.Event)) []run.Event {
			e := events(id, 1, 1)
			mut(&e[0])
			return e
		}
		with := func(mut func(*run.Record)) run.Record {
			r := rec
			mut(&r)
			return r
		}
		tests := []struct {
			name string
			call func() error
		}{
			{"start without id", func() error { return s.Start(ctx, with(func(r *run.Record) { r.RunID = "" }), nil) }},
			{"start with an id too long", func() error {
				return s.Start(ctx, with(func(r *run.Record) { r.RunID = strings.Repeat("r", run.MaxIDBytes+1) }), nil)
			}},
			{"start as finished", func() error { return s.Start(ctx, with(func(r *run.Record) { r.Status = run.StatusOK }), nil) }},
			{"start without startedAt", func() error { return s.Start(ctx, with(func(r *run.Record) { r.StartedAt = 0 }), nil) }},
			{"start with a bad event", func() error { return s.Start(ctx, rec, ev(func(e *run.Event) { e.Seq = 0 })) }},
			{"finish as running", func() error { return s.Finish(ctx, with(func(r *run.Record) { r.EndedAt = 5 }), nil) }},
			{"finish without endedAt", func() error { return s.Finish(ctx, with(func(r *run.Record) { r.Status = run.StatusOK }), nil) }},
			{"append seq 0", func() error { return s.Append(ctx, id, ev(func(e *run.Event) { e.Seq = 0 })) }},
			{"append seq past the maximum", func() error { return s.Append(ctx, id, ev(func(e *run.Event) { e.Seq = run.MaxSeq + 1 })) }},
			{"append a seq twice", func() error { return s.Append(ctx, id, append(events(id, 1, 2), events(id, 2, 2)...)) }},
			{"append another run's event", func() error { return s.Append(ctx, id, ev(func(e *run.Event) { e.RunID = id + "x" })) }},
			{"append without stream", func() error { return s.Append(ctx, id, ev(func(e *run.Event) { e.Stream = "" })) }},
			{"append a negative ts", func() error { return s.Append(ctx, id, ev(func(e *run.Event) { e.TS = -1 })) }},
			{"append data that is not JSON", func() error { return s.Append(ctx, id, ev(func(e *run.Event) { e.Data = json.RawMessage(`{"a":`) })) }},
			{"append data not in UTF-8", func() error {
				return s.Append(ctx, id, ev(func(e *run.Event) { e.Data = json.RawMessage("\"\xff\"") }))
			}},
			{"append a stream not in UTF-8", func() error { return s.Append(ctx, id, ev(func(e *run.Event) { e.Stream = "\xff" })) }},
			{"get an id not in UTF-8", func() error { _, err := s.Get(ctx, "run_\xff"); return err }},
			{"append data over the limit", func() error {
				return s.Append(ctx, id, ev(func(e *run.Event) { e.Data = json.RawMessage(`"` + strings.Repeat("x", run.MaxDataBytes) + `"`) }))
			}},
			{"append without run id", func() error { return s.Append(ctx, "", events("", 1, 1)) }},
			{"get without id", func() error { _, err := s.Get(ctx, ""); return err }},
			{"events without id", func() error { _, err := s.Events(ctx, "", 0, 0); return err }},
			{"last seq without id", func() error { _, err := s.LastSeq(ctx, ""); return err }},
		}
		for _, tc := range tests {
			if err := tc.call(); !fault.Is(err, fault.Invalid) {
				t.Errorf("%s = %v; want fault.Invalid", tc.name, err)
			}
		}
		if _, err := s.Get(ctx, id); !fault.Is(err, fault.NotFound) {
			t.Errorf("Get = %v; want fault.NotFound: nothing was valid", err)
		}
		if evs, err := s.Events(ctx, id, 0, 0); err != nil || len(evs) != 0 {
			t.Errorf("Events = seqs %v, %v; want none", seqs(evs), err)
		}
	})
}

// fullRecord has every field set.
func fullRecord() run.Record {
	return run.Record{
		RunID: run.NewID(""), SessionKey: "agent:main:telegram:dm:42", SessionID: "3f1c2d4e-0000-4000-8000-000000000001",
		MessageID: "telegram:1:100", Status: run.StatusRunning, StartedAt: 1_700_000_000_000, EndedAt: 1_700_000_000_500,
		Error: "none yet", Usage: run.Usage{Input: 1, Output: 2, Total: 3}, Model: "openai/gpt-x",
	}
}

// started is a running record as a runner starts it.
func started() run.Record {
	return run.Record{
		RunID: run.NewID(""), SessionKey: "agent:main:main", SessionID: "3f1c2d4e-0000-4000-8000-000000000002",
		MessageID: "telegram:1:101", Status: run.StatusRunning, StartedAt: 1_700_000_001_000, Model: "zero/echo",
	}
}

// finished is rec as Finish with status leaves it.
func finished(rec run.Record, status string) run.Record {
	rec.Status, rec.EndedAt = status, rec.StartedAt+1234
	return rec
}

func start(t *testing.T, s Store, rec run.Record) {
	t.Helper()
	if err := s.Start(context.Background(), rec, nil); err != nil {
		t.Fatalf("Start: %v", err)
	}
}

// events returns events from..to of runID, on varied streams and data.
func events(runID string, from, to int64) []run.Event {
	var out []run.Event
	for seq := from; seq <= to; seq++ {
		e := run.Event{RunID: runID, Seq: seq, TS: 1_700_000_001_000 + seq}
		switch seq % 4 {
		case 1:
			e.Stream, e.Data = run.StreamLifecycle, json.RawMessage(fmt.Sprintf(`{"phase":"start","seq":%d}`, seq))
		case 2:
			e.Stream, e.Data = run.StreamAssistant, json.RawMessage(fmt.Sprintf(`{"text":"part %d"}`, seq))
		case 3:
			e.Stream, e.Data = run.StreamTool, json.RawMessage(fmt.Sprintf(`{"name":"session_status","phase":"result","toolCallId":"c%d"}`, seq))
		default:
			e.Stream = run.StreamCompaction // no data
		}
		out = append(out, e)
	}
	return out
}

func wantRecord(t *testing.T, s Store, want run.Record) {
	t.Helper()
	got, err := s.Get(context.Background(), want.RunID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Get = %+v\nwant  %+v", got, want)
	}
}

// wantEvents checks that runID has exactly want (read in pages, so a
// store's page size does not matter).
func wantEvents(t *testing.T, s Store, runID string, want []run.Event) {
	t.Helper()
	var got []run.Event
	for after := int64(0); ; {
		page, err := s.Events(context.Background(), runID, after, 100)
		if err != nil {
			t.Fatalf("Events: %v", err)
		}
		got = append(got, page...)
		if len(page) < 100 {
			break
		}
		after = page[len(page)-1].Seq
	}
	if !sameEvents(got, want) {
		t.Fatalf("events = seqs %v\nwant seqs %v\n(first difference: %s)", seqs(got), seqs(want), difference(got, want))
	}
	var wantLast int64
	if len(want) > 0 {
		wantLast = want[len(want)-1].Seq
	}
	if last, err := s.LastSeq(context.Background(), runID); err != nil || last != wantLast {
		t.Fatalf("LastSeq = %d, %v; want %d", last, err, wantLast)
	}
}

// sameEvents compares events field by field, Data byte for byte (an empty
// Data, nil or not, is no data).
func sameEvents(got, want []run.Event) bool {
	return difference(got, want) == ""
}

func difference(got, want []run.Event) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d events, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.RunID != w.RunID || g.Seq != w.Seq || g.Stream != w.Stream || g.TS != w.TS || string(g.Data) != string(w.Data) {
			return fmt.Sprintf("event %d = %+v (data %s), want %+v (data %s)", i, g, g.Data, w, w.Data)
		}
	}
	return ""
}

func seqs(evs []run.Event) []int64 {
	out := make([]int64, len(evs))
	for i, e := range evs {
		out[i] = e.Seq
	}
	return out
}
