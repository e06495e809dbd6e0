package devstack

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/zero-gateway/zero/shared/contextstore"
	"github.com/zero-gateway/zero/shared/model/modeltest"
	"github.com/zero-gateway/zero/shared/telegram/telegramtest"
)

// longModel is an OpenAI-compatible Chat Completions server for a long
// conversation. Like the real API it refuses (400, OpenAI's own error) a
// request whose tool calls and tool messages are not paired, and it
// reports realistic usage: prompt_tokens is the request's size / 4.
//
// It answers:
//   - a compaction request (the summariser's system prompt) with a summary;
//   - the pre-compaction memory flush with a write to memory/e2e.md, then
//     NO_REPLY once the write's result comes back;
//   - a prompt containing "[tool]" with a session_status call, then a long
//     reply once its result comes back;
//   - anything else with "reply to <the prompt's turn tag>" and ~3.5 KB.
type longModel struct {
	*httptest.Server
	t *testing.T

	mu       sync.Mutex
	requests []longRequest
	refused  []string
	calls    int
}

// longRequest is what the fake keeps of a request: its messages' text.
type longRequest struct {
	System string
	Texts  []string // every message's text (and tool arguments), in order
	Last   string   // the last message's text
	Tokens int      // prompt_tokens reported
}

type wireChatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

const longModelKey = "sk-long-0123456789abcdef"

func newLongModel(t *testing.T) *longModel {
	m := &longModel{t: t}
	m.Server = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.Close)
	return m
}

func (m *longModel) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model    string            `json:"model"`
		Messages []wireChatMessage `json:"messages"`
	}
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+longModelKey || json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
		m.refuse(w, `{"error":{"message":"unexpected request","type":"invalid_request_error","param":null,"code":null}}`)
		return
	}
	wire, kept := m.read(req.Messages, len(body)/4)
	if u, broken := modeltest.CheckPairing(wire); broken {
		m.refuse(w, fmt.Sprintf(`{"error":{"message":"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id' (%v)","type":"invalid_request_error","param":"messages.[%d].role","code":null}}`, u.IDs, u.Message))
		return
	}
	msg, finish := m.answer(kept, req.Messages[len(req.Messages)-1])
	out, _ := json.Marshal(msg)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"chatcmpl-long","object":"chat.completion","created":1767225600,"model":%q,"choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		req.Model, out, finish, kept.Tokens, len(out)/4, kept.Tokens+len(out)/4)
}

func (m *longModel) refuse(w http.ResponseWriter, body string) {
	m.mu.Lock()
	m.refused = append(m.refused, body)
	m.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	fmt.Fprint(w, body)
}

// read records a request and returns its wire shape for the pairing check.
func (m *longModel) read(msgs []wireChatMessage, tokens int) ([]modeltest.WireMessage, longRequest) {
	var wire []modeltest.WireMessage
	kept := longRequest{Tokens: tokens}
	for _, msg := range msgs {
		text := contentText(msg.Content)
		wm := modeltest.WireMessage{Role: msg.Role, Text: text}
		for _, c := range msg.ToolCalls {
			wm.Calls = append(wm.Calls, c.ID)
			text += " " + c.Function.Name + c.Function.Arguments
		}
		if msg.Role == "tool" {
			wm.Results = []string{msg.ToolCallID}
		}
		if msg.Role == "system" {
			kept.System += text
		}
		wire = append(wire, wm)
		kept.Texts = append(kept.Texts, text)
	}
	kept.Last = kept.Texts[len(kept.Texts)-1]
	m.mu.Lock()
	m.requests = append(m.requests, kept)
	m.mu.Unlock()
	return wire, kept
}

