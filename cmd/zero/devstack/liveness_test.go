package devstack

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/telegram/telegramtest"
)

// The liveness end-to-end test (issue 24's items 3, 5 and 7 on the local
// stack): typing while the model works, steer, and debounce, on one stack
// whose zero.json puts every session in queue mode steer with a 1 s
// debounce (which a collect session honours).

const (
	liveModelKey = "sk-live-0123456789"
	liveConfig   = `{session: {dmScope: "per-peer"}, channels: {telegram: {allowFrom: ["*"], owners: ["*"]}}, ` +
		`messages: {queue: {mode: "steer", debounceMs: 1000}}}`
	// The chats: one per behaviour.
	typingChat   = 710000001
	steerChat    = 710000002
	debounceChat = 710000003
	// liveSlow is how long the model works on a "slow" prompt; typing is
	// sent every 4 s, so at least two typings fall in it.
	liveSlow = 9 * time.Second
	// liveToolCall is how long the model takes to ask for a tool on a
	// "steer-start" prompt: the steer message is posted meanwhile.
	liveToolCall = 4 * time.Second
)

// liveModel is an OpenAI-compatible Chat Completions server: a prompt with
// "slow" is answered after liveSlow; a "steer-start" prompt not yet
// followed by a tool result asks for session_status after liveToolCall;
// every other call answers "answer: <the last user message>". It keeps
// each call's user messages.
type liveModel struct {
	*httptest.Server
	mu    sync.Mutex
	calls [][]string // per call, its user messages, with "<tool>" where a tool result was
}

func newLiveModel(t *testing.T) *liveModel {
	m := &liveModel{}
	m.Server = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.Close)
	return m
}

