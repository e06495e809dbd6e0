package turn_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/stopmark"
	"github.com/zero-gateway/zero/shared/turn"
)

// partPost is one PostPart a partSender received.
type partPost struct {
	To   session.DeliveryContext
	Part int
	Text string
}

// partSender renders one message per word and fails its failAt-th post
// (1-based) once.
type partSender struct {
	mu     sync.Mutex
	posts  []partPost
	failAt int
	calls  int
}

func (s *partSender) Render(text string) []string { return strings.Fields(text) }

func (s *partSender) Post(context.Context, session.DeliveryContext, string) error {
	panic("a PartSender gets PostPart")
}

func (s *partSender) PostPart(_ context.Context, to session.DeliveryContext, part int, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.calls == s.failAt {
		return fault.New(fault.Unavailable, "discord is down")
	}
	s.posts = append(s.posts, partPost{to, part, text})
	return nil
}

// A PartSender gets each message's index, resumes with the right one after
// a failed post, and sees the message's reply token, which the session's
// entry never keeps.
func TestPartSender(t *testing.T) {
	tests := []struct {
		name      string
		failAt    int
		wantCalls int // PostPart calls beyond the parts delivered
	}{
		{"all parts in order", 0, 0},
		{"resumes at the failed part", 2, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			s := &partSender{failAt: tc.failAt}
			r.settings.set(`{channels: {discord: {allowFrom: ["*"]}}}`)
			r.proc.Senders = map[string]turn.Sender{"discord": s}
			m := inbound.Message{
				ID: "discord:999:1", AgentID: "main", SessionKey: "agent:main:discord:channel:123",
				Channel: "discord", AccountID: "999", ChatType: inbound.Channel, From: "discord:5", To: "123",
				Text: "/queue", ReceivedAt: 1700000000000, ReplyToken: "tok",
			}
			var err error
			for attempt := 1; attempt <= 3; attempt++ {
				if err = r.proc.Handle(context.Background(), m, attempt); err == nil {
					break
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			var parts []int
			for _, p := range s.posts {
				parts = append(parts, p.Part)
				want := session.DeliveryContext{Channel: "discord", To: "123", AccountID: "999", ReplyToken: "tok", ReplyTokenAt: 1700000000000}
				if diff := cmp.Diff(want, p.To); diff != "" {
					t.Errorf("delivery (-want +got):\n%s", diff)
				}
			}
			var want []int
			for i := range parts {
				want = append(want, i)
			}
			if diff := cmp.Diff(want, parts); diff != "" || len(parts) < 3 {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
			if s.calls != len(parts)+tc.wantCalls {
				t.Errorf("PostPart calls = %d; want %d", s.calls, len(parts)+tc.wantCalls)
			}
			snap, _ := r.store.Load(context.Background(), m.SessionKey, "")
			if snap.Entry == nil || snap.Entry.DeliveryContext.ReplyToken != "" {
				t.Errorf("entry delivery = %+v; want one without the reply token", snap.Entry)
			}
		})
	}
}

// TestDeferralAlwaysClosed: a Discord interaction's deferred answer is
// completed even when the turn sends no reply of its own — NO_REPLY, a
// reply the send policy withholds — with one short notice on its handle,
// and a retry only edits it again.
func TestDeferralAlwaysClosed(t *testing.T) {
	tests := []struct {
		name   string
		config string
		answer string
		want   string
	}{
		{"NO_REPLY", `{channels: {discord: {allowFrom: ["*"]}}}`, "NO_REPLY", "✓ Done: nothing more to say."},
		{"withheld by the send policy", `{session: {sendPolicy: {default: "deny"}}, channels: {discord: {allowFrom: ["*"]}}}`, "the answer", "The reply was not sent: this chat's send policy withholds it."},
		{"a reply is sent, nothing else", `{channels: {discord: {allowFrom: ["*"]}}}`, "the answer", "the answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			s := &wholeSender{}
			r.settings.set(tc.config)
			r.proc.Senders = map[string]turn.Sender{"discord": s}
			r.proc.Models["zero"] = &scriptModel{answers: []model.Response{final(tc.answer), final(tc.answer)}}
			m := inbound.Message{
				ID: "discord:999:2", AgentID: "main", SessionKey: "agent:main:discord:channel:123",
				Channel: "discord", AccountID: "999", ChatType: inbound.Channel, From: "discord:5", To: "123",
				Text: "ask something", ReceivedAt: 1700000000000, ReplyToken: "tok",
			}
			if err := r.proc.Handle(context.Background(), m, 1); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]partPost{{To: handle(), Part: 0, Text: tc.want}}, s.posts); diff != "" {
				t.Errorf("posts on the interaction (-want +got):\n%s", diff)
			}
		})
	}
}