// answer is the assistant message and finish reason for a request.
func (m *longModel) answer(req longRequest, last wireChatMessage) (map[string]any, string) {
	say := func(s string) (map[string]any, string) {
		return map[string]any{"role": "assistant", "content": s}, "stop"
	}
	call := func(name, args string) (map[string]any, string) {
		m.mu.Lock()
		m.calls++
		id := fmt.Sprintf("call_%d", m.calls)
		m.mu.Unlock()
		return map[string]any{"role": "assistant", "content": nil, "tool_calls": []map[string]any{{
			"id": id, "type": "function", "function": map[string]string{"name": name, "arguments": args},
		}}}, "tool_calls"
	}
	switch {
	case strings.Contains(req.System, "You compact conversations"):
		return say("SUMMARY: a long conversation about numbered turns.")
	case last.Role == "tool" && strings.Contains(req.Texts[len(req.Texts)-2], "memory/e2e.md"):
		return say("NO_REPLY")
	case last.Role == "tool":
		return say("reply after the tool " + strings.Repeat("t", 3500))
	case strings.Contains(req.Last, "Pre-compaction memory flush"):
		return call("write", `{"path":"memory/e2e.md","content":"The user counts turns."}`)
	case strings.Contains(req.Last, "[tool]"):
		return call("session_status", `{}`)
	}
	tag, _, _ := strings.Cut(req.Last, " ")
	return say("reply to " + tag + " " + strings.Repeat("r", 3500))
}

func (m *longModel) snapshot() ([]longRequest, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]longRequest(nil), m.requests...), append([]string(nil), m.refused...)
}

// longTurnText is turn n's user message: its tag, a tool request every
// fifth turn, and filler to about 4 KB.
func longTurnText(n int) string {
	text := fmt.Sprintf("turn-%03d ", n)
	if n%5 == 0 {
		text += "[tool] "
	}
	return text + strings.Repeat("u", 4000-len(text))
}

// TestLongConversation is issue 20's end-to-end check on the local stack:
// one Telegram chat, 60 turns of about 8 KB with a tool call every fifth,
// against a model that refuses broken tool pairing and reports realistic
// prompt tokens. Every turn is answered, no request is refused, the
// context leaves the store item for a base object, and the last request
// still holds the first turn. Then a small contextTokens makes the next
// turn flush memory and compact, and the conversation goes on.
func TestLongConversation(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	needRIE(t)
	t.Parallel()
	tg := telegramtest.New(t, e2eToken)
	m := newLongModel(t)
	logs := &flushLog{}
	const baseConfig = `{channels: {telegram: {allowFrom: ["*"], owners: ["*"]}}`
	st := startStack(t, Options{
		Template: translatedTemplate(t),
		Prefix:   uniquePrefix(t, "long"),
		Params: map[string]string{
			"TelegramBotId": "123456", "TelegramAPIBaseURL": tg.URL,
			"ZeroModel": "openai/gpt-4.1", "OpenAIBaseURL": m.URL + "/v1", // a 1M-token window
		},
		Secrets: map[string]string{
			"telegram-bot-token": e2eToken, "telegram-webhook-secret": e2eSecret, "openai-api-key": longModelKey,
		},
		Config:   []byte(baseConfig + `}`),
		PollWait: time.Second,
		Output:   logs,
	})
	const chat, turns = 7001, 60
	for n := 1; n <= turns; n++ {
		chatSay(t, st, 70000+n, chat, longTurnText(n))
		want := fmt.Sprintf("reply to turn-%03d", n)
		if n%5 == 0 {
			want = "reply after the tool"
		}
		waitCount(t, tg, chat, want, n/5, n%5 == 0)
	}
	requests, refused := m.snapshot()
	if len(refused) > 0 {
		t.Fatalf("the model refused %d requests; first: %s", len(refused), refused[0])
	}
	last := requests[len(requests)-1]
	if !strings.Contains(strings.Join(last.Texts, "\n"), "turn-001 ") {
		t.Errorf("the last request (%d tokens) no longer holds the first turn", last.Tokens)
	}
	if last.Tokens < 100_000 {
		t.Errorf("the last request is %d tokens; want a context past 100k tokens (60 turns of 8 KB)", last.Tokens)
	}
	if n := countObjects(t, st, contextstore.Prefix); n == 0 {
		t.Errorf("no context base object under %s: the context never left the store item", contextstore.Prefix)
	}

	t.Run("a small window compacts after the memory flush and goes on", func(t *testing.T) {
		ctx := context.Background()
		if _, err := st.PutConfig(ctx, []byte(baseConfig+`, agents: {defaults: {contextTokens: 120000}}}`)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * DefaultConfigTTL / 2) // the runner re-reads zero.json
		before, _ := m.snapshot()
		chatSay(t, st, 70000+turns+1, chat, longTurnText(turns+1))
		sentTo(t, tg, chat, fmt.Sprintf("reply to turn-%03d", turns+1))
		requests, refused := m.snapshot()
		if len(refused) > 0 {
			t.Fatalf("the model refused %d requests; first: %s", len(refused), refused[0])
		}
		var flushed, compacted bool
		for _, r := range requests[len(before):] {
			flushed = flushed || strings.Contains(r.Last, "Pre-compaction memory flush")
			compacted = compacted || strings.Contains(r.System, "You compact conversations")
		}
		if !flushed || !compacted {
			t.Fatalf("flush %v, compaction %v; want both before the turn; the runner said:\n%s", flushed, compacted, logs)
		}
		final := strings.Join(requests[len(requests)-1].Texts, "\n")
		if !strings.Contains(final, "SUMMARY: a long conversation") || strings.Contains(final, "turn-001 ") {
			t.Errorf("the turn after compaction does not start from the summary")
		}
		key := "agents/main/workspace/memory/e2e.md"
		if got := readObject(t, st, key); !strings.Contains(got, "counts turns") {
			t.Errorf("%s = %q; want the flush's note", key, got)
		}
		chatSay(t, st, 70000+turns+2, chat, longTurnText(turns+2))
		sentTo(t, tg, chat, fmt.Sprintf("reply to turn-%03d", turns+2))
	})
}

