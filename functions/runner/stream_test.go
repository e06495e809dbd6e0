package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/awsconfig"
)

// streamingModel is a Chat Completions server that streams when asked
// ("stream": true): pieces server-sent chunks, gap apart, then the finish
// and usage chunks. whole answers the same text as one completion, like a
// server that ignores "stream", after as long as the stream would take.
type streamingModel struct {
	pieces []string
	gap    time.Duration
	whole  bool
}

func (m *streamingModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	text := strings.Join(m.pieces, "")
	if m.whole || !req.Stream {
		// As slow as the stream, so both turns poll the stop mark alike.
		select {
		case <-time.After(m.gap * time.Duration(len(m.pieces))):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		body, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 12, "completion_tokens": 40, "total_tokens": 52}})
		w.Write(body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		body, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", body)
		w.(http.Flusher).Flush()
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, p := range m.pieces {
		select {
		case <-time.After(m.gap):
		case <-r.Context().Done():
			return
		}
		chunk(map[string]any{"content": p}, nil)
	}
	chunk(map[string]any{}, "stop")
	usage, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": req.Model, "choices": []any{},
		"usage": map[string]any{"prompt_tokens": 12, "completion_tokens": 40, "total_tokens": 52}})
	fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", usage)
}

// TestStreamedTurnAWSCalls counts the AWS calls a streamed answer adds to
// a plain text turn on the real stores: its assistant deltas are written
// in batches (turn.DefaultDeltaWindow), so an answer streamed over about
// 2.5 s adds about one write per second of streaming, however many
// tokens it has, and the same answer given whole after as long adds none
// (both turns read the stop mark alike while the model works). It prints
// a BENCH line (make bench).
func TestStreamedTurnAWSCalls(t *testing.T) {
	var pieces []string
	for i := range 25 {
		pieces = append(pieces, fmt.Sprintf("word%d ", i))
	}
	llm := &streamingModel{pieces: pieces, gap: 100 * time.Millisecond}
	srv := httptest.NewServer(llm)
	defer srv.Close()
	counter := awsconfig.NewCounter()
	_, deliver, tg := newCountedRunner(t, "openai/gpt-4o", map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": srv.URL + "/v1"}, counter)

	first := message(t, "")
	turn := func(n int, whole bool) (int, string) {
		llm.whole = whole
		m := first
		m.ID = fmt.Sprintf("%s-%d", first.ID, n)
		m.Text = fmt.Sprintf("turn %d", n)
		counter.Reset()
		if resp := deliver(m, 1); len(resp.BatchItemFailures) != 0 {
			t.Fatalf("turn %d failed: %+v", n, resp)
		}
		return counter.Total(), counter.String()
	}
	turn(1, true) // cold caches: zero.json, the workspace
	start := time.Now()
	plain, plainOps := turn(2, true)
	plainTook := time.Since(start)
	start = time.Now()
	streamed, streamedOps := turn(3, false)
	took := time.Since(start)
	t.Logf("BENCH streamed_turn plain_aws_calls=%d (%s) streamed_aws_calls=%d (%s) plain_ops=%q streamed_ops=%q",
		plain, plainTook.Round(10*time.Millisecond), streamed, took.Round(10*time.Millisecond), plainOps, streamedOps)
	added := streamed - plain
	if most := int(took/time.Second) + 1; added < 1 || added > most {
		t.Errorf("a %s streamed answer added %d AWS calls (%s vs %s); want 1..%d (one write per second of streaming)",
			took.Round(10*time.Millisecond), added, streamedOps, plainOps, most)
	}
	want := strings.Join(pieces, "")
	if texts := tg.Texts(); len(texts) != 3 || texts[2] != strings.TrimSpace(want) {
		t.Errorf("Telegram got %q; want the streamed answer whole as the last reply", texts)
	}
}
