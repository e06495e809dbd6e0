package devstack

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/telegram/telegramtest"
)

// a2aModel is an OpenAI-compatible Chat Completions server whose answers
// follow the conversation, so agent-to-agent flows can be scripted end to
// end:
//   - a message "send {json}" or "spawn {json}" calls sessions_send or
//     sessions_spawn with that JSON; the tool's result comes back as
//     "tool said: status=… reply=… error=… child=…";
//   - a ping-pong round (the reply-step context) answers "pong" until
//     round 3, then REPLY_SKIP;
//   - the announce step answers ANNOUNCE_SKIP when the original request
//     says "quietly", else "announce: <original request>";
//   - a message saying "slowly" is answered after slow;
//   - anything else is answered "reply to: <message>".
//
// It checks the API key and the request's shape.
type a2aModel struct {
	*httptest.Server
	slow   time.Duration
	mu     sync.Mutex
	seen   []string        // the last user message of each call
	failed map[string]bool // the flaky rounds already failed
}

// flaky fails, once each, the ping-pong rounds of a request that says
// "flaky": the model provider's outage in the middle of a flow.
func (m *a2aModel) flaky(req chatRequest) bool {
	var system string
	for _, msg := range req.Messages {
		if msg.Role == "system" {
			system += contentText(msg.Content)
		}
	}
	// The original request is the round's user message (untrusted
	// content), never the system prompt.
	last := contentText(req.Messages[len(req.Messages)-1].Content)
	if !strings.Contains(system, "Agent-to-agent reply step:") || !strings.Contains(last, "flaky") {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failed == nil {
		m.failed = map[string]bool{}
	}
	if m.failed[system] {
		return false
	}
	m.failed[system] = true
	return true
}

const a2aModelKey = "sk-a2a-test-0123456789"

func newA2AModel(t *testing.T, slow time.Duration) *a2aModel {
	m := &a2aModel{slow: slow}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req chatRequest
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+a2aModelKey ||
			json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 {
			t.Errorf("a2a model: unexpected request %s %s", r.Method, r.URL.Path)
			http.Error(w, `{"error":{"message":"unexpected request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		if m.flaky(req) {
			http.Error(w, `{"error":{"message":"overloaded","type":"server_error"}}`, http.StatusInternalServerError)
			return
		}
		msg, finish := m.answer(req)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-a2a","object":"chat.completion","created":1767225600,"model":%q,"choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`, req.Model, msg, finish)
	}))
	t.Cleanup(m.Close)
	return m
}

type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// answer is the assistant message (JSON) and finish reason for req.
func (m *a2aModel) answer(req chatRequest) (string, string) {
	system, last := "", req.Messages[len(req.Messages)-1]
	for _, msg := range req.Messages {
		if msg.Role == "system" {
			system += contentText(msg.Content)
		}
	}
	text := contentText(last.Content)
	m.mu.Lock()
	m.seen = append(m.seen, text)
	m.mu.Unlock()
	say := func(s string) (string, string) {
		out, _ := json.Marshal(map[string]string{"role": "assistant", "content": s})
		return string(out), "stop"
	}
	switch {
	case last.Role == "tool":
		var res struct{ Status, Reply, Error, ChildSessionKey string }
		if json.Unmarshal([]byte(text), &res) != nil {
			return say("tool said: " + text)
		}
		return say(fmt.Sprintf("tool said: status=%s reply=%s error=%s child=%s", res.Status, res.Reply, res.Error, res.ChildSessionKey))
	case strings.HasPrefix(text, "send {"), strings.HasPrefix(text, "spawn {"):
		name, args, _ := strings.Cut(text, " ")
		call, _ := json.Marshal(map[string]any{"role": "assistant", "content": nil, "tool_calls": []map[string]any{{
			"id": "call_1", "type": "function", "function": map[string]string{"name": "sessions_" + name, "arguments": args},
		}}})
		return string(call), "tool_calls"
	case strings.HasPrefix(text, "Agent-to-agent announce step:"):
		if strings.Contains(text, "quietly") {
			return say("ANNOUNCE_SKIP")
		}
		_, req, _ := strings.Cut(text, "Original request: ")
		req, _, _ = strings.Cut(req, "\n")
		return say("announce: " + req)
	case strings.Contains(system, "Agent-to-agent reply step:"):
		if strings.Contains(system, "This is round 3") {
			return say("REPLY_SKIP")
		}
		return say("pong")
	case strings.Contains(text, "slowly"):
		time.Sleep(m.slow)
		return say("slow reply")
	}
	return say("reply to: " + text)
}

