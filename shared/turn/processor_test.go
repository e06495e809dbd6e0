package turn_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/delivery/deliverytest"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/transcript"
	"github.com/zero-gateway/zero/shared/transcript/transcripttest"
	"github.com/zero-gateway/zero/shared/turn"
	"github.com/zero-gateway/zero/shared/turn/turntest"
)

// countingModel answers like the echo model and counts calls.
type countingModel struct {
	mu    sync.Mutex
	calls int
	seen  [][]model.Message
	err   error
}

func (m *countingModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	m.seen = append(m.seen, req.Messages)
	if m.err != nil {
		return model.Response{}, m.err
	}
	// A different answer per call shows which call's answer was kept.
	resp, _ := model.Echo{}.Complete(ctx, req)
	resp.Text = fmt.Sprintf("%s (call %d)", resp.Text, m.calls)
	return resp, nil
}

type rig struct {
	store    *turntest.MemStore
	bucket   *transcripttest.MemBucket
	model    *countingModel
	sender   *deliverytest.Sender
	proc     *turn.Processor
	crash    *turntest.CrashStore
	settings *settings
	clock    time.Time
	caller   string // callTool's session key; "" is msg's
}

// rigConfig is the rig's zero.json: Telegram user 7 is the owner.
const rigConfig = `{channels: {telegram: {allowFrom: ["*"], owners: ["7"]}}}`

func newRig() *rig {
	r := &rig{store: turntest.NewMemStore(), bucket: transcripttest.NewMemBucket(), model: &countingModel{}, sender: &deliverytest.Sender{}}
	r.crash = &turntest.CrashStore{Store: r.store}
	r.settings = &settings{}
	r.settings.set(rigConfig)
	r.clock = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	r.proc = &turn.Processor{
		Store: r.crash, Transcript: transcript.NewLog(r.bucket),
		Models:       map[string]model.Client{"zero": r.model},
		DefaultModel: model.Ref{Provider: "zero", Name: "echo"},
		Senders:      map[string]turn.Sender{"telegram": r.sender},
		Settings:     r.settings,
		Now:          func() time.Time { r.clock = r.clock.Add(time.Second); return r.clock },
	}
	return r
}

// settings serves a config the test can swap.
type settings struct {
	mu  sync.Mutex
	cfg *config.Config
}

func (s *settings) set(doc string) {
	cfg, err := config.Parse([]byte(doc))
	if err != nil {
		panic(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg = cfg
}

func (s *settings) Current(context.Context) (*config.Config, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg, nil
}

func msg(update int, text string) inbound.Message {
	return inbound.Message{
		ID: fmt.Sprintf("telegram:42:%d", update), AgentID: "main", SessionKey: "agent:main:main",
		Channel: "telegram", ChatType: inbound.Direct, From: "telegram:7", To: "7", Text: text, SenderName: "Ana",
	}
}

// transcriptLines returns the message lines of the session's transcript.
func (r *rig) transcriptLines(t *testing.T) []transcript.Line {
	t.Helper()
	snap, _ := r.store.Load(context.Background(), "agent:main:main", "")
	if snap.Entry == nil {
		t.Fatal("no session entry")
	}
	stream, err := transcript.NewLog(r.bucket).Read(context.Background(), transcript.Path("main", snap.Entry.SessionID, ""))
	if err != nil {
		t.Fatal(err)
	}
	return transcript.Lines(stream)
}

func TestHandleRetriesAfterCrash(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(r *rig)
		attempts  int // deliveries until success
		wantCalls int // model calls in total
		wantSends int
	}{
		{"no crash", func(*rig) {}, 1, 1, 1},
		{"crash before commit (part written)", func(r *rig) { r.crash.CommitBefore = 1 }, 2, 1, 1},
		{"crash after commit before send", func(r *rig) { r.crash.CommitAfter = 1 }, 2, 1, 1},
		{"send fails", func(r *rig) { r.sender.FailFor = 1 }, 2, 1, 1},
		{"send fails twice", func(r *rig) { r.sender.FailFor = 2 }, 3, 1, 1},
		// The documented window: the send went out, the record did not
		// say so. The retry sends the reply again, nothing else repeats.
		{"crash after send before finish", func(r *rig) { r.crash.FinishBefore = 1 }, 2, 1, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			tc.setup(r)
			m := msg(1, "hello")
			var err error
			attempt := 0
			for attempt = 1; attempt <= 5; attempt++ {
				if err = r.proc.Handle(context.Background(), m, attempt); err == nil {
					break
				}
			}
			if err != nil || attempt != tc.attempts {
				t.Fatalf("succeeded on attempt %d (err %v); want attempt %d", attempt, err, tc.attempts)
			}
			// A late redelivery after success changes nothing.
			if err := r.proc.Handle(context.Background(), m, attempt+1); err != nil {
				t.Fatalf("redelivery: %v", err)
			}
			if r.model.calls != tc.wantCalls {
				t.Errorf("model calls = %d; want %d", r.model.calls, tc.wantCalls)
			}
			if len(r.sender.Sent) != tc.wantSends {
				t.Errorf("sends = %d; want %d", len(r.sender.Sent), tc.wantSends)
			}
			for _, s := range r.sender.Sent {
				if s.Text != "echo: hello (call 1)" || s.To.To != "7" || s.To.Channel != "telegram" {
					t.Errorf("sent %+v; want the first model answer to chat 7", s)
				}
			}
			lines := r.transcriptLines(t)
			if len(lines) != 2 || lines[0].Message.Role != "user" || lines[1].Message.Text() != "echo: hello (call 1)" {
				t.Fatalf("transcript lines = %+v; want one user and one assistant line", lines)
			}
		})
	}
}

