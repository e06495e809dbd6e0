package run_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/run"
)

// clock returns a clock that starts at ms and moves 1 ms per reading.
func clock(ms int64) func() time.Time {
	var mu sync.Mutex
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		ms++
		return time.UnixMilli(ms - 1)
	}
}

func TestRecorderEvents(t *testing.T) {
	type payload struct {
		Args string `json:"args"`
	}
	tests := []struct {
		name       string
		emit       func(r *run.Recorder) run.Event
		wantStream string
		wantData   string
	}{
		{"lifecycle start", func(r *run.Recorder) run.Event {
			return r.Lifecycle(run.PhaseStart, map[string]any{"startedAt": 5})
		}, run.StreamLifecycle, `{"phase":"start","startedAt":5}`},
		{"lifecycle without extra", func(r *run.Recorder) run.Event { return r.Lifecycle(run.PhaseEnd, nil) },
			run.StreamLifecycle, `{"phase":"end"}`},
		{"lifecycle phase wins over extra", func(r *run.Recorder) run.Event {
			return r.Lifecycle(run.PhaseError, map[string]any{"phase": "x", "error": "boom"})
		}, run.StreamLifecycle, `{"error":"boom","phase":"error"}`},
		{"assistant text, HTML unescaped", func(r *run.Recorder) run.Event { return r.Assistant("a <b> & c") },
			run.StreamAssistant, `{"text":"a <b> & c"}`},
		{"tool with an object merged", func(r *run.Recorder) run.Event {
			return r.Tool(run.PhaseStart, "session_status", "call_1", payload{Args: "{}"})
		}, run.StreamTool, `{"args":"{}","name":"session_status","phase":"start","toolCallId":"call_1"}`},
		{"tool with a raw object merged", func(r *run.Recorder) run.Event {
			return r.Tool(run.PhaseResult, "t", "c", json.RawMessage(`{"isError":true,"name":"spoof"}`))
		}, run.StreamTool, `{"isError":true,"name":"t","phase":"result","toolCallId":"c"}`},
		{"tool with a non-object under data", func(r *run.Recorder) run.Event {
			return r.Tool(run.PhaseUpdate, "t", "c", []int{1, 2})
		}, run.StreamTool, `{"data":[1,2],"name":"t","phase":"update","toolCallId":"c"}`},
		{"tool without data", func(r *run.Recorder) run.Event { return r.Tool(run.PhaseStart, "t", "c", nil) },
			run.StreamTool, `{"name":"t","phase":"start","toolCallId":"c"}`},
		{"compaction", func(r *run.Recorder) run.Event {
			return r.Compaction(run.PhaseEnd, map[string]int{"dropped": 3})
		}, run.StreamCompaction, `{"dropped":3,"phase":"end"}`},
		{"emit without data", func(r *run.Recorder) run.Event { return r.Emit("custom", nil) }, "custom", ``},
		{"emit a string", func(r *run.Recorder) run.Event { return r.Emit("custom", "hi") }, "custom", `"hi"`},
		{"unencodable data is replaced", func(r *run.Recorder) run.Event {
			return r.Tool(run.PhaseResult, "t", "c", map[string]float64{"x": math.NaN()})
		}, run.StreamTool, `{"error":"unencodable event data: json: unsupported value: NaN","name":"t","phase":"result","toolCallId":"c"}`},
		{"oversize data is replaced, keeping the identity", func(r *run.Recorder) run.Event {
			return r.Tool(run.PhaseResult, "t", "c", map[string]string{"result": strings.Repeat("x", run.MaxDataBytes)})
		}, run.StreamTool, `{"bytes":32826,"name":"t","phase":"result","toolCallId":"c","truncated":true}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run.NewRecorder("run_x", clock(1000))
			got := tc.emit(r)
			want := run.Event{RunID: "run_x", Seq: 1, Stream: tc.wantStream, TS: 1000}
			if got.RunID != want.RunID || got.Seq != want.Seq || got.Stream != want.Stream || got.TS != want.TS || string(got.Data) != tc.wantData {
				t.Fatalf("event = %+v (data %s)\nwant    %+v (data %s)", got, got.Data, want, tc.wantData)
			}
			if pending := r.Pending(); len(pending) != 1 || string(pending[0].Data) != string(got.Data) {
				t.Fatalf("Pending = %v; want the event", pending)
			}
		})
	}
}

// A long reply is cut to fit MaxDataBytes, at a character boundary, even
// when escaping makes the encoding much longer than the text.
func TestRecorderCutsLongAssistantText(t *testing.T) {
	tests := []struct{ name, text string }{
		{"ascii", strings.Repeat("a", 3*run.MaxDataBytes)},
		{"multi-byte", strings.Repeat("é✓", run.MaxDataBytes)},
		{"escaped quotes", strings.Repeat(`"`, 2*run.MaxDataBytes)},
		{"control characters", strings.Repeat("\x01", run.MaxDataBytes)}, // 6 bytes each encoded
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run.NewRecorder("run_x", nil)
			e := r.Assistant(tc.text)
			if len(e.Data) > run.MaxDataBytes {
				t.Fatalf("data of %d bytes; want at most %d", len(e.Data), run.MaxDataBytes)
			}
			var got struct {
				Text      string `json:"text"`
				Truncated bool   `json:"truncated"`
			}
			if err := json.Unmarshal(e.Data, &got); err != nil {
				t.Fatal(err)
			}
			if !got.Truncated || !utf8.ValidString(got.Text) || !strings.HasPrefix(tc.text, got.Text) || len(e.Data) < run.MaxDataBytes/2 {
				t.Fatalf("cut to %d bytes of data (truncated %v, valid %v, prefix %v); want a valid prefix filling most of the limit",
					len(e.Data), got.Truncated, utf8.ValidString(got.Text), strings.HasPrefix(tc.text, got.Text))
			}
		})
	}
}

