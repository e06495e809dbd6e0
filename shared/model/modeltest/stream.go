package modeltest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// liveWait is how long a streamed reply is held at its middle for the
// client to show its first delta (see write).
const liveWait = 5 * time.Second

// streamingClient makes newClient's clients answer Complete with their
// Stream, checking on every call that the deltas the sink got concatenate
// to the answer's text (none on an error is not required: a broken stream
// may have shown a draft).
func streamingClient(newClient func(t *testing.T, s Server, retries int) model.Client) func(t *testing.T, s Server, retries int) model.Client {
	return func(t *testing.T, s Server, retries int) model.Client {
		c := newClient(t, s, retries)
		st, ok := c.(model.Streamer)
		if !ok {
			t.Fatalf("modeltest: %T does not implement model.Streamer", c)
		}
		return &checkedStream{t: t, s: st}
	}
}

// checkedStream is a model.Client whose Complete is a checked Stream.
type checkedStream struct {
	t *testing.T
	s model.Streamer
}

func (c *checkedStream) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	var mu sync.Mutex
	var deltas []string
	resp, err := c.s.Stream(ctx, req, func(d string) {
		mu.Lock()
		defer mu.Unlock()
		deltas = append(deltas, d)
	})
	if err != nil {
		return resp, err
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(deltas, ""); got != resp.Text {
		c.t.Errorf("Stream: the deltas %q make %q, but the answer's text is %q", deltas, got, resp.Text)
	}
	for _, d := range deltas {
		if d == "" {
			c.t.Errorf("Stream: an empty delta among %q", deltas)
		}
	}
	return resp, nil
}

// testLiveDeltas checks that Stream hands out text while the answer is
// still arriving: the fake holds the second half of its stream until the
// sink got a delta, and the answer is still whole at the end.
func testLiveDeltas(t *testing.T, v Vendor, newClient func(t *testing.T, s Server, retries int) model.Client) {
	t.Run("deltas arrive before the answer ends", func(t *testing.T) {
		text := "Paris is sunny today, with a light breeze from the west and eighteen degrees."
		usage := model.Usage{Input: 10, Output: 5, Total: 15}
		f := newFake(t, v, v.Stream(Answer{Text: text, Usage: usage}))
		gate := make(chan struct{})
		f.gate = gate
		st, ok := newClient(t, f.server(), 0).(model.Streamer)
		if !ok {
			t.Fatal("the client does not implement model.Streamer")
		}
		var once sync.Once
		var deltas []string
		start := time.Now()
		var firstAt time.Duration
		resp, err := st.Stream(context.Background(), model.Request{
			Model: Model, Messages: []model.Message{{Role: model.User, Content: "Weather in Paris?"}},
		}, func(d string) {
			deltas = append(deltas, d)
			once.Do(func() { firstAt = time.Since(start); close(gate) })
		})
		if err != nil {
			t.Fatalf("Stream: %v", err)
		}
		if firstAt == 0 || firstAt >= liveWait {
			t.Errorf("the first delta came after %v: the client waited for the whole stream", firstAt)
		}
		if len(deltas) < 2 {
			t.Errorf("deltas = %q, want the text in several pieces", deltas)
		}
		want := model.Response{Text: text, StopReason: model.StopEnd, Usage: usage}
		if diff := cmp.Diff(want, resp); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
	})
}

// testCutShort checks that a stream that stops half-way (the connection
// closed before the answer ended) is a retryable error, not an answer
// made of its first half.
func testCutShort(t *testing.T, v Vendor, newClient func(t *testing.T, s Server, retries int) model.Client) {
	t.Run("a stream cut short is a retryable error", func(t *testing.T) {
		rep := v.Stream(Answer{Text: "Paris is sunny today, with a light breeze from the west.", Usage: model.Usage{Input: 10, Output: 5, Total: 15}})
		rep.Parts = rep.Parts[:len(rep.Parts)/2]
		f := newFake(t, v, rep)
		st, ok := newClient(t, f.server(), 0).(model.Streamer)
		if !ok {
			t.Fatal("the client does not implement model.Streamer")
		}
		resp, err := st.Stream(context.Background(), model.Request{
			Model: Model, Messages: []model.Message{{Role: model.User, Content: "Weather in Paris?"}},
		}, func(string) {})
		if err == nil || !fault.Retryable(err) {
			t.Errorf("Stream = %+v, %v; want a retryable error", resp, err)
		}
	})
}

// testStalled checks that a stream that stops arriving half-way (the
// connection open, nothing more sent) ends with the caller's context: an
// error soon after the deadline, never a wait for the rest.
func testStalled(t *testing.T, v Vendor, newClient func(t *testing.T, s Server, retries int) model.Client) {
	t.Run("a stalled stream ends with its context", func(t *testing.T) {
		rep := v.Stream(Answer{Text: "Paris is sunny today, with a light breeze from the west.", Usage: model.Usage{Input: 10, Output: 5, Total: 15}})
		f := newFake(t, v, rep)
		stall := make(chan struct{}) // never closed before the subtest ends
		f.gate = stall
		t.Cleanup(func() { close(stall) }) // runs before the server closes
		st, ok := newClient(t, f.server(), 0).(model.Streamer)
		if !ok {
			t.Fatal("the client does not implement model.Streamer")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		resp, err := st.Stream(ctx, model.Request{
			Model: Model, Messages: []model.Message{{Role: model.User, Content: "Weather in Paris?"}},
		}, func(string) {})
		if err == nil {
			t.Errorf("Stream = %+v, nil; want an error", resp)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Stream returned after %v (%v), want soon after the 200ms deadline", d, err)
		}
	})
}

// Pieces cuts s into about n pieces at word ends (after a space), the way
// a provider streams text; "" gives none. Vendors use it to write deltas.
func Pieces(s string, n int) []string {
	if s == "" {
		return nil
	}
	words := strings.SplitAfter(s, " ")
	per := max(1, (len(words)+n-1)/max(n, 1))
	var out []string
	for i := 0; i < len(words); i += per {
		out = append(out, strings.Join(words[i:min(i+per, len(words))], ""))
	}
	if len(out) == 1 && len(s) > 1 {
		// One word: cut it in two, on a rune boundary.
		r := []rune(s)
		out = []string{string(r[:len(r)/2]), string(r[len(r)/2:])}
	}
	return out
}