func TestHandleConversation(t *testing.T) {
	r := newRig()
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		if err := r.proc.Handle(ctx, msg(i, fmt.Sprintf("m%d", i)), 1); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	// The model saw the history of earlier turns.
	if got := len(r.model.seen[2]); got != 5 {
		t.Fatalf("third call saw %d messages; want 5 (2 turns of history + the new one)", got)
	}
	snap, _ := r.store.Load(ctx, "agent:main:main", "")
	e := snap.Entry
	// input/outputTokens add up over the session; totalTokens is the
	// context the last turn left (smaller than the sum after 3 turns).
	if e.TranscriptSeq != 3 || e.Version != 3 || e.TotalTokens == 0 || e.InputTokens+e.OutputTokens <= e.TotalTokens || e.Model != "echo" || e.ModelProvider != "zero" {
		t.Fatalf("entry = %+v; want seq 3, version 3, summed input/output and the last context in totalTokens", e)
	}
	if e.DeliveryContext.To != "7" || e.LastTo != "7" || e.LastChannel != "telegram" || e.Origin.Provider != "telegram" || e.Origin.Label != "Ana" {
		t.Fatalf("routing metadata = %+v", e)
	}
	lines := r.transcriptLines(t)
	if len(lines) != 6 {
		t.Fatalf("transcript has %d lines; want 6", len(lines))
	}
	for i := 1; i < len(lines); i++ {
		if lines[i].ParentID == nil || *lines[i].ParentID != lines[i-1].ID {
			t.Fatalf("line %d parentId = %v; want %s (a chain)", i, lines[i].ParentID, lines[i-1].ID)
		}
	}
	stream, _ := transcript.NewLog(r.bucket).Read(ctx, transcript.Path("main", e.SessionID, ""))
	if !strings.HasPrefix(string(stream), `{"type":"session","version":3,"id":"`+e.SessionID) {
		t.Fatalf("transcript does not start with its header: %.80s", stream)
	}
}

func TestHandleDuplicateLaterIsSkipped(t *testing.T) {
	r := newRig()
	ctx := context.Background()
	for _, m := range []inbound.Message{msg(1, "a"), msg(2, "b"), msg(3, "c"), msg(1, "a")} {
		if err := r.proc.Handle(ctx, m, 1); err != nil {
			t.Fatal(err)
		}
	}
	if r.model.calls != 3 || len(r.sender.Sent) != 3 {
		t.Fatalf("model calls %d, sends %d; want 3 and 3 (the replay of update 1 is skipped)", r.model.calls, len(r.sender.Sent))
	}
}