func TestRecorderFlushing(t *testing.T) {
	r := run.NewRecorder("run_x", clock(0))
	r.Lifecycle(run.PhaseStart, nil)
	r.Assistant("a")
	first := r.Pending()
	r.Assistant("b") // emitted while the first two are being flushed
	r.MarkFlushed(len(first))
	if got := r.Pending(); len(got) != 1 || got[0].Seq != 3 {
		t.Fatalf("Pending after flushing 2 = %v; want only seq 3", got)
	}
	r.MarkFlushed(5) // more than pending: clamps
	if got := r.Pending(); len(got) != 0 {
		t.Fatalf("Pending = %v; want none", got)
	}
	if e := r.Assistant("c"); e.Seq != 4 || r.Seq() != 4 {
		t.Fatalf("next event seq %d (Seq %d); want 4: numbering goes on after a flush", e.Seq, r.Seq())
	}
	// A failed flush keeps the events for the next one.
	r.MarkFlushed(0)
	if got := r.Pending(); len(got) != 1 || got[0].Seq != 4 {
		t.Fatalf("Pending = %v; want seq 4", got)
	}
}

func TestRecorderContinue(t *testing.T) {
	tests := []struct {
		name    string
		emitted int   // events before Continue
		after   int64 // Continue's argument
		want    int64 // the next event's seq
	}{
		{"fresh run", 0, 0, 1},
		{"retry after 7 stored events", 0, 7, 8},
		{"never moves back", 3, 2, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run.NewRecorder("run_x", nil)
			for range tc.emitted {
				r.Assistant("x")
			}
			r.Continue(tc.after)
			if e := r.Lifecycle(run.PhaseStart, nil); e.Seq != tc.want {
				t.Fatalf("next seq = %d; want %d", e.Seq, tc.want)
			}
		})
	}
}

// Parallel tool calls emit concurrently: every seq is handed out once.
func TestRecorderConcurrentEmit(t *testing.T) {
	r := run.NewRecorder("run_x", nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 50 {
				r.Tool(run.PhaseStart, "t", string(rune('a'+i)), nil)
			}
		})
	}
	wg.Wait()
	pending := r.Pending()
	if len(pending) != 400 {
		t.Fatalf("%d events; want 400", len(pending))
	}
	for i, e := range pending {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d; want %d (in order, no gaps)", i, e.Seq, i+1)
		}
	}
}

// Every event the Recorder emits is one a store accepts.
func TestRecorderEventsAreValid(t *testing.T) {
	r := run.NewRecorder("run_x", nil)
	r.Lifecycle(run.PhaseStart, map[string]any{"startedAt": 1})
	r.Assistant(strings.Repeat("<&>", run.MaxDataBytes))
	r.Tool(run.PhaseResult, "t", "c", map[string]any{"result": strings.Repeat("x", 2*run.MaxDataBytes)})
	r.Compaction(run.PhaseStart, func() {}) // does not encode
	if err := run.CheckEvents("run_x", r.Pending()); err != nil {
		t.Fatal(err)
	}
}

func TestRecorderRewind(t *testing.T) {
	tests := []struct {
		name    string
		flushed int   // events marked flushed before the rewind (of 5)
		to      int64 // Rewind's seq
		pending []int64
		next    int64 // the seq of the next event
	}{
		{"drops the pending events after seq", 2, 3, []int64{3}, 4},
		{"never forgets flushed events", 4, 2, []int64{}, 5},
		{"never moves forward", 0, 9, []int64{1, 2, 3, 4, 5}, 6},
		{"to the last event: nothing changes", 1, 5, []int64{2, 3, 4, 5}, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run.NewRecorder("run_x", clock(1))
			for range 5 {
				r.Assistant("x")
			}
			r.MarkFlushed(tc.flushed)
			r.Rewind(tc.to)
			got := []int64{}
			for _, e := range r.Pending() {
				got = append(got, e.Seq)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.pending) {
				t.Fatalf("pending seqs %v; want %v", got, tc.pending)
			}
			if e := r.Assistant("y"); e.Seq != tc.next {
				t.Fatalf("next event seq %d; want %d", e.Seq, tc.next)
			}
		})
	}
}