// a2aConfig is the zero.json of the agent-to-agent tests: a session per
// Telegram peer.
const a2aConfig = `{session: {dmScope: "per-channel-peer"}, channels: {telegram: {allowFrom: ["*"], owners: ["*"]}}}`

// a2aInterruptConfig is a2aConfig in queue mode interrupt: only a person's
// message may stop a run, so a caller waiting in sessions_send is not
// aborted by the reply-back round queued on its own session.
const a2aInterruptConfig = `{session: {dmScope: "per-channel-peer"}, messages: {queue: {mode: "interrupt"}}, channels: {telegram: {allowFrom: ["*"], owners: ["*"]}}}`

// a2aStack is a local stack with the a2a model and zero.json config.
func a2aStack(t *testing.T, slow time.Duration, config string) (*Stack, *telegramtest.Server) {
	st, tg, _ := a2aStackLogged(t, slow, config)
	return st, tg
}

// modelStackOptions are the options of a local stack whose Telegram is
// the fake at telegramURL and whose model is the OpenAI-compatible fake at
// modelURL (key a2aModelKey), with config as zero.json.
func modelStackOptions(t *testing.T, prefix, telegramURL, modelURL, config string) Options {
	return Options{
		Template: translatedTemplate(t),
		Prefix:   uniquePrefix(t, prefix),
		Params: map[string]string{
			"TelegramBotId": "123456", "TelegramAPIBaseURL": telegramURL,
			"ZeroModel": "openai/gpt-4o-mini", "OpenAIBaseURL": modelURL + "/v1",
		},
		Secrets: map[string]string{
			"telegram-bot-token": e2eToken, "telegram-webhook-secret": e2eSecret,
			"gateway-token": e2eGatewayToken, "openai-api-key": a2aModelKey,
		},
		Config:   []byte(config),
		PollWait: time.Second,
	}
}

// withOutput is o with the functions' output going to w.
func withOutput(o Options, w io.Writer) Options {
	o.Output = w
	return o
}

// a2aStackLogged is a2aStack with the functions' invocation log.
func a2aStackLogged(t *testing.T, slow time.Duration, config string) (*Stack, *telegramtest.Server, *invocationLog) {
	need(t, "AWS emulator", emuErr)
	needRIE(t)
	tg := telegramtest.New(t, e2eToken)
	m := newA2AModel(t, slow)
	logs := &invocationLog{}
	st := startStack(t, withOutput(modelStackOptions(t, "a2a", tg.URL, m.URL, config), logs))
	return st, tg, logs
}

// chatSay posts text from private chat id (the update id unique per
// test) and fails the test on a refusal.
func chatSay(t *testing.T, st *Stack, id int, chat int64, text string) {
	t.Helper()
	if code := postUpdate(t, st, e2eSecret, chatUpdate(t, id, chat, text)); code != http.StatusOK {
		t.Fatalf("webhook = %d, want 200", code)
	}
}