func TestHandleRebuildsContextFromTranscript(t *testing.T) {
	r := newRig()
	ctx := context.Background()
	if err := r.proc.Handle(ctx, msg(1, "remember me"), 1); err != nil {
		t.Fatal(err)
	}
	// Lose the context cache but keep the entry: simulate with a store
	// whose Load hides the context.
	r.proc.Store = hideContext{r.crash}
	if err := r.proc.Handle(ctx, msg(2, "again"), 1); err != nil {
		t.Fatal(err)
	}
	got := r.model.seen[1]
	if len(got) != 3 || got[0].Content != "remember me" || got[1].Role != model.Assistant {
		t.Fatalf("model saw %+v; want the history rebuilt from the transcript", got)
	}
}

type hideContext struct{ turn.Store }

func (h hideContext) Load(ctx context.Context, key, id string) (sessionstate.Snapshot, error) {
	snap, err := h.Store.Load(ctx, key, id)
	snap.Context = nil
	return snap, err
}

func TestHandleDeletedSessionStartsFresh(t *testing.T) {
	r := newRig()
	ctx := context.Background()
	if err := r.proc.Handle(ctx, msg(1, "one"), 1); err != nil {
		t.Fatal(err)
	}
	snap, _ := r.store.Load(ctx, "agent:main:main", "")
	first := snap.Entry.SessionID
	r.store.DeleteSession("agent:main:main")
	if err := r.proc.Handle(ctx, msg(2, "two"), 1); err != nil {
		t.Fatal(err)
	}
	snap, _ = r.store.Load(ctx, "agent:main:main", "")
	if snap.Entry.SessionID == first || snap.Entry.TranscriptSeq != 1 {
		t.Fatalf("entry after delete = %+v; want a new session at seq 1", snap.Entry)
	}
}

func TestHandleModelErrors(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		wantRetry bool
		wantReply string
	}{
		{"rate limited is retried", fault.New(fault.RateLimited, "slow down"), true, ""},
		{"unavailable is retried", fault.New(fault.Unavailable, "503"), true, ""},
		{"bad key ends the run with a clean message", fault.Wrap(fault.Unauthorized, errors.New("401 sk-secret"), "the model provider rejected the API key"), false, "⚠️ The model could not answer: the model provider rejected the API key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			r.model.err = tc.err
			err := r.proc.Handle(context.Background(), msg(1, "hi"), 1)
			if (err != nil) != tc.wantRetry {
				t.Fatalf("Handle = %v; want retry %v", err, tc.wantRetry)
			}
			if tc.wantRetry {
				if len(r.sender.Sent) != 0 {
					t.Fatalf("sent %v before the model answered", r.sender.Sent)
				}
				return
			}
			if len(r.sender.Sent) != 1 || r.sender.Sent[0].Text != tc.wantReply {
				t.Fatalf("sent %+v; want %q", r.sender.Sent, tc.wantReply)
			}
			if strings.Contains(r.sender.Sent[0].Text, "sk-secret") {
				t.Fatal("the provider's raw error reached the user")
			}
		})
	}
}

func TestHandleRejectsInvalidMessage(t *testing.T) {
	r := newRig()
	m := msg(1, "x")
	m.SessionKey = ""
	if err := r.proc.Handle(context.Background(), m, 1); !fault.Is(err, fault.Invalid) {
		t.Fatalf("Handle = %v; want fault.Invalid", err)
	}
	if r.store.Calls != 0 {
		t.Fatalf("an invalid message touched the store (%d calls)", r.store.Calls)
	}
}

