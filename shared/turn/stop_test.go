package turn_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/run/runtest"
	"github.com/zero-gateway/zero/shared/stopmark"
	"github.com/zero-gateway/zero/shared/turn/turntest"
)

// stoppingModel asks for a tool, and while the tool round runs, a /stop
// arrives (the channel function marks the session).
type stoppingModel struct {
	r     *rig
	calls int
}

func (s *stoppingModel) Complete(ctx context.Context, _ model.Request) (model.Response, error) {
	s.calls++
	if s.calls == 1 {
		s.r.store.MarkStop(ctx, "agent:main:main", stopmark.Mark{MessageID: "telegram:42:9", At: s.r.clock.UnixMilli(), Pending: true})
		return statusCall(), nil
	}
	return final("too late"), nil
}

func TestStopCommand(t *testing.T) {
	for _, inCommit := range []bool{false, true} {
		t.Run(fmt.Sprintf("run outcome in the commit %v", inCommit), func(t *testing.T) { testStopCommand(t, inCommit) })
	}
}

func testStopCommand(t *testing.T, inCommit bool) {
	r := newRig()
	runs := runtest.NewMemStore()
	r.proc.Runs = runs
	if inCommit {
		runs = r.useRuns()
	}
	llm := &stoppingModel{r: r}
	r.proc.Models["zero"] = llm

	r.handle(t, msg(1, "do something long")) // interrupted after its tool round
	r.handle(t, msg(2, "queued behind it"))  // dropped: queued before the /stop
	r.handle(t, msg(9, "/stop"))             // reports and clears the mark
	r.proc.Models["zero"] = &scriptModel{answers: []model.Response{final("back")}}
	r.handle(t, msg(10, "hello again")) // runs normally

	if llm.calls != 1 {
		t.Fatalf("the stopped run called the model %d times; want it stopped before the second call", llm.calls)
	}
	sent := []string{}
	for _, s := range r.sender.Sent {
		sent = append(sent, s.Text)
	}
	want := "⏹️ Stopped. | ⏹️ Stopped 1 run(s) and dropped 1 queued message(s). | back"
	if got := strings.Join(sent, " | "); got != want {
		t.Fatalf("sent %q\nwant %q", got, want)
	}
	e := r.entry(t, "agent:main:main")
	if e.AbortedLastRun {
		t.Fatal("abortedLastRun still set after a normal run")
	}
	rec, err := runs.Get(context.Background(), run.NewID("telegram:42:1"))
	if err != nil || rec.Status != run.StatusAborted {
		t.Fatalf("stopped run record %+v, %v; want aborted", rec, err)
	}
	// The interrupted run's tool round is in the transcript, then the notice.
	lines := r.transcriptLines(t)
	if len(lines) < 4 || lines[2].Message.Role != model.ToolResult || lines[3].Message.Text() != "⏹️ Stopped." {
		t.Fatalf("transcript %+v", lines)
	}
}

func TestStopWithNothingRunning(t *testing.T) {
	r := newRig()
	r.handle(t, msg(1, "/stop"))
	if got := r.lastSent(t); got != "Nothing was running." {
		t.Fatalf("reply %q", got)
	}
}

// slowModel blocks until its context is cancelled or delay passes, then
// answers; it reports when it started and when its context ended.
type slowModel struct {
	delay     time.Duration
	started   chan struct{}
	cancelled chan time.Time
}

func newSlowModel(delay time.Duration) *slowModel {
	return &slowModel{delay: delay, started: make(chan struct{}, 1), cancelled: make(chan time.Time, 1)}
}

func (s *slowModel) Complete(ctx context.Context, _ model.Request) (model.Response, error) {
	s.started <- struct{}{}
	select {
	case <-ctx.Done():
		s.cancelled <- time.Now()
		return model.Response{}, fault.Wrap(fault.Unavailable, ctx.Err(), "model call")
	case <-time.After(s.delay):
		return final("the long answer"), nil
	}
}

// lockedClock makes the rig's clock safe for the stop poll's goroutine.
func (r *rig) lockedClock() func() time.Time {
	var mu sync.Mutex
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		r.clock = r.clock.Add(time.Second)
		return r.clock
	}
	r.proc.Now = now
	return now
}

// stopCounter counts the stop-mark reads a turn makes.
type stopCounter struct {
	*turntest.CrashStore
	reads atomic.Int64
}

