package turn_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/steer"
	"github.com/zero-gateway/zero/shared/turn/turntest"
)

// steeringModel asks for a tool on its first call, and meanwhile a
// message reaches the door (recorded for steering, as the door does for a
// steer-mode session); its second call answers. It keeps every request.
type steeringModel struct {
	store *turntest.MemStore
	fail  error // the second call's answer, when set: the run fails
	mu    sync.Mutex
	seen  []model.Request
}

func (m *steeringModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen = append(m.seen, req)
	if len(m.seen) == 1 {
		_ = m.store.RecordSteer(ctx, "agent:main:main", steer.Pending{MessageID: "telegram:42:2", Text: "and in French, please"})
		return statusCall(), nil
	}
	if m.fail != nil && len(m.seen) == 2 {
		return model.Response{}, m.fail
	}
	return final("d'accord"), nil
}

// userTexts are the user messages of req after its first.
func userTexts(req model.Request) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == model.User {
			out = append(out, m.Content)
		}
	}
	return out[1:]
}

// TestSteer: in queue mode steer, a message that arrives while a tool runs
// reaches the same run's next model call, after the tool's result; the
// turn's commit records it done, so its own queued copy is a duplicate
// (no second model call, no second reply), also when the commit crashed
// once and the retry adopted the recorded run. In collect mode the same
// message waits for its own turn.
func TestSteer(t *testing.T) {
	const steerMode = `{messages: {queue: {mode: "steer"}}, channels: {telegram: {allowFrom: ["*"], owners: ["7"]}}}`
	for _, tc := range []struct {
		name       string
		config     string
		crash      bool
		wantSecond []string // the second model call's user messages after the prompt
		wantCalls  int      // model calls in all, the queued copy handled
	}{
		{name: "steer", config: steerMode, wantSecond: []string{"and in French, please"}, wantCalls: 2},
		{name: "steer, the first commit crashed", config: steerMode, crash: true, wantSecond: []string{"and in French, please"}, wantCalls: 2},
		{name: "collect waits for its own turn", config: rigConfig, wantSecond: nil, wantCalls: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(tc.config)
			llm := &steeringModel{store: r.store}
			r.proc.Models["zero"] = llm
			first := msg(1, "what is the weather?")
			if tc.crash {
				r.crash.CommitBefore = 1
				if err := r.proc.Handle(context.Background(), first, 1); err == nil {
					t.Fatal("the crashing commit did not fail")
				}
				if err := r.proc.Handle(context.Background(), first, 2); err != nil {
					t.Fatalf("retry: %v", err)
				}
			} else {
				r.handle(t, first)
			}
			if diff := cmp.Diff(tc.wantSecond, userTexts(llm.seen[1]), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("the run's second model call, user messages after the prompt (-want +got):\n%s", diff)
			}
			// The steered message's own queue record arrives after the turn.
			r.handle(t, msg(2, "and in French, please"))
			if len(llm.seen) != tc.wantCalls {
				t.Errorf("%d model calls, want %d", len(llm.seen), tc.wantCalls)
			}
			var sent []string
			for _, s := range r.sender.Sent {
				sent = append(sent, s.Text)
			}
			if tc.wantSecond != nil && strings.Join(sent, "|") != "d'accord" {
				t.Errorf("replies %q, want one", sent)
			}
			if pending, _ := r.store.PendingSteer(context.Background(), "agent:main:main"); tc.wantSecond != nil && len(pending) != 0 {
				t.Errorf("pending steer records left after the turn: %+v", pending)
			}
		})
	}
}

// TestSteerFailedRun: a run that fails after taking a steer message keeps
// none of it (the failure notice is its answer), so the message is not
// recorded done with it and runs as its own turn: nothing is lost.
func TestSteerFailedRun(t *testing.T) {
	r := newRig()
	r.settings.set(`{messages: {queue: {mode: "steer"}}, channels: {telegram: {allowFrom: ["*"], owners: ["7"]}}}`)
	llm := &steeringModel{store: r.store, fail: fault.New(fault.Invalid, "the model refused the request")}
	r.proc.Models["zero"] = llm
	r.handle(t, msg(1, "what is the weather?"))
	r.handle(t, msg(2, "and in French, please"))
	if len(llm.seen) != 3 {
		t.Fatalf("%d model calls, want 3: the failed run's two, then the steered message's own turn", len(llm.seen))
	}
	if got := userTexts(llm.seen[2]); len(got) == 0 || got[len(got)-1] != "and in French, please" {
		t.Errorf("the third call's user messages %q; want the steered message as its own prompt", got)
	}
	var sent []string
	for _, s := range r.sender.Sent {
		sent = append(sent, s.Text)
	}
	if len(sent) != 2 || !strings.HasPrefix(sent[0], "⚠️") || sent[1] != "d'accord" {
		t.Errorf("replies %q; want the failure notice, then the own turn's answer", sent)
	}
}