func TestHandleTopicTranscriptPath(t *testing.T) {
	r := newRig()
	m := msg(1, "in a topic")
	m.ChatType, m.SessionKey, m.To, m.ThreadID = inbound.Group, "agent:main:telegram:group:-100:topic:5", "-100", "5"
	if err := r.proc.Handle(context.Background(), m, 1); err != nil {
		t.Fatal(err)
	}
	snap, _ := r.store.Load(context.Background(), m.SessionKey, "")
	keys, _ := r.bucket.List(context.Background(), "agents/main/sessions/")
	want := transcript.PartKey(transcript.Path("main", snap.Entry.SessionID, "5"), 1)
	if len(keys) != 1 || keys[0] != want || !strings.Contains(want, "-topic-5.jsonl") {
		t.Fatalf("keys = %v; want [%s]", keys, want)
	}
	if r.sender.Sent[0].To.ThreadID != "5" {
		t.Fatalf("reply went to thread %q; want 5", r.sender.Sent[0].To.ThreadID)
	}
}

func TestHandleLongReplyResumes(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(r *rig)
		wantPost []string
	}{
		{"all messages once", func(*rig) {}, []string{"echo:", "hello", "there", "(call", "1)"}},
		{"post of the third fails: retry resumes at the third", func(r *rig) { r.sender.FailAt = 3 }, []string{"echo:", "hello", "there", "(call", "1)"}},
		// Crash after a message went out but its progress write was lost:
		// that one message is sent again, nothing else.
		{"crash after recording progress is harmless", func(r *rig) { r.crash.ProgressAfter = 1 }, []string{"echo:", "hello", "there", "(call", "1)"}},
		{"crash before recording progress repeats that one message", func(r *rig) { r.crash.ProgressBefore = 1 }, []string{"echo:", "echo:", "hello", "there", "(call", "1)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			r.sender.Words = true
			tc.setup(r)
			m := msg(1, "hello there")
			var err error
			for attempt := 1; attempt <= 3; attempt++ {
				if err = r.proc.Handle(context.Background(), m, attempt); err == nil {
					break
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range r.sender.Sent {
				got = append(got, s.Text)
			}
			if strings.Join(got, "|") != strings.Join(tc.wantPost, "|") || r.model.calls != 1 {
				t.Fatalf("posted %q with %d model calls; want %q once with 1", got, r.model.calls, tc.wantPost)
			}
		})
	}
}

func TestHandleUndeliverableReplyDoesNotBlockTheSession(t *testing.T) {
	r := newRig()
	r.sender.Refuse = fault.New(fault.NotFound, "Forbidden: bot was blocked by the user")
	ctx := context.Background()
	if err := r.proc.Handle(ctx, msg(1, "hello"), 1); err != nil {
		t.Fatalf("Handle = %v; want nil: a refused reply must not hold the queue group", err)
	}
	snap, _ := r.store.Load(ctx, "agent:main:main", "telegram:42:1")
	if snap.Receipt == nil || snap.Receipt.State != receipt.Done {
		t.Fatalf("record = %+v; want done", snap.Receipt)
	}
	if lines := r.transcriptLines(t); len(lines) != 2 {
		t.Fatalf("transcript has %d lines; want the turn kept", len(lines))
	}
	// The next message of the session still runs.
	r.sender.Refuse = nil
	if err := r.proc.Handle(ctx, msg(2, "again"), 1); err != nil || len(r.sender.Sent) != 1 {
		t.Fatalf("next turn: err %v, sent %d; want it delivered", err, len(r.sender.Sent))
	}
}

func TestHandleBadChannelCredentialsAreRetried(t *testing.T) {
	r := newRig()
	r.sender.Refuse = fault.New(fault.Unauthorized, "401 Unauthorized")
	if err := r.proc.Handle(context.Background(), msg(1, "hello"), 1); !fault.Is(err, fault.Unauthorized) {
		t.Fatalf("Handle = %v; want the error returned, so the message is retried and redriven once the token is fixed", err)
	}
	r.sender.Refuse = nil
	if err := r.proc.Handle(context.Background(), msg(1, "hello"), 2); err != nil || len(r.sender.Sent) != 1 || r.model.calls != 1 {
		t.Fatalf("after the fix: err %v, sent %d, model calls %d; want one delivery and no second model call", err, len(r.sender.Sent), r.model.calls)
	}
}
