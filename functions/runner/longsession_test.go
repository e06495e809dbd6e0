package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/model/modeltest"
)

// growingModel is a Chat Completions server for a long conversation: it
// asks for session_status on a prompt with "[tool]", answers about 1 KB
// otherwise, summarises on a compaction request, reports prompt_tokens as
// the request's size / 4, and refuses (400) broken tool pairing as OpenAI
// does.
type growingModel struct {
	mu      sync.Mutex
	calls   int
	refused []string
}

func (g *growingModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad JSON","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	var wire []modeltest.WireMessage
	for _, m := range req.Messages {
		var text string
		_ = json.Unmarshal(m.Content, &text)
		wm := modeltest.WireMessage{Role: m.Role, Text: text}
		for _, c := range m.ToolCalls {
			wm.Calls = append(wm.Calls, c.ID)
		}
		if m.Role == "tool" {
			wm.Results = []string{m.ToolCallID}
		}
		wire = append(wire, wm)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if u, broken := modeltest.CheckPairing(wire); broken {
		g.refused = append(g.refused, fmt.Sprint(u))
		http.Error(w, `{"error":{"message":"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	last := wire[len(wire)-1]
	msg := map[string]any{"role": "assistant", "content": "reply " + strings.Repeat("r", 1000)}
	finish := "stop"
	switch {
	case strings.Contains(wire[0].Text, "You compact conversations"):
		msg["content"] = "summary of the conversation so far"
	case last.Role == "user" && strings.Contains(last.Text, "[tool]"):
		g.calls++
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []map[string]any{{
			"id": fmt.Sprintf("call_%d", g.calls), "type": "function", "function": map[string]string{"name": "session_status", "arguments": "{}"},
		}}}
		finish = "tool_calls"
	}
	out, _ := json.Marshal(msg)
	tokens := len(body) / 4
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		out, finish, tokens, len(out)/4, tokens+len(out)/4)
}

// turnCost is what one turn cost in AWS terms.
type turnCost struct {
	calls              int
	ops                string
	dynamoSent, s3Sent int64
	dynamoRecv, s3Recv int64
}

// TestLongSessionCost runs one session through the real runner on the
// emulator — about 2 KB a turn, a tool call every fifth turn, gpt-4o's
// window — and checks that
// a turn's cost stays flat as the session grows: a short turn's AWS calls
// stay where they were, a long turn adds at most one read and one write,
// and the DynamoDB bytes a turn writes stay bounded by the inline tail,
// never the whole context. With ZERO_BENCH=1 it runs 500 turns and prints
// the figures of turns 1, 2, 100, 498 (a tool turn) and 500 (make bench);
// compaction then runs as the context nears the window.
func TestLongSessionCost(t *testing.T) {
	turns, report := 60, []int{1, 2, 50, 58, 60}
	if os.Getenv("ZERO_BENCH") != "" {
		turns, report = 500, []int{1, 2, 100, 498, 500}
	}
	llm := &growingModel{}
	srv := httptest.NewServer(llm)
	defer srv.Close()
	counter := awsconfig.NewCounter()
	_, deliver, tg := newCountedRunner(t, "openai/gpt-4o", map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": srv.URL + "/v1"}, counter)
	first := message(t, "")
	costs := map[int]turnCost{}
	var maxDynamoSent int64
	for n := 1; n <= turns; n++ {
		m := first
		m.ID = fmt.Sprintf("%s-%d", first.ID, n)
		m.Text = fmt.Sprintf("turn %d ", n) + strings.Repeat("u", 1000)
		if n%5 == 3 {
			m.Text += " [tool]"
		}
		counter.Reset()
		if resp := deliver(m, 1); len(resp.BatchItemFailures) != 0 {
			t.Fatalf("turn %d failed: %+v", n, resp)
		}
		sent, recv := counter.Bytes()
		c := turnCost{calls: counter.Total(), ops: counter.String(), dynamoSent: sent["DynamoDB"], s3Sent: sent["S3"], dynamoRecv: recv["DynamoDB"], s3Recv: recv["S3"]}
		costs[n] = c
		maxDynamoSent = max(maxDynamoSent, c.dynamoSent)
	}
	if len(llm.refused) > 0 {
		t.Fatalf("the model refused %d requests: %v", len(llm.refused), llm.refused)
	}
	if len(tg.Texts()) != turns {
		t.Fatalf("Telegram got %d replies; want %d", len(tg.Texts()), turns)
	}
	for _, n := range report {
		c := costs[n]
		t.Logf("BENCH long_session turn=%d aws_calls=%d dynamodb_bytes_written=%d dynamodb_bytes_read=%d s3_bytes_written=%d s3_bytes_read=%d ops=%q",
			n, c.calls, c.dynamoSent, c.dynamoRecv, c.s3Sent, c.s3Recv, c.ops)
	}
	// Turn 1 also reads zero.json and lists the workspace (cold caches);
	// turn 2 is the plain short turn.
	short := costs[2]
	for n := 3; n <= turns; n++ {
		if n%5 != 3 && costs[n].calls > short.calls+2 {
			t.Errorf("turn %d made %d AWS calls (%s), a short turn %d; a long turn may add at most one read and one write", n, costs[n].calls, costs[n].ops, short.calls)
		}
	}
	// The inline tail (16 KiB), the entry, the record and the turn's
	// request overhead: a DynamoDB write never carries the whole context.
	if maxDynamoSent > 48<<10 {
		t.Errorf("a turn sent %d bytes to DynamoDB; want at most 48 KiB whatever the context's size", maxDynamoSent)
	}
}