func (m *liveModel) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+liveModelKey || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, `{"error":{"message":"unexpected request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	var seen []string
	for _, msg := range req.Messages {
		switch msg.Role {
		case "user":
			seen = append(seen, contentText(msg.Content))
		case "tool":
			seen = append(seen, "<tool>")
		}
	}
	m.mu.Lock()
	m.calls = append(m.calls, seen)
	m.mu.Unlock()
	last := seen[len(seen)-1]
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.Contains(last, "slow"):
		time.Sleep(liveSlow)
	case strings.Contains(last, "steer-start"):
		time.Sleep(liveToolCall)
		fmt.Fprintf(w, `{"id":"chatcmpl-live","object":"chat.completion","created":1767225600,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_live","type":"function","function":{"name":"session_status","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`, req.Model)
		return
	}
	content, _ := json.Marshal("answer: " + last)
	fmt.Fprintf(w, `{"id":"chatcmpl-live","object":"chat.completion","created":1767225600,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`, req.Model, content)
}

// callsWith are the model calls whose user messages mention s.
func (m *liveModel) callsWith(s string) [][]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out [][]string
	for _, c := range m.calls {
		if slices.ContainsFunc(c, func(u string) bool { return strings.Contains(u, s) }) {
			out = append(out, c)
		}
	}
	return out
}

// repliesTo are the texts sent to chat so far.
func repliesTo(tg *telegramtest.Server, chat int64) []string {
	var out []string
	for _, m := range tg.Messages() {
		if m.ChatID.String() == fmt.Sprint(chat) {
			out = append(out, m.Text)
		}
	}
	return out
}

// waitReplies waits up to a minute for n replies to chat and returns them
// with when the n-th was seen.
func waitReplies(t *testing.T, tg *telegramtest.Server, chat int64, n int) ([]string, time.Time) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if got := repliesTo(tg, chat); len(got) >= n {
			return got, time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("chat %d got replies %q; want %d", chat, repliesTo(tg, chat), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLivenessEndToEnd runs three chats at once on the local stack:
//   - typing: a slow answer (9 s) shows "typing" in its chat at least
//     twice (every 4 s), all before the reply and none after it;
//   - steer: a message posted while the run works reaches the same run's
//     next model call, after the tool's result, and gets no turn (and no
//     reply) of its own;
//   - debounce: after /queue collect, three messages 200 ms apart make one
//     turn, whose prompt collects all three.
func TestLivenessEndToEnd(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	needRIE(t)
	tg := telegramtest.New(t, e2eToken)
	llm := newLiveModel(t)
	st := startStack(t, Options{
		Template: translatedTemplate(t),
		Prefix:   uniquePrefix(t, "live"),
		Params: map[string]string{
			"TelegramBotId": "123456", "TelegramAPIBaseURL": tg.URL,
			"ZeroModel": "openai/live-model", "OpenAIBaseURL": llm.URL + "/v1",
		},
		Secrets: map[string]string{
			"telegram-bot-token": e2eToken, "telegram-webhook-secret": e2eSecret, "openai-api-key": liveModelKey,
		},
		Config:   []byte(liveConfig),
		PollWait: time.Second,
	})
	post := func(id int, chat int64, text string) {
		t.Helper()
		if got := postUpdate(t, st, e2eSecret, chatUpdate(t, id, chat, text)); got != http.StatusOK {
			t.Fatalf("update %d: status %d", id, got)
		}
	}

	// The debounce chat chooses collect first (a command: never held).
	post(9101, debounceChat, "/queue collect")
	waitReplies(t, tg, debounceChat, 1)

	start := time.Now()
	post(9001, typingChat, "a slow question")
	post(9201, steerChat, "steer-start: what is my status?")
	time.Sleep(time.Second) // the steer run is in its first model call now
	post(9202, steerChat, "steer-extra: and answer in French")
	for i := 1; i <= 3; i++ {
		post(9101+i, debounceChat, fmt.Sprintf("deb-%d", i))
		time.Sleep(200 * time.Millisecond)
	}

	_, typedReply := waitReplies(t, tg, typingChat, 1)
	steered, _ := waitReplies(t, tg, steerChat, 1)
	debounced, _ := waitReplies(t, tg, debounceChat, 2)
	time.Sleep(6 * time.Second) // a late duplicate, or typing after the reply, shows by now

	// Typing.
	var typing []time.Time
	for _, a := range tg.ChatActions() {
		if a.ChatID.String() == fmt.Sprint(typingChat) && a.Action == "typing" {
			typing = append(typing, a.At)
		}
	}
	if len(typing) < 2 {
		t.Errorf("chat %d saw %d typing actions during a %s answer; want at least 2", typingChat, len(typing), liveSlow)
	}
	for _, at := range typing {
		if at.After(typedReply) {
			t.Errorf("typing at %s, after the reply (seen at %s)", at.Format("15:04:05.000"), typedReply.Format("15:04:05.000"))
		}
	}
	t.Logf("typing: %d actions over the %s answer; reply %s after the post", len(typing), liveSlow, typedReply.Sub(start).Round(time.Millisecond))

	// Steer.
	if got := repliesTo(tg, steerChat); len(got) != 1 || !strings.Contains(got[0], "steer-extra") {
		t.Errorf("steer chat replies %q; want one, answering the steered message", got)
	}
	calls := llm.callsWith("steer-")
	want := []string{"steer-start: what is my status?", "<tool>", "steer-extra: and answer in French"}
	if len(calls) != 2 || !slices.Equal(lastN(calls[1], 3), want) {
		t.Errorf("steer chat's model calls %q; want 2, the second ending %q", calls, want)
	}
	_ = steered

	// Debounce.
	if len(debounced) != 2 || !strings.Contains(debounced[1], "deb-1") || !strings.Contains(debounced[1], "deb-3") {
		t.Errorf("debounce chat replies %q; want the /queue answer and one reply collecting deb-1..3", repliesTo(tg, debounceChat))
	}
	if got := llm.callsWith("deb-"); len(got) != 1 {
		t.Errorf("debounce chat's model calls %q; want one turn", got)
	}
}

// lastN is the last n elements of s (all of it when shorter).
func lastN(s []string, n int) []string { return s[max(0, len(s)-n):] }