// sentTo waits until chat got a message containing want and returns how
// many of its messages contain want.
func sentTo(t *testing.T, tg *telegramtest.Server, chat int64, want string) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if n := countSent(tg, chat, want); n > 0 {
			return n
		}
		if time.Now().After(deadline) {
			var got []string
			for _, m := range tg.Messages() {
				if m.ChatID.String() == fmt.Sprint(chat) {
					got = append(got, m.Text)
				}
			}
			t.Fatalf("chat %d got no message with %q; it got %q", chat, want, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func countSent(tg *telegramtest.Server, chat int64, want string) int {
	n := 0
	for _, m := range tg.Messages() {
		if m.ChatID.String() == fmt.Sprint(chat) && strings.Contains(m.Text, want) {
			n++
		}
	}
	return n
}

func dmKey(chat int64) string { return fmt.Sprintf("agent:main:telegram:dm:%d", chat) }

func sendArgs(key, message string, timeout int) string {
	b, _ := json.Marshal(map[string]any{"sessionKey": key, "message": message, "timeoutSeconds": timeout})
	return "send " + string(b)
}

// TestSessionsSendEndToEnd runs sessions_send through the local stack:
// the runner's tool queues through the ingest door, the target answers on
// its own FIFO group, the waiting caller gets the reply, two ping-pong
// rounds end with REPLY_SKIP, and the target's announce reaches its
// Telegram chat exactly once through the outbox; ANNOUNCE_SKIP stays
// silent; a wait that times out still ends with the announce; and two
// sessions that send to each other at the same moment both finish. It
// runs in queue mode interrupt, where a reply-back round or announce that
// wrote a stop mark would abort the waiting caller.
func TestSessionsSendEndToEnd(t *testing.T) {
	st, tg := a2aStack(t, 4*time.Second, a2aInterruptConfig)
	const a, b = 111, 222
	chatSay(t, st, 1, a, "hello")
	chatSay(t, st, 2, b, "hello")
	sentTo(t, tg, a, "reply to: hello")
	sentTo(t, tg, b, "reply to: hello")

	t.Run("wait, ping-pong, announce", func(t *testing.T) {
		chatSay(t, st, 3, a, sendArgs(dmKey(b), "status of b?", 30))
		if got := sentTo(t, tg, a, "tool said: status=ok reply=reply to: status of b?"); got != 1 {
			t.Errorf("the caller got the reply %d times; want once", got)
		}
		sentTo(t, tg, b, "announce: status of b?")
		time.Sleep(2 * time.Second) // a duplicate would come now
		if n := countSent(tg, b, "announce: status of b?"); n != 1 {
			t.Errorf("announce delivered %d times; want exactly once", n)
		}
		hist := historyText(t, st, dmKey(a))
		if !strings.Contains(hist, "pong") {
			t.Errorf("the requester's transcript has no ping-pong round:\n%s", hist)
		}
		if !strings.Contains(historyText(t, st, dmKey(b)), "REPLY_SKIP") {
			t.Errorf("the target's transcript has no REPLY_SKIP round")
		}
	})

	t.Run("fire and forget, ANNOUNCE_SKIP is silent", func(t *testing.T) {
		before := len(tg.Messages())
		chatSay(t, st, 4, a, sendArgs(dmKey(b), "quietly note this", 0))
		sentTo(t, tg, a, "tool said: status=accepted")
		waitUntil(t, func() bool { return strings.Contains(historyText(t, st, dmKey(b)), "ANNOUNCE_SKIP") })
		time.Sleep(2 * time.Second)
		for _, m := range tg.Messages()[before:] {
			if m.ChatID.String() == fmt.Sprint(b) {
				t.Errorf("chat %d got %q; want silence", b, m.Text)
			}
		}
	})

	t.Run("a timed-out wait is still announced", func(t *testing.T) {
		chatSay(t, st, 5, a, sendArgs(dmKey(b), "answer slowly", 1))
		sentTo(t, tg, a, "tool said: status=timeout")
		sentTo(t, tg, b, "announce: answer slowly")
	})

	t.Run("a failed round and a failed announce delivery: one announce", func(t *testing.T) {
		tg.SetFailOnce("announce: flaky")
		chatSay(t, st, 8, a, sendArgs(dmKey(b), "flaky request", 0))
		sentTo(t, tg, b, "announce: flaky request")
		time.Sleep(2 * time.Second)
		if n := countSent(tg, b, "announce: flaky request"); n != 1 {
			t.Errorf("announce delivered %d times; want exactly once", n)
		}
		if !strings.Contains(historyText(t, st, dmKey(a)), "pong") {
			t.Errorf("the failed round was not run again")
		}
	})

	t.Run("a dead announce is re-queued by outbox.retry", func(t *testing.T) {
		tg.SetRefuseOnce("announce: refused")
		chatSay(t, st, 9, a, sendArgs(dmKey(b), "refused once", 0))
		var id string
		waitUntil(t, func() bool {
			_, out := rpc(t, st, e2eGatewayToken, "outbox.list", map[string]any{"state": "dead"})
			r, _ := out["result"].(map[string]any)
			items, _ := r["items"].([]any)
			for _, it := range items {
				if row, _ := it.(map[string]any); strings.Contains(fmt.Sprint(row["text"]), "refused once") {
					id = fmt.Sprint(row["id"])
					return true
				}
			}
			return false
		})
		status, out := rpc(t, st, e2eGatewayToken, "outbox.retry", map[string]any{"id": id})
		r, _ := out["result"].(map[string]any)
		if status != 200 || r["messageId"] != "deliver:"+id+":retry:1" {
			t.Fatalf("outbox.retry = %d %v; want 200 and message deliver:%s:retry:1", status, out, id)
		}
		sentTo(t, tg, b, "announce: refused once")
		waitUntil(t, func() bool {
			_, out := rpc(t, st, e2eGatewayToken, "outbox.list", map[string]any{"state": "sent"})
			return strings.Contains(fmt.Sprint(out["result"]), id)
		})
		if status, _ := rpc(t, st, e2eGatewayToken, "outbox.retry", map[string]any{"id": id}); status != 409 {
			t.Errorf("outbox.retry of a sent item = %d; want 409", status)
		}
	})

	t.Run("two sessions send to each other at once", func(t *testing.T) {
		start, before := time.Now(), len(tg.Messages())
		chatSay(t, st, 6, a, sendArgs(dmKey(b), "ping from a", 5))
		chatSay(t, st, 7, b, sendArgs(dmKey(a), "ping from b", 5))
		sentTo(t, tg, b, "announce: ping from a")
		sentTo(t, tg, a, "announce: ping from b")
		for _, chat := range []int64{a, b} {
			n := 0
			for _, m := range tg.Messages()[before:] {
				if m.ChatID.String() == fmt.Sprint(chat) && strings.HasPrefix(m.Text, "tool said: status=") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("chat %d got %d answers to its send; want 1", chat, n)
			}
		}
		t.Logf("both flows announced after %s", time.Since(start).Round(time.Millisecond))
	})
}

// historyText is the session's transcript as chat.history returns it.
func historyText(t *testing.T, st *Stack, key string) string {
	t.Helper()
	_, out := rpc(t, st, e2eGatewayToken, "chat.history", map[string]any{"sessionKey": key, "limit": 200})
	r, _ := out["result"].(map[string]any)
	return fmt.Sprint(r["messages"])
}

// spawnConfig adds a sandboxed agent (chat 333) and another agent
// (chat 444) to a2aConfig.
const spawnConfig = `{session: {dmScope: "per-channel-peer"},
  agents: {list: [{id: "main", default: true}, {id: "boxed", sandbox: {}}, {id: "work"}]},
  bindings: [{agentId: "boxed", match: {channel: "telegram", peer: {kind: "dm", id: "333"}}},
             {agentId: "work", match: {channel: "telegram", peer: {kind: "dm", id: "444"}}}],
  channels: {telegram: {allowFrom: ["*"], owners: ["*"]}}}`

// TestSessionsSpawnEndToEnd runs sessions_spawn through the local stack:
// the child runs on the sub-agent lane and its result is announced to the
// requester's chat with the stats line; a sub-agent cannot spawn;
// cleanup "delete" removes the child after its announce; a sandboxed
// agent sees only what it spawned; a cross-agent send is refused without
// tools.agentToAgent.
func TestSessionsSpawnEndToEnd(t *testing.T) {
	st, tg := a2aStack(t, 0, spawnConfig)
	const a = 111
	chatSay(t, st, 1, a, "hello")
	sentTo(t, tg, a, "reply to: hello")

	t.Run("announce with the stats line", func(t *testing.T) {
		chatSay(t, st, 2, a, `spawn {"task": "count the errors", "label": "errs"}`)
		sentTo(t, tg, a, "tool said: status=accepted")
		sentTo(t, tg, a, "Result: reply to: count the errors")
		for _, m := range tg.Messages() {
			if strings.Contains(m.Text, "Result: reply to: count the errors") {
				for _, want := range []string{"Status: ok", "Stats: runtime", "tokens 10 in / 3 out / 13 total", "agent:main:subagent:", "ZERO infra"} {
					if !strings.Contains(m.Text, want) {
						t.Errorf("announce %q lacks %q", m.Text, want)
					}
				}
			}
		}
	})

	t.Run("a sub-agent cannot spawn", func(t *testing.T) {
		chatSay(t, st, 3, a, `spawn {"task": "spawn {\"task\": \"grandchild\"}"}`)
		sentTo(t, tg, a, "Result: tool said:")
		if n := countSent(tg, a, "Result: reply to: grandchild"); n != 0 {
			t.Errorf("a grandchild ran and announced")
		}
	})

	t.Run("cleanup delete", func(t *testing.T) {
		chatSay(t, st, 4, a, `spawn {"task": "tidy up", "cleanup": "delete"}`)
		sentTo(t, tg, a, "Result: reply to: tidy up")
		var child string
		for _, m := range tg.Messages() {
			if _, rest, ok := strings.Cut(m.Text, "child="); ok && strings.Contains(m.Text, "status=accepted") {
				child = strings.Fields(rest)[0]
			}
		}
		waitUntil(t, func() bool { return !strings.Contains(sessionKeys(t, st), child) })
	})

	t.Run("sandbox sees only what it spawned", func(t *testing.T) {
		chatSay(t, st, 5, 333, sendArgs(dmKey(a), "hi", 0))
		sentTo(t, tg, 333, "a sandboxed session sees only the sessions it spawned")
	})

	t.Run("cross-agent refused without tools.agentToAgent", func(t *testing.T) {
		chatSay(t, st, 6, 444, sendArgs(dmKey(a), "hi", 0))
		sentTo(t, tg, 444, "is refused: agent-to-agent messaging is disabled")
	})
}

// sessionKeys lists the session keys sessions.list returns.
func sessionKeys(t *testing.T, st *Stack) string {
	t.Helper()
	_, out := rpc(t, st, e2eGatewayToken, "sessions.list", map[string]any{"limit": 200})
	return fmt.Sprint(result(t, out)["sessions"])
}

// TestFlowAWSCalls counts the runner's AWS calls of one sessions_send
// flow end to end: the caller's turn, round 1, two ping-pong rounds (the
// second REPLY_SKIP), the announce step and the outbox delivery, each a
// runner invocation. A flow turn costs a plain turn's 4 calls plus the
// next step's SendMessage (and, for the caller's tool turn, the run
// record its tool flush starts; for the announce step, the target's entry
// and the outbox item); the delivery costs 2 (the item's GetItem and its
// settling UpdateItem). With ZERO_BENCH=1 (make bench) it prints them.
func TestFlowAWSCalls(t *testing.T) {
	st, tg, logs := a2aStackLogged(t, 0, a2aConfig)
	const a, b = 111, 222
	chatSay(t, st, 1, a, "hello")
	chatSay(t, st, 2, b, "hello")
	sentTo(t, tg, b, "reply to: hello")
	before := len(settledBatches(t, logs))
	chatSay(t, st, 3, a, sendArgs(dmKey(b), "count the calls", 0))
	sentTo(t, tg, b, "announce: count the calls")
	batches := settledBatches(t, logs)[before:]
	if len(batches) != 6 {
		t.Fatalf("%d runner invocations for the flow; want 6 (caller, 3 rounds, announce, delivery): %+v", len(batches), batches)
	}
	total := 0
	for i, inv := range batches {
		n := turnCalls(inv)
		total += n
		t.Logf("BENCH flow_step=%d aws_calls=%d (%s)", i+1, n, turnOps(inv))
		limit := 7 // a plain turn's 4, the next step's SendMessage, the announce's entry read and outbox write
		switch i {
		case 0:
			limit = 9 // the caller's tool turn: its tool flush, the target's lookup, a stop poll
		case len(batches) - 1:
			limit = 2 // the delivery: the item's GetItem and UpdateItem
		}
		if n > limit {
			t.Errorf("flow step %d made %d AWS calls (%s); want at most %d", i+1, n, turnOps(inv), limit)
		}
	}
	t.Logf("BENCH flow_total aws_calls=%d over %d runner invocations (+1 webhook SendMessage)", total, len(batches))
}

// settledBatches waits until no runner invocation has ended for two
// seconds and returns them all.
func settledBatches(t *testing.T, logs *invocationLog) []invocation {
	t.Helper()
	last, since := -1, time.Now()
	for time.Since(since) < 2*time.Second {
		batches, _ := logs.snapshot()
		if len(batches) != last {
			last, since = len(batches), time.Now()
		}
		time.Sleep(100 * time.Millisecond)
	}
	batches, _ := logs.snapshot()
	return batches
}
