package turn_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/chataction"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools/messaging"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
	"github.com/zero-gateway/zero/shared/turn"
)

// blockConfig turns block streaming on with small blocks.
const blockConfig = `{channels: {telegram: {allowFrom: ["*"], owners: ["7"]}},
  agents: {defaults: {blockStreamingDefault: "on", blockStreamingChunk: {minChars: 20, maxChars: 60, breakPreference: "paragraph"}}}}`

// longAnswer is an answer of several blocks, streamed word by word.
func longAnswer() []string {
	text := "The forecast for Paris says sun all week.\n\n" +
		"Mornings stay cool, around twelve degrees, with a light breeze from the west.\n\n" +
		"Afternoons climb to twenty-two degrees; no rain is expected before Sunday evening.\n\n" +
		"Enjoy the terraces."
	return strings.SplitAfter(text, " ")
}

// words is text as its words, for comparing what a chat got (blocks are
// trimmed, the reply step renders) with the answer.
func words(text string) []string { return strings.Fields(text) }

// sentWords is every word the chat got, in order.
func sentWords(r *rig) []string {
	var all []string
	for _, s := range r.sender.Sent {
		all = append(all, words(s.Text)...)
	}
	return all
}

// TestBlockReplies: with block streaming on, a long answer reaches the
// chat in blocks while the model still writes it; a crash mid-answer or
// before the commit repeats no block and loses no word; the silent token
// never leaks, not even in part.
func TestBlockReplies(t *testing.T) {
	answer := longAnswer()
	whole := strings.Join(answer, "")
	tests := []struct {
		name      string
		failAfter int // the first stream breaks after this many deltas
		crash     bool
	}{
		{name: "blocks go out while the model writes"},
		{name: "a stream broken mid-answer is retried without repeating a block", failAfter: 30},
		{name: "a crash before the commit repeats no block", crash: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(blockConfig)
			r.useRuns()
			var early int
			llm := &streamModel{pieces: answer, probeAt: 25, probe: func() { early = len(r.sender.Sent) }, failFirstAfter: tc.failAfter}
			r.proc.Models["zero"] = llm
			if tc.crash {
				r.crash.CommitBefore = 1
			}
			m := msg(1, "weather?")
			err := r.proc.Handle(context.Background(), m, 1)
			if tc.failAfter > 0 || tc.crash {
				if err == nil {
					t.Fatal("the first attempt succeeded; want it to fail")
				}
				if len(r.sender.Sent) == 0 {
					t.Fatal("no block went out before the failure: the case tests nothing")
				}
				err = r.proc.Handle(context.Background(), m, 2)
			}
			if err != nil {
				t.Fatal(err)
			}
			if early == 0 {
				t.Errorf("no block went out while the model was writing")
			}
			if len(r.sender.Sent) < 3 {
				t.Errorf("the chat got %d messages, want the answer in blocks", len(r.sender.Sent))
			}
			if diff := cmp.Diff(words(whole), sentWords(r)); diff != "" {
				t.Errorf("the chat's words (-answer +sent):\n%s", diff)
			}
		})
	}

	t.Run("the silent token never leaks", func(t *testing.T) {
		r := newRig()
		r.settings.set(`{channels: {telegram: {allowFrom: ["*"]}}, agents: {defaults: {blockStreamingDefault: "on", blockStreamingChunk: {minChars: 1, maxChars: 3}}}}`)
		r.useRuns()
		r.proc.Models["zero"] = &streamModel{pieces: []string{"NO", "_R", "EP", "LY"}}
		if err := r.proc.Handle(context.Background(), msg(1, "psst"), 1); err != nil {
			t.Fatal(err)
		}
		if len(r.sender.Sent) != 0 {
			t.Errorf("the chat got %+v for a silent answer", r.sender.Sent)
		}
	})

	t.Run("off: one reply at the end", func(t *testing.T) {
		r := newRig()
		r.useRuns()
		r.proc.Models["zero"] = &streamModel{pieces: answer}
		if err := r.proc.Handle(context.Background(), msg(1, "weather?"), 1); err != nil {
			t.Fatal(err)
		}
		if len(r.sender.Sent) != 1 || r.sender.Sent[0].Text != strings.TrimSpace(whole) {
			t.Errorf("the chat got %+v, want the answer once", r.sender.Sent)
		}
	})
}

