package dynamo

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/stopmark"
	"github.com/zero-gateway/zero/shared/transcript"
	"github.com/zero-gateway/zero/shared/transcript/transcripttest"
	"github.com/zero-gateway/zero/shared/turn"
	"github.com/zero-gateway/zero/shared/turn/turntest"
)

func TestStopMark(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	key := awstest.Name("agent:main:stop:")
	if m, err := s.StopMark(ctx, key); err != nil || m != nil {
		t.Fatalf("StopMark of an unmarked key = %+v, %v; want nil", m, err)
	}
	if err := s.MarkStop(ctx, key, stopmark.Mark{MessageID: "stop-1", At: 1000, Pending: true}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		do   func() error
	}{
		{"count an aborted run", func() error { return s.CountStop(ctx, key, "stop-1", true) }},
		{"count a dropped message", func() error { return s.CountStop(ctx, key, "stop-1", false) }},
		{"count another", func() error { return s.CountStop(ctx, key, "stop-1", false) }},
		{"another /stop's count is ignored", func() error { return s.CountStop(ctx, key, "stop-0", true) }},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
	}
	counter.Reset()
	snap, err := s.Load(ctx, key, "some-message")
	if err != nil {
		t.Fatal(err)
	}
	if got := counter.String(); got != "DynamoDB.BatchGetItem=1" {
		t.Fatalf("Load made %s; the stop mark must come in the same call", got)
	}
	want := stopmark.Mark{MessageID: "stop-1", At: 1000, Pending: true, Aborted: 1, Dropped: 2}
	if snap.Stop == nil || *snap.Stop != want {
		t.Fatalf("stop in the snapshot = %+v; want %+v", snap.Stop, want)
	}
	if err := s.StopDone(ctx, key, "stop-0"); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.StopMark(ctx, key); !m.Pending {
		t.Fatal("another /stop cleared this one's mark")
	}
	if err := s.StopDone(ctx, key, "stop-1"); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.StopMark(ctx, key); m == nil || m.Pending || m.Dropped != 2 {
		t.Fatalf("after StopDone: %+v; want the counts kept and pending cleared", m)
	}
	// A new /stop replaces the mark and starts its counts afresh.
	if err := s.MarkStop(ctx, key, stopmark.Mark{MessageID: "stop-2", At: 2000, Pending: true}); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.StopMark(ctx, key); m == nil || m.MessageID != "stop-2" || m.Dropped != 0 || !m.Pending {
		t.Fatalf("after a second /stop: %+v", m)
	}
}

// slowModel blocks until its context is cancelled or delay passes.
type slowModel struct {
	delay     time.Duration
	started   chan struct{}
	cancelled chan time.Time
}

func (s *slowModel) Complete(ctx context.Context, _ model.Request) (model.Response, error) {
	s.started <- struct{}{}
	select {
	case <-ctx.Done():
		s.cancelled <- time.Now()
		return model.Response{}, fault.Wrap(fault.Unavailable, ctx.Err(), "model call")
	case <-time.After(s.delay):
		return model.Response{Text: "the answer", StopReason: model.StopEnd}, nil
	}
}

// postings records what a turn delivers.
type postings struct {
	mu   sync.Mutex
	sent []string
}

func (p *postings) Render(text string) []string { return []string{text} }

func (p *postings) Post(_ context.Context, _ session.DeliveryContext, text string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sent = append(p.sent, text)
	return nil
}

// turnOn returns a Processor on s with llm as its model and a stop poll of
// poll (0: the default).
func turnOn(s *Store, llm model.Client, out *postings, poll time.Duration) *turn.Processor {
	return &turn.Processor{
		Store: s, Runs: s.Runs(), Transcript: transcript.NewLog(transcripttest.NewMemBucket()),
		Models: map[string]model.Client{"zero": llm}, DefaultModel: model.Ref{Provider: "zero", Name: "echo"},
		Senders: map[string]turn.Sender{"telegram": out}, Now: time.Now, StopPoll: poll,
		Log: slog.New(slog.DiscardHandler),
	}
}