func (s *stopCounter) StopMark(ctx context.Context, key string) (*stopmark.Mark, error) {
	s.reads.Add(1)
	return s.CrashStore.StopMark(ctx, key)
}

func sentTexts(r *rig) string {
	var sent []string
	for _, s := range r.sender.Sent {
		sent = append(sent, s.Text)
	}
	return strings.Join(sent, " | ")
}

// TestStopDuringModelCall: a /stop that arrives while the model answers
// one long call cancels the call within 2 s (at the default poll), the
// answer is never delivered, the run is recorded aborted, the transcript
// keeps the prompt and the notice, the /stop reports the run, and the poll
// ends with the turn.
func TestStopDuringModelCall(t *testing.T) {
	r := newRig()
	now := r.lockedClock()
	runs := r.useRuns()
	counter := &stopCounter{CrashStore: r.crash}
	r.proc.Store = counter
	llm := newSlowModel(20 * time.Second)
	r.proc.Models["zero"] = llm

	done := make(chan error, 1)
	go func() { done <- r.proc.Handle(context.Background(), msg(1, "write a long essay"), 1) }()
	<-llm.started
	marked := time.Now()
	r.store.MarkStop(context.Background(), "agent:main:main", stopmark.Mark{MessageID: "telegram:42:9", At: now().UnixMilli(), Pending: true})
	if err := <-done; err != nil {
		t.Fatalf("Handle: %v", err)
	}
	select {
	case at := <-llm.cancelled:
		if took := at.Sub(marked); took > 2*time.Second {
			t.Errorf("the model call was cancelled %s after the /stop; want within 2s", took)
		}
	default:
		t.Fatal("the model call's context was not cancelled")
	}
	reads := counter.reads.Load()
	time.Sleep(1500 * time.Millisecond) // longer than a poll interval
	if after := counter.reads.Load(); after != reads {
		t.Errorf("the stop mark was read %d more times after the turn ended; want the poll stopped", after-reads)
	}

	r.handle(t, msg(9, "/stop"))
	if got, want := sentTexts(r), "⏹️ Stopped. | ⏹️ Stopped 1 run(s) and dropped 0 queued message(s)."; got != want {
		t.Fatalf("sent %q\nwant %q", got, want)
	}
	rec, err := runs.Get(context.Background(), run.NewID("telegram:42:1"))
	if err != nil || rec.Status != run.StatusAborted {
		t.Fatalf("stopped run record %+v, %v; want aborted", rec, err)
	}
	var texts []string
	for _, l := range r.transcriptLines(t) {
		texts = append(texts, l.Message.Text())
	}
	if got, want := strings.Join(texts, " | "), "write a long essay | ⏹️ Stopped."; got != want {
		t.Fatalf("transcript %q; want %q", got, want)
	}
	if e := r.entry(t, "agent:main:main"); !e.AbortedLastRun {
		t.Error("abortedLastRun not set after a stopped run")
	}
}

// markingModel answers at once, but a /stop arrives while it does: after
// the run's last poll, before the commit.
type markingModel struct {
	r   *rig
	now func() time.Time
}

func (m *markingModel) Complete(ctx context.Context, _ model.Request) (model.Response, error) {
	m.r.store.MarkStop(ctx, "agent:main:main", stopmark.Mark{MessageID: "telegram:42:9", At: m.now().UnixMilli(), Pending: true})
	return final("the quick answer"), nil
}

// TestStopAtCommit: a /stop that the run's poll did not see refuses the
// commit; the turn is committed as stopped: the notice goes out instead of
// the answer (which stays in the transcript, where it was written), the
// run is aborted, a retry decides the same, and the /stop counts it.
func TestStopAtCommit(t *testing.T) {
	tests := []struct {
		name  string
		crash bool // the stopped commit's first attempt dies after writing
	}{
		{"first attempt", false},
		{"retried after a crash", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			runs := r.useRuns()
			r.proc.Models["zero"] = &markingModel{r: r, now: r.proc.Now}
			m := msg(1, "quick question")
			if tc.crash {
				r.crash.CommitAfter = 1
				if err := r.proc.Handle(context.Background(), m, 1); err == nil {
					t.Fatal("crash not injected")
				}
				if err := r.proc.Handle(context.Background(), m, 2); err != nil {
					t.Fatal(err)
				}
			} else {
				r.handle(t, m)
			}
			r.handle(t, msg(9, "/stop"))
			if got, want := sentTexts(r), "⏹️ Stopped. | ⏹️ Stopped 1 run(s) and dropped 0 queued message(s)."; got != want {
				t.Fatalf("sent %q\nwant %q", got, want)
			}
			rec, err := runs.Get(context.Background(), run.NewID(m.ID))
			if err != nil || rec.Status != run.StatusAborted || rec.Error != "⏹️ Stopped." {
				t.Fatalf("run record %+v, %v; want aborted", rec, err)
			}
			got := strings.Join(events(t, runs, rec.RunID), " ")
			if want := "lifecycle/start assistant lifecycle/error"; got != want {
				t.Fatalf("events %s; want %s (the refused outcome's events replaced)", got, want)
			}
			lines := r.transcriptLines(t)
			if len(lines) != 2 || lines[1].Message.Text() != "the quick answer" {
				t.Fatalf("transcript %+v; want the prompt and the answer", lines)
			}
		})
	}
}

