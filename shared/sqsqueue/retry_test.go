package sqsqueue

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/inbound"
)

// Unit tests of the Consumer's concurrency, retry scheduling and budget, on
// hand-built events with a recording Delayer.

// failure is what Consumer.Failed is told about one group.
type failure struct {
	Messages []inbound.Message
	Attempts []int
	Last     bool
	Err      error
}

// delays records Delay calls.
type delays struct {
	mu    sync.Mutex
	calls map[string]time.Duration // receipt → delay
}

func (d *delays) Delay(_ context.Context, receipts []string, after time.Duration) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.calls == nil {
		d.calls = map[string]time.Duration{}
	}
	for _, r := range receipts {
		d.calls[r] = after
	}
	return nil
}

// attempt returns record(id, ...) with a receipt handle and receive count.
func attemptRecord(id, group string, receives int) events.SQSMessage {
	r := record(id, group, "x")
	r.ReceiptHandle = "rh-" + id
	r.Attributes["ApproximateReceiveCount"] = strconv.Itoa(receives)
	return r
}

func TestConsumeGroupsRunConcurrently(t *testing.T) {
	const delay = time.Second
	var ev events.SQSEvent
	for i := range 10 {
		ev.Records = append(ev.Records, record(fmt.Sprintf("m%d", i), fmt.Sprintf("G%d", i), "x"))
	}
	start := time.Now()
	resp := Consume(context.Background(), ev, func(context.Context, inbound.Message, int) error {
		time.Sleep(delay) // a 1 s model call
		return nil
	})
	elapsed := time.Since(start)
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %v", failures(resp))
	}
	// Serial would take 10×; concurrent groups take about 1×.
	if ratio := float64(elapsed) / float64(delay); ratio > 2.5 {
		t.Fatalf("10 groups took %s = %.1f× one handler call; want < 2.5× (groups run concurrently)", elapsed, ratio)
	}
}

func TestConsumeConcurrencyIsBounded(t *testing.T) {
	var ev events.SQSEvent
	for i := range 8 {
		ev.Records = append(ev.Records, record(fmt.Sprintf("m%d", i), fmt.Sprintf("G%d", i), "x"))
	}
	var running, peak atomic.Int32
	c := &Consumer{Concurrency: 3, Handler: func(_ context.Context, msgs []inbound.Message, _ []int) (int, error) {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		running.Add(-1)
		return len(msgs), nil
	}}
	c.Consume(context.Background(), ev)
	if got := peak.Load(); got != 3 {
		t.Fatalf("peak concurrency %d; want 3 (the Concurrency setting)", got)
	}
}

func TestConsumeSchedulesRetries(t *testing.T) {
	boom := errors.New("model unavailable")
	backoff := Backoff{Base: 5 * time.Second, Max: 60 * time.Second}
	tests := []struct {
		name       string
		records    []events.SQSMessage
		fail       string // the id whose handling fails
		minBudget  time.Duration
		deadline   time.Duration // 0: none
		wantDelays map[string]time.Duration
		wantFailed *failure // what Failed is told (Err not compared)
	}{
		{
			name:       "first failure waits the base",
			records:    []events.SQSMessage{attemptRecord("a1", "A", 1), attemptRecord("b1", "B", 1), attemptRecord("a2", "A", 1)},
			fail:       "a1",
			wantDelays: map[string]time.Duration{"rh-a1": 5 * time.Second, "rh-a2": 5 * time.Second},
			wantFailed: &failure{Messages: []inbound.Message{msg("a1", "A"), msg("a2", "A")}, Attempts: []int{1, 1}},
		},
		{
			name:       "the delay doubles with the receive count",
			records:    []events.SQSMessage{attemptRecord("a1", "A", 3)},
			fail:       "a1",
			wantDelays: map[string]time.Duration{"rh-a1": 20 * time.Second},
			wantFailed: &failure{Messages: []inbound.Message{msg("a1", "A")}, Attempts: []int{3}},
		},
		{
			name:       "capped",
			records:    []events.SQSMessage{attemptRecord("a1", "A", 4)},
			fail:       "a1",
			wantDelays: map[string]time.Duration{"rh-a1": 40 * time.Second},
			wantFailed: &failure{Messages: []inbound.Message{msg("a1", "A")}, Attempts: []int{4}},
		},
		{
			name:       "the last receive goes to the dead-letter queue at once",
			records:    []events.SQSMessage{attemptRecord("a1", "A", 5)},
			fail:       "a1",
			wantDelays: map[string]time.Duration{"rh-a1": 0},
			wantFailed: &failure{Messages: []inbound.Message{msg("a1", "A")}, Attempts: []int{5}, Last: true},
		},
		{
			name:       "no budget: not started, returned at once, not a failure of the message",
			records:    []events.SQSMessage{attemptRecord("a1", "A", 1), attemptRecord("b1", "B", 2)},
			minBudget:  time.Hour,
			deadline:   time.Minute,
			wantDelays: map[string]time.Duration{"rh-a1": 0, "rh-b1": 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			captureLog(t)
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			d := &delays{}
			var told []failure
			var started []string
			var mu sync.Mutex
			c := &Consumer{
				MaxRun: 1, MinBudget: tt.minBudget, MaxReceives: 5, Backoff: backoff, Delayer: d,
				Failed: func(_ context.Context, msgs []inbound.Message, attempts []int, last bool, err error) {
					mu.Lock()
					told = append(told, failure{Messages: msgs, Attempts: attempts, Last: last, Err: err})
					mu.Unlock()
				},
				Handler: func(_ context.Context, msgs []inbound.Message, _ []int) (int, error) {
					mu.Lock()
					started = append(started, msgs[0].ID)
					mu.Unlock()
					if msgs[0].ID == tt.fail {
						return 0, boom
					}
					return 1, nil
				},
			}
			c.Consume(ctx, events.SQSEvent{Records: tt.records})
			if diff := cmp.Diff(tt.wantDelays, d.calls); diff != "" {
				t.Errorf("delays (-want +got):\n%s", diff)
			}
			if tt.minBudget > 0 && len(started) != 0 {
				t.Errorf("started %v without the budget", started)
			}
			var want []failure
			if tt.wantFailed != nil {
				want = []failure{*tt.wantFailed}
			}
			for i := range told {
				if !errors.Is(told[i].Err, boom) {
					t.Errorf("Failed told err %v; want the handler's", told[i].Err)
				}
				told[i].Err = nil
			}
			if diff := cmp.Diff(want, told); diff != "" {
				t.Errorf("Failed told (-want +got):\n%s", diff)
			}
		})
	}
}

func msg(id, session string) inbound.Message {
	return inbound.Message{ID: id, AgentID: "main", SessionKey: session, Channel: "telegram", ChatType: inbound.Direct, To: "1", Text: "x"}
}

func TestBackoffAfter(t *testing.T) {
	b := Backoff{Base: 10 * time.Second, Max: 300 * time.Second}
	for receives, want := range map[int]time.Duration{0: 10 * time.Second, 1: 10 * time.Second, 2: 20 * time.Second, 3: 40 * time.Second, 6: 300 * time.Second, 60: 300 * time.Second} {
		if got := b.After(receives); got != want {
			t.Errorf("After(%d) = %s; want %s", receives, got, want)
		}
	}
	if got := (Backoff{}).After(3); got != 0 {
		t.Errorf("zero Backoff: After(3) = %s; want 0", got)
	}
}