// waitCount waits until chat got the reply want; for a tool turn (tool),
// until it got toolReplies replies after a tool.
func waitCount(t *testing.T, tg *telegramtest.Server, chat int64, want string, toolReplies int, tool bool) {
	t.Helper()
	if !tool {
		sentTo(t, tg, chat, want)
		return
	}
	deadline := time.Now().Add(60 * time.Second)
	for countSent(tg, chat, want) < toolReplies {
		if time.Now().After(deadline) {
			t.Fatalf("chat %d got %d replies after a tool; want %d", chat, countSent(tg, chat, want), toolReplies)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func countObjects(t *testing.T, st *Stack, prefix string) int {
	t.Helper()
	s3c := s3.NewFromConfig(st.AWSConfig, func(o *s3.Options) { o.UsePathStyle = true })
	out, err := s3c.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(st.Resources.Buckets["TranscriptBucket"].Name), Prefix: aws.String(prefix)})
	if err != nil {
		t.Fatalf("list %s: %v", prefix, err)
	}
	return len(out.Contents)
}

func readObject(t *testing.T, st *Stack, key string) string {
	t.Helper()
	s3c := s3.NewFromConfig(st.AWSConfig, func(o *s3.Options) { o.UsePathStyle = true })
	obj, err := s3c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(st.Resources.Buckets["TranscriptBucket"].Name), Key: aws.String(key)})
	if err != nil {
		return ""
	}
	defer obj.Body.Close()
	data, _ := io.ReadAll(obj.Body)
	return string(data)
}

// flushLog keeps the functions' log lines about the memory flush and
// compaction, for a failure's message.
type flushLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *flushLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range strings.Split(string(p), "\n") {
		if strings.Contains(line, "flush") || strings.Contains(line, "compact") {
			l.lines = append(l.lines, line)
		}
	}
	return len(p), nil
}

func (l *flushLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}