func chatMessage(key, id, text string) inbound.Message {
	return inbound.Message{ID: id, AgentID: "main", SessionKey: key, Channel: "telegram", ChatType: inbound.Direct,
		From: "telegram:7", To: "7", Text: text}
}

// TestTurnCalls counts the DynamoDB calls of a turn on the real store: a
// plain instant turn is one read, one commit (the run's outcome inside)
// and the record's finish, with no stop-mark read; a model call busy for
// 3.5 poll intervals adds about one GetItem per interval.
func TestTurnCalls(t *testing.T) {
	const poll = 200 * time.Millisecond
	tests := []struct {
		name  string
		delay time.Duration
		want  []string // acceptable counter.String() values
	}{
		{"instant model", 0, []string{"DynamoDB.BatchGetItem=1 DynamoDB.TransactWriteItems=1 DynamoDB.UpdateItem=1"}},
		{"model busy 3.5 poll intervals", 700 * time.Millisecond, []string{
			"DynamoDB.BatchGetItem=1 DynamoDB.GetItem=2 DynamoDB.TransactWriteItems=1 DynamoDB.UpdateItem=1",
			"DynamoDB.BatchGetItem=1 DynamoDB.GetItem=3 DynamoDB.TransactWriteItems=1 DynamoDB.UpdateItem=1",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(testClient, testTable)
			llm := &slowModel{delay: tc.delay, started: make(chan struct{}, 1), cancelled: make(chan time.Time, 1)}
			out := &postings{}
			p := turnOn(s, llm, out, poll)
			key := awstest.Name("agent:main:calls:")
			counter.Reset()
			if err := p.Handle(context.Background(), chatMessage(key, awstest.Name("calls:"), "hi"), 1); err != nil {
				t.Fatal(err)
			}
			if got := counter.String(); !slices.Contains(tc.want, got) {
				t.Errorf("calls %q; want one of %q", got, tc.want)
			}
			if len(out.sent) != 1 || out.sent[0] != "the answer" {
				t.Errorf("sent %q; want the answer", out.sent)
			}
		})
	}
}

// TestStopDuringModelCallOnDynamo: a /stop marked while the model answers
// one long call cancels it within 2 s at the default poll; the answer is
// not delivered, the run is aborted, and the /stop reports it.
func TestStopDuringModelCallOnDynamo(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	llm := &slowModel{delay: 20 * time.Second, started: make(chan struct{}, 1), cancelled: make(chan time.Time, 1)}
	out := &postings{}
	p := turnOn(s, llm, out, 0)
	key, suffix := awstest.Name("agent:main:stop:"), awstest.Suffix()
	first := chatMessage(key, "stopme:1:"+suffix, "write a long essay")
	done := make(chan error, 1)
	go func() { done <- p.Handle(ctx, first, 1) }()
	<-llm.started
	marked := time.Now()
	stop := chatMessage(key, "stopme:2:"+suffix, "/stop")
	if err := s.MarkStop(ctx, key, stopmark.Mark{MessageID: stop.ID, At: marked.UnixMilli(), Pending: true}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Handle: %v", err)
	}
	select {
	case at := <-llm.cancelled:
		if took := at.Sub(marked); took > 2*time.Second {
			t.Errorf("model call cancelled %s after the /stop; want within 2s", took)
		}
	default:
		t.Fatal("the model call was not cancelled")
	}
	if err := p.Handle(ctx, stop, 1); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(out.sent, " | "), "⏹️ Stopped. | ⏹️ Stopped 1 run(s) and dropped 0 queued message(s)."; got != want {
		t.Fatalf("sent %q\nwant %q", got, want)
	}
	rec, err := s.Runs().Get(ctx, run.NewID(first.ID))
	if err != nil || rec.Status != run.StatusAborted {
		t.Fatalf("run %+v, %v; want aborted", rec, err)
	}
}

func TestStopMarksConformance(t *testing.T) {
	turntest.TestStopMarks(t, func(t *testing.T) turntest.StopStore { return New(testClient, freshTable(t)) })
}