// wholeSender is a PartSender that renders a reply as one message.
type wholeSender struct{ partSender }

func (s *wholeSender) Render(text string) []string { return []string{text} }

func handle() session.DeliveryContext {
	return session.DeliveryContext{Channel: "discord", To: "123", AccountID: "999", ReplyToken: "tok", ReplyTokenAt: 1700000000000}
}

// TestCollectedInteractionsClosed: three /ask interactions queued behind
// each other run as one collected turn; the first gets the answer and the
// other two a notice pointing at it, so none stays "thinking…". A delivery
// that failed at the second notice resumes on retry: every handle ends up
// closed. (A retry posts part 0 of a handle again; on Discord that edits
// @original in place, so the user sees each message once.)
func TestCollectedInteractionsClosed(t *testing.T) {
	tests := []struct {
		name   string
		failAt int // the sender's post that fails once (0: none)
	}{
		{"delivered at once", 0},
		{"a notice fails once, the retry resumes", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			s := &wholeSender{partSender{failAt: tc.failAt}}
			r.settings.set(`{channels: {discord: {allowFrom: ["*"]}}}`)
			r.proc.Senders = map[string]turn.Sender{"discord": s}
			r.proc.Models["zero"] = &scriptModel{answers: []model.Response{final("the answer"), final("the answer")}}
			var msgs []inbound.Message
			for i, tok := range []string{"tok1", "tok2", "tok3"} {
				msgs = append(msgs, inbound.Message{
					ID: fmt.Sprintf("discord:999:%d", i+2), AgentID: "main", SessionKey: "agent:main:discord:channel:123",
					Channel: "discord", AccountID: "999", ChatType: inbound.Channel, From: "discord:5", To: "123",
					Text: fmt.Sprintf("question %d", i+1), ReceivedAt: 1700000000000 + int64(i), ReplyToken: tok,
				})
			}
			done, err := r.proc.HandleGroup(context.Background(), msgs, []int{1, 1, 1})
			if tc.failAt > 0 {
				if err == nil {
					t.Fatalf("HandleGroup = %d, nil; want the failed post's error", done)
				}
				done, err = r.proc.HandleGroup(context.Background(), msgs[done:], []int{2, 2, 2}[done:])
			}
			if err != nil {
				t.Fatal(err)
			}
			want := []partPost{
				{To: collectedHandle("tok1", 0), Part: 0, Text: "the answer"},
				{To: collectedHandle("tok2", 1), Part: 0, Text: "↑ Answered together with the earlier message it was queued behind."},
				{To: collectedHandle("tok3", 2), Part: 0, Text: "↑ Answered together with the earlier message it was queued behind."},
			}
			if diff := cmp.Diff(want, dedupePosts(s.posts)); diff != "" {
				t.Errorf("posts on the interactions (-want +got):\n%s", diff)
			}
		})
	}
}

func collectedHandle(token string, i int) session.DeliveryContext {
	return session.DeliveryContext{Channel: "discord", To: "123", AccountID: "999", ReplyToken: token, ReplyTokenAt: 1700000000000 + int64(i)}
}

// dedupePosts drops a post repeated on the same handle and part (a notice
// edited in place again on retry is the same visible message).
func dedupePosts(posts []partPost) []partPost {
	var out []partPost
	for _, p := range posts {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// TestStoppedAskClosed: an /ask queued behind a run that /stop stopped is
// dropped, and its interaction says so instead of "thinking…".
func TestStoppedAskClosed(t *testing.T) {
	r := newRig()
	s := &wholeSender{}
	r.settings.set(`{channels: {discord: {allowFrom: ["*"]}}}`)
	r.proc.Senders = map[string]turn.Sender{"discord": s}
	r.proc.Models["zero"] = &scriptModel{answers: []model.Response{final("never asked")}}
	const key = "agent:main:discord:channel:123"
	if err := r.store.MarkStop(context.Background(), key, stopmark.Mark{MessageID: "discord:999:9", At: r.clock.UnixMilli(), Pending: true}); err != nil {
		t.Fatal(err)
	}
	m := inbound.Message{
		ID: "discord:999:2", AgentID: "main", SessionKey: key,
		Channel: "discord", AccountID: "999", ChatType: inbound.Channel, From: "discord:5", To: "123",
		Text: "ask something", ReceivedAt: 1700000000000, ReplyToken: "tok",
	}
	if err := r.proc.Handle(context.Background(), m, 1); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]partPost{{To: handle(), Part: 0, Text: "⏹️ Stopped before it ran (/stop)."}}, s.posts); diff != "" {
		t.Errorf("posts on the interaction (-want +got):\n%s", diff)
	}
}