// TestStopPollCost: the poll reads the mark once per interval while the
// model is busy, and not at all for a model faster than the interval.
func TestStopPollCost(t *testing.T) {
	const poll = 100 * time.Millisecond
	tests := []struct {
		name     string
		delay    time.Duration
		min, max int64
	}{
		{"instant model", 0, 0, 0},
		{"model busy 3.5 intervals", 350 * time.Millisecond, 2, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			r.lockedClock()
			r.useRuns()
			counter := &stopCounter{CrashStore: r.crash}
			r.proc.Store, r.proc.StopPoll = counter, poll
			llm := newSlowModel(tc.delay)
			r.proc.Models["zero"] = llm
			r.handle(t, msg(1, "hi"))
			if got := counter.reads.Load(); got < tc.min || got > tc.max {
				t.Fatalf("%d stop-mark reads; want %d..%d", got, tc.min, tc.max)
			}
			if got := r.lastSent(t); got != "the long answer" {
				t.Fatalf("reply %q", got)
			}
		})
	}
}

// remoteMarkingModel is a sub-agent's model during whose call the parent's
// /stop marks the sub-agent's session (a Remote mark, as stopSubagents
// writes), then answers.
type remoteMarkingModel struct {
	r     *rig
	calls int
}

func (m *remoteMarkingModel) Complete(ctx context.Context, _ model.Request) (model.Response, error) {
	m.calls++
	if m.calls == 1 {
		m.r.store.MarkStop(ctx, "agent:main:main", stopmark.Mark{MessageID: "parent:stop", At: m.r.clock.UnixMilli(), Pending: true, Remote: true})
	}
	return final(fmt.Sprintf("answer %d", m.calls)), nil
}

// TestSubagentStopReleased: a parent's /stop marks its sub-agent's
// session (Remote). The mark ends the sub-agent's run, or drops its task
// if it had not started, and is released right then: the next message to
// the sub-agent (a sessions_send) runs instead of being dropped until the
// mark expires. A mark of the session's own /stop is not released by a
// dropped message: its /stop clears it.
func TestSubagentStopReleased(t *testing.T) {
	tests := []struct {
		name     string
		preMark  *stopmark.Mark // written before the first message; nil: the model writes a Remote one
		wantSent string
		released bool
	}{
		{name: "a running sub-agent is stopped at its commit", wantSent: "⏹️ Stopped. | answer 2", released: true},
		{name: "a queued task is dropped", preMark: &stopmark.Mark{MessageID: "parent:stop", Pending: true, Remote: true},
			wantSent: "answer 1", released: true},
		{name: "the session's own /stop is not released by a drop", preMark: &stopmark.Mark{MessageID: "telegram:42:9", Pending: true},
			wantSent: "", released: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			r.proc.Models["zero"] = &remoteMarkingModel{r: r}
			if tc.preMark != nil {
				mark := *tc.preMark
				mark.At = r.clock.UnixMilli()
				if err := r.store.MarkStop(context.Background(), "agent:main:main", mark); err != nil {
					t.Fatal(err)
				}
			}
			r.handle(t, msg(1, "the task"))
			r.handle(t, msg(2, "a sessions_send"))
			if got := sentTexts(r); got != tc.wantSent {
				t.Errorf("sent %q; want %q", got, tc.wantSent)
			}
			s, err := r.store.StopMark(context.Background(), "agent:main:main")
			if err != nil || s == nil {
				t.Fatalf("stop mark %+v, %v", s, err)
			}
			if got := !s.Pending; got != tc.released {
				t.Errorf("mark released = %v (%+v); want %v", got, s, tc.released)
			}
		})
	}
}
