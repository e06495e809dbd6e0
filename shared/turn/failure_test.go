package turn_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/turn"
)

func TestFailedTellsTheSenderOnceOnTheLastAttempt(t *testing.T) {
	cause := errors.New("model unavailable")
	tests := []struct {
		name      string
		calls     []bool // last, per call of Failed (a retry each)
		attempts  []int  // the receive count of each call; nil: 1, 2, 3...
		channel   string
		wantSent  int
		wantTold  bool
		wantTries int
	}{
		{"earlier attempts are recorded, nothing is sent", []bool{false, false}, nil, "telegram", 0, false, 2},
		{"the last attempt sends the notice", []bool{false, false, true}, nil, "telegram", 1, true, 3},
		{"a replayed last attempt sends nothing more", []bool{true, true, true}, nil, "telegram", 1, true, 3},
		{"redriven, failing for good again: told again", []bool{false, true, false, true}, []int{1, 2, 1, 2}, "telegram", 2, true, 2},
		{"redriven, failing once: not told again yet", []bool{false, true, false}, []int{1, 2, 1}, "telegram", 1, false, 1},
		{"an API run has no one to tell", []bool{true}, nil, inbound.Internal, 0, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.proc.Store = r.store // the failure records are a MemStore capability
			m := msg(1, "hello")
			m.Channel = tt.channel
			if tt.channel == inbound.Internal {
				m.To = ""
			}
			for i, last := range tt.calls {
				attempt := i + 1
				if tt.attempts != nil {
					attempt = tt.attempts[i]
				}
				r.proc.Failed(context.Background(), []inbound.Message{m}, []int{attempt}, last, cause)
			}
			var texts []string
			for _, s := range r.sender.Sent {
				texts = append(texts, s.Text)
				if s.To.To != m.To || s.To.ThreadID != m.ThreadID {
					t.Errorf("notice sent to %+v; want the message's chat %q", s.To, m.To)
				}
			}
			var want []string
			for range tt.wantSent {
				want = append(want, turn.FailureNotice)
			}
			if diff := cmp.Diff(want, texts); diff != "" {
				t.Errorf("sent (-want +got):\n%s", diff)
			}
			f, ok := r.store.FailureOf(m.ID)
			if !ok || f.Attempt != tt.wantTries || f.Reason != cause.Error() || f.SessionKey != m.SessionKey {
				t.Errorf("failure record %+v (found %v); want attempt %d, reason %q", f, ok, tt.wantTries, cause)
			}
			if f.Told != tt.wantTold && tt.channel != inbound.Internal {
				t.Errorf("told = %v; want %v", f.Told, tt.wantTold)
			}
		})
	}
}

func TestFailedNoticeRetriedWhenTheChannelFails(t *testing.T) {
	r := newRig()
	r.proc.Store = r.store
	r.sender.FailFor = 1
	m := msg(1, "hello")
	r.proc.Failed(context.Background(), []inbound.Message{m}, []int{5}, true, errors.New("boom"))
	if f, _ := r.store.FailureOf(m.ID); f.Told || len(r.sender.Sent) != 0 {
		t.Fatalf("told %v, sent %d; want a failed notice left untold", f.Told, len(r.sender.Sent))
	}
	// A redriven message that fails again on its last attempt tries again.
	r.proc.Failed(context.Background(), []inbound.Message{m}, []int{5}, true, errors.New("boom"))
	if f, _ := r.store.FailureOf(m.ID); !f.Told || len(r.sender.Sent) != 1 {
		t.Fatalf("told %v, sent %d; want the notice sent once", f.Told, len(r.sender.Sent))
	}
}