var _ model.Streamer = (*streamModel)(nil)

// toolStreamModel streams its scripted answers in order, word by word.
type toolStreamModel struct {
	mu    sync.Mutex
	steps []model.Response
	n     int
}

func (s *toolStreamModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	return s.Stream(ctx, req, nil)
}

func (s *toolStreamModel) Stream(_ context.Context, _ model.Request, sink model.TextSink) (model.Response, error) {
	s.mu.Lock()
	resp := s.steps[min(s.n, len(s.steps)-1)]
	s.n++
	s.mu.Unlock()
	for _, w := range strings.SplitAfter(resp.Text, " ") {
		if sink != nil && w != "" {
			sink(w)
		}
	}
	return resp, nil
}

// TestBlockRepliesOnDiscord: blocks and the reply's rest number their
// parts on (the first edits the deferred response, the others follow up),
// all with the message's reply token, and no deferral notice overwrites
// the first block.
func TestBlockRepliesOnDiscord(t *testing.T) {
	r := newRig()
	s := &partSender{}
	r.settings.set(`{channels: {discord: {allowFrom: ["*"]}},
	  agents: {defaults: {blockStreamingDefault: "on", blockStreamingChunk: {minChars: 20, maxChars: 60}}}}`)
	r.useRuns()
	r.proc.Senders = map[string]turn.Sender{"discord": s}
	r.proc.Models["zero"] = &streamModel{pieces: longAnswer()}
	m := inbound.Message{
		ID: "discord:999:1", AgentID: "main", SessionKey: "agent:main:discord:channel:123",
		Channel: "discord", AccountID: "999", ChatType: inbound.Channel, From: "discord:5", To: "123",
		Text: "weather?", ReceivedAt: 1700000000000, ReplyToken: "tok",
	}
	if err := r.proc.Handle(context.Background(), m, 1); err != nil {
		t.Fatal(err)
	}
	var parts []int
	var got []string
	for i, p := range s.posts {
		parts = append(parts, p.Part)
		got = append(got, p.Text)
		if p.Part != i || p.To.ReplyToken != "tok" {
			t.Errorf("post %d: part %d, reply token %q; want part %d with the message's token", i, p.Part, p.To.ReplyToken, i)
		}
	}
	if diff := cmp.Diff(words(strings.Join(longAnswer(), "")), got); diff != "" {
		t.Errorf("the chat's words, one message each (-answer +sent):\n%s", diff)
	}
}

// TestBlockRepliesHoldAMessageToolRepeat: text the message tool already
// sent to this chat is not streamed again as blocks (duplicate
// suppression drops it from the reply), while the text before the tool
// call goes out by the break rule: as blocks complete (text_end) or at
// the call (message_end).
func TestBlockRepliesHoldAMessageToolRepeat(t *testing.T) {
	for _, brk := range []string{"text_end", "message_end"} {
		t.Run(brk, func(t *testing.T) {
			r := newRig()
			r.settings.set(`{channels: {telegram: {allowFrom: ["*"], owners: ["7"]}},
			  agents: {defaults: {blockStreamingDefault: "on", blockStreamingBreak: "` + brk + `", blockStreamingChunk: {minChars: 5, maxChars: 20}}}}`)
			r.useRuns()
			r.proc.Tools.Messengers = map[string]messaging.Messenger{"telegram": &tooltest.Messenger{Res: chataction.Result{Did: "ok", MessageIDs: []string{"1"}}}}
			said := "Your parcel left the depot this morning."
			args, _ := json.Marshal(map[string]string{"action": "send", "text": said})
			r.proc.Models["zero"] = &toolStreamModel{steps: []model.Response{
				{Text: "Let me tell you right away.", StopReason: model.StopToolUse,
					ToolCalls: []model.ToolCall{{ID: "c1", Name: messaging.Name, Arguments: string(args)}}},
				{Text: said, StopReason: model.StopEnd},
			}}
			if err := r.proc.Handle(context.Background(), msg(1, "where is my parcel?"), 1); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range r.sender.Sent {
				got = append(got, s.Text)
			}
			want := []string{"Let me tell you", "right away."} // the reply repeats the tool's text: neither blocks nor the reply
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the chat got (-want +got):\n%s", diff)
			}
		})
	}
}
