package turn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/run/runtest"
	"github.com/zero-gateway/zero/shared/turn"
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
		s.r.store.MarkStop(ctx, "agent:main:main", turn.Stop{MessageID: "telegram:42:9", At: s.r.clock.UnixMilli(), Pending: true})
		return statusCall(), nil
	}
	return final("too late"), nil
}

func TestStopCommand(t *testing.T) {
	r := newRig()
	runs := runtest.NewMemStore()
	r.proc.Runs = runs
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
	for _, s := range r.sender.sent {
		sent = append(sent, s.text)
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
