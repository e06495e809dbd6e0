package devstack

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/telegram/telegramtest"
)

// streamRequest checks a fake model's request: a Chat Completions call
// with the test key that asks for a stream. It answers a 400 and reports
// false otherwise; else it returns the request's model.
func streamRequest(t *testing.T, w http.ResponseWriter, r *http.Request) (string, bool) {
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+a2aModelKey || json.NewDecoder(r.Body).Decode(&req) != nil || !req.Stream {
		t.Errorf("streaming model: unexpected request %s %s (a stream must be asked for)", r.Method, r.URL.Path)
		http.Error(w, `{"error":{"message":"unexpected request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return "", false
	}
	return req.Model, true
}

// chatStream writes a Chat Completions stream: server-sent chunks, each
// flushed as it is written.
type chatStream struct {
	w     http.ResponseWriter
	model string
}

// openChatStream starts the stream with the assistant's empty first delta.
func openChatStream(w http.ResponseWriter, model string) chatStream {
	w.Header().Set("Content-Type", "text/event-stream")
	s := chatStream{w: w, model: model}
	s.delta(map[string]any{"role": "assistant", "content": ""}, nil)
	return s
}

func (s chatStream) chunk(choices []any, usage any) {
	body, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": s.model, "choices": choices, "usage": usage})
	fmt.Fprintf(s.w, "data: %s\n\n", body)
	s.w.(http.Flusher).Flush()
}

func (s chatStream) delta(d map[string]any, finish any) {
	s.chunk([]any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}, nil)
}

// content streams one piece of the answer's text.
func (s chatStream) content(piece string) { s.delta(map[string]any{"content": piece}, nil) }

// finish ends the stream: the stop reason, the usage of an answer of
// pieces pieces, and [DONE].
func (s chatStream) finish(pieces int) {
	s.delta(map[string]any{}, "stop")
	s.chunk([]any{}, map[string]any{"prompt_tokens": 20, "completion_tokens": pieces, "total_tokens": 20 + pieces})
	fmt.Fprint(s.w, "data: [DONE]\n\n")
}

// heldStreamModel is a Chat Completions server that streams its answer
// ("stream": true) in pieces, gap apart, and holds the stream after half
// of them until release is closed: the run is still going while its first
// half is out.
type heldStreamModel struct {
	*httptest.Server
	pieces  []string
	gap     time.Duration
	release chan struct{}
	once    sync.Once
	streams chan struct{} // a streamed request arrived
}

func newHeldStreamModel(t *testing.T, pieces []string, gap time.Duration) *heldStreamModel {
	m := &heldStreamModel{pieces: pieces, gap: gap, release: make(chan struct{}), streams: make(chan struct{}, 8)}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		model, ok := streamRequest(t, w, r)
		if !ok {
			return
		}
		m.streams <- struct{}{}
		sse := openChatStream(w, model)
		for i, p := range m.pieces {
			if i == len(m.pieces)/2 {
				select {
				case <-m.release:
				case <-time.After(2 * time.Minute):
				case <-r.Context().Done():
					return
				}
			}
			select {
			case <-time.After(m.gap):
			case <-r.Context().Done():
				return
			}
			sse.content(p)
		}
		sse.finish(len(m.pieces))
	}))
	t.Cleanup(func() { m.once.Do(func() { close(m.release) }); m.Close() })
	return m
}

// TestWebChatStreams: on the local stack, with a model that streams, the
// run's assistant deltas are in agent.events while the model is still
// answering (the run has not ended), WebChat shows the text as it grows,
// and the reply then replaces the draft.
func TestWebChatStreams(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	needRIE(t)
	ctx := browser(t)
	var pieces []string
	for i := range 16 {
		pieces = append(pieces, fmt.Sprintf("streamed%02d ", i))
	}
	m := newHeldStreamModel(t, pieces, 200*time.Millisecond)
	tg := telegramtest.New(t, e2eToken)
	st := startStack(t, modelStackOptions(t, "stream", tg.URL, m.URL, a2aConfig))
	p := &page{t: t, ctx: ctx, base: st.FrontURL, shots: t.TempDir()}
	p.open("")
	p.run("sign in", chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), e2eGatewayToken), chromedp.Click(chromedp.ID("signin")))
	p.open("#/chat")
	p.run("send", chromedp.WaitVisible(chromedp.ID("chat-input")), chromedp.SendKeys(chromedp.ID("chat-input"), "tell me a long story"),
		chromedp.Click(chromedp.ID("chat-send")))
	select {
	case <-m.streams:
	case <-time.After(2 * time.Minute):
		t.Fatal("the model was never asked")
	}

	// The model holds its second half: what shows now came from deltas.
	draft := p.waitText("#chat-draft", "streamed00", 60*time.Second)
	if strings.Contains(draft, pieces[len(pieces)-1]) {
		t.Fatalf("the draft %q already has the held second half", draft)
	}
	runID := eval[string](p, `JSON.parse(sessionStorage.getItem('zero.runs'))[0].runId`)
	_, out := rpc(t, st, e2eGatewayToken, "agent.events", map[string]any{"runId": runID, "afterSeq": 0})
	evs, _ := result(t, out)["events"].([]any)
	var deltas strings.Builder
	for _, e := range evs {
		ev := e.(map[string]any)
		data, _ := ev["data"].(map[string]any)
		if ev["stream"] == "lifecycle" && (data["phase"] == "end" || data["phase"] == "error") {
			t.Fatalf("the run ended while the model still held its answer: %v", evs)
		}
		if d, ok := data["delta"].(string); ok && ev["stream"] == "assistant" {
			deltas.WriteString(d)
		}
	}
	if !strings.HasPrefix(deltas.String(), "streamed00 ") {
		t.Fatalf("agent.events before the run ended: deltas %q; want the answer's first pieces (events %v)", deltas.String(), evs)
	}
	p.shot("webchat-draft")

	m.once.Do(func() { close(m.release) })
	p.waitText("#chat-state", ": ok", 90*time.Second)
	p.waitText("#chat-log", strings.TrimSpace(strings.Join(pieces, "")), 10*time.Second)
	if n := eval[int](p, `document.querySelectorAll('#chat-draft').length`); n != 0 {
		t.Errorf("%d drafts left after the reply came", n)
	}
}

// droppingStreamModel streams its answer in pieces, gap apart; the first
// stream it serves drops its connection after dropAt pieces (a provider
// failing mid-answer), the next ones go to the end.
type droppingStreamModel struct {
	*httptest.Server
	mu      sync.Mutex
	streams int
	done    []time.Time // when each complete stream ended
}

func newDroppingStreamModel(t *testing.T, pieces []string, gap time.Duration, dropAt int) *droppingStreamModel {
	m := &droppingStreamModel{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		model, ok := streamRequest(t, w, r)
		if !ok {
			return
		}
		m.mu.Lock()
		m.streams++
		first := m.streams == 1
		m.mu.Unlock()
		sse := openChatStream(w, model)
		for i, p := range pieces {
			if first && i == dropAt {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
			time.Sleep(gap)
			sse.content(p)
		}
		sse.finish(len(pieces))
		m.mu.Lock()
		m.done = append(m.done, time.Now())
		m.mu.Unlock()
	}))
	t.Cleanup(m.Close)
	return m
}

// TestTelegramBlockReplies: on the local stack with block streaming on, a
// long answer reaches a Telegram chat in blocks before the model has
// finished it; the provider dropping the first stream mid-answer makes
// the queue retry the turn, and the chat still gets every word exactly
// once (the blocks the first attempt sent are in the turn's ledger).
func TestTelegramBlockReplies(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	needRIE(t)
	var pieces []string
	for p := range 6 {
		for w := range 12 {
			pieces = append(pieces, fmt.Sprintf("p%dw%02d ", p, w))
		}
		pieces[len(pieces)-1] = strings.TrimSpace(pieces[len(pieces)-1]) + ".\n\n"
	}
	m := newDroppingStreamModel(t, pieces, 30*time.Millisecond, 40)
	tg := telegramtest.New(t, e2eToken)
	st := startStack(t, modelStackOptions(t, "blocks", tg.URL, m.URL, `{channels: {telegram: {allowFrom: ["*"]}},
		  agents: {defaults: {blockStreamingDefault: "on", blockStreamingChunk: {minChars: 40, maxChars: 100, breakPreference: "paragraph"}}}}`))
	const chat = 555001
	chatSay(t, st, 9201, chat, "tell me a long story")
	want := strings.Fields(strings.Join(pieces, ""))
	var got []string
	var firstAt time.Time
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(250 * time.Millisecond) {
		got = nil
		for _, msg := range tg.Messages() {
			if msg.ChatID.String() == fmt.Sprint(chat) {
				if firstAt.IsZero() {
					firstAt = time.Now()
				}
				got = append(got, strings.Fields(msg.Text)...)
			}
		}
		if len(got) >= len(want) || time.Now().After(deadline) {
			break
		}
	}
	time.Sleep(2 * time.Second) // a duplicate would come now
	got = nil
	var msgs int
	for _, msg := range tg.Messages() {
		if msg.ChatID.String() == fmt.Sprint(chat) {
			got = append(got, strings.Fields(msg.Text)...)
			msgs++
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the chat's words (-answer +sent in %d messages):\n%s", msgs, diff)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.streams < 2 || len(m.done) == 0 {
		t.Fatalf("the model served %d streams (%d complete); want the dropped one and its retry", m.streams, len(m.done))
	}
	if msgs < 3 || !firstAt.Before(m.done[0]) {
		t.Errorf("%d messages, the first at %v and the answer complete at %v: want blocks before the end", msgs, firstAt, m.done[0])
	}
}
