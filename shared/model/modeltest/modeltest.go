// Package modeltest holds the conformance suite every model.Client adapter
// runs (shared/openai, shared/anthropic, shared/bedrock), the way the
// stores share turntest and sessiontest.
//
// The suite runs the adapter against a fake of its provider's HTTP API.
// What is provider-neutral (which answers to give, what the adapter must
// return, what its next request must carry, how it must fail) lives here;
// the adapter's test supplies a Vendor: how its API writes an answer or an
// error, and how to read back a request the adapter sent.
package modeltest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// Reply is one HTTP answer of the fake provider, in the vendor's wire
// format. A missing Content-Type header is sent as application/json.
type Reply struct {
	Status int
	Header http.Header
	Body   string
	// Parts, when set, is a streamed body: written in order, each part
	// flushed to the client before the next (Body is then ignored).
	Parts []string
}

// Answer is a successful model answer in ZERO's terms, for a Vendor to
// write in its wire format:
//   - no ToolCalls: an answer that ends the turn (the vendor's normal stop);
//   - ToolCalls: an answer that asks for them, in order (the vendor's tool
//     use stop), Text (when set) beside them. A call's Arguments may be
//     text that is not JSON at all; the vendor writes it as close as its
//     wire can carry: the text itself where arguments travel as a string
//     (Chat Completions), else a JSON value that is not an object (the
//     text as a JSON string) where they travel as JSON;
//   - Usage: the vendor writes the counters its API would report for these
//     token counts; the adapter must map them back to exactly Usage.
type Answer struct {
	Text      string
	ToolCalls []model.ToolCall
	Usage     model.Usage
}

// Failure is an error answer the suite asks a Vendor for.
type Failure string

const (
	// RateLimited is the API's "slow down" answer (HTTP 429).
	RateLimited Failure = "rate limited"
	// ServerError is a transient failure of the API (HTTP 5xx).
	ServerError Failure = "server error"
	// Unauthorized is the answer to rejected credentials: HTTP 401 where
	// the API uses it (Bedrock answers 403 UnrecognizedClientException).
	Unauthorized Failure = "unauthorized"
	// ContextOverflow is the API's refusal of a prompt longer than the
	// model's context window.
	ContextOverflow Failure = "context overflow"
)

// Sent is what the suite reads back from a request the adapter sent.
type Sent struct {
	// Tools are the names of the tools offered, in order.
	Tools []string
	// Calls are the tool calls of the assistant messages in the history,
	// in order, with their Arguments as sent.
	Calls []model.ToolCall
	// Results are the tool results in the history, in order.
	Results []Result
	// Wire is every message of the request as the wire carries it, in
	// order: what the fake checks the tool pairing on (CheckPairing).
	Wire []WireMessage
}

// Result is a tool result as a request carries it.
type Result struct {
	CallID  string
	Content string
	IsError bool
}

// Vendor is one provider's side of the suite. Every function is required.
type Vendor struct {
	// Answer writes a successful answer.
	Answer func(a Answer) Reply
	// Fail writes an error answer.
	Fail func(f Failure) Reply
	// Read decodes the body of a request the adapter sent; an error (the
	// body is not the vendor's request format) fails the test.
	Read func(body []byte) (Sent, error)
	// Refuse writes the provider's refusal (HTTP 400, its own words and
	// positions) of a request whose tool pairing is broken: the fake
	// answers it instead of the scripted reply, as the real API would.
	Refuse func(u Unpaired) Reply
	// CacheWrites says the API reports prompt-cache writes; when false the
	// suite's answers carry no model.Usage.CacheWrite.
	CacheWrites bool
	// Stream writes a successful answer as the provider streams it
	// (server-sent events, AWS event-stream), one Reply.Parts element per
	// event, the text cut into several deltas and tool call arguments into
	// several pieces. The suite runs every case a second time with the
	// adapter's model.Streamer and these answers (see TestClient).
	Stream func(a Answer) Reply
}

// Server is the fake provider a client under test talks to.
type Server struct {
	// URL is the server's root, e.g. http://127.0.0.1:4711 (no path).
	URL string
	// Client is an *http.Client for URL.
	Client *http.Client
}

// Model is the model name of every request the suite sends.
const Model = "test-model"

// CancelWithin is how long the suite gives a cancelled call to return, and
// its cancellation to reach the server (the abandoned HTTP request).
const CancelWithin = 2 * time.Second

// weatherTool is the tool the suite offers.
var weatherTool = model.ToolSpec{
	Name:        "get_weather",
	Description: "Current weather of a city.",
	Schema:      json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`),
}

// TestClient checks the model.Client contract on an adapter:
//   - a text answer comes back with StopEnd and its usage in ZERO's terms;
//   - tool calls come back (id, name, arguments, StopToolUse), and the
//     assistant turn and the tool results go back in the next request;
//   - tool call arguments that are not JSON come back without an error,
//     as arguments agent.Loop answers with a tool error, and a history
//     holding them (with that error result) can still be sent;
//   - a 429 is fault.RateLimited and a 5xx fault.Unavailable, both
//     retryable; rejected credentials are fault.Unauthorized and a context
//     overflow fault.Invalid wrapping model.ErrContextOverflow, neither
//     retryable;
//   - a history whose tool pairing is broken (an orphan result, a call
//     without a result, a result after a user message) is repaired before
//     it is sent, so the fake, which refuses a broken pairing the way the
//     provider does (Vendor.Refuse), accepts it; that refusal is
//     fault.Invalid;
//   - every case above and below holds a second time with the adapter's
//     model.Streamer against v.Stream's answers (the deltas concatenating
//     to the answer's text), text arrives before the stream ends, and a
//     stream cut short is a retryable error, not a half answer;
//   - a cancelled context (what /stop does) ends the call within
//     CancelWithin, in flight or waiting to retry, with an error wrapping
//     context.Canceled, and the cancellation reaches the HTTP request; an
//     already cancelled context sends nothing.
//
// newClient
// returns a client of the adapter under test that talks to s, with model
// names passed through as given, that itself retries a retryable answer
// (429, 5xx) up to retries times: the suite asks for 0, so that it sees
// every answer once, except where it checks that a retry wait ends with
// the context. Each subtest runs its own server.
func TestClient(t *testing.T, v Vendor, newClient func(t *testing.T, s Server, retries int) model.Client) {
	if v.Answer == nil || v.Fail == nil || v.Read == nil || v.Refuse == nil || v.Stream == nil {
		t.Fatal("modeltest: Vendor.Answer, Fail, Read, Refuse and Stream are all required")
	}
	t.Run("complete", func(t *testing.T) { testClient(t, v, newClient) })
	t.Run("stream", func(t *testing.T) {
		streamed := v
		streamed.Answer = v.Stream
		testClient(t, streamed, streamingClient(newClient))
		testLiveDeltas(t, v, newClient)
		testCutShort(t, v, newClient)
		testStalled(t, v, newClient)
	})
}

// testClient is the contract's cases, with v's answers and the clients
// newClient makes (Complete, or Stream behind Complete).
func testClient(t *testing.T, v Vendor, newClient func(t *testing.T, s Server, retries int) model.Client) {
	ctx := context.Background()
	usage := model.Usage{Input: 1200, Output: 80, CacheRead: 300}
	if v.CacheWrites {
		usage.CacheWrite = 200
	}
	usage.Total = usage.Input + usage.Output + usage.CacheRead + usage.CacheWrite
	small := model.Usage{Input: 10, Output: 5, Total: 15}

	t.Run("a text answer comes back with its usage in ZERO's terms", func(t *testing.T) {
		f := newFake(t, v, v.Answer(Answer{Text: "It is sunny in Paris.", Usage: usage}))
		got, err := newClient(t, f.server(), 0).Complete(ctx, model.Request{
			Model: Model, System: "You are terse.", Messages: []model.Message{{Role: model.User, Content: "Weather in Paris?"}},
		})
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		want := model.Response{Text: "It is sunny in Paris.", StopReason: model.StopEnd, Usage: usage}
		if diff := cmp.Diff(want, got, sameArguments); diff != "" {
			t.Errorf("response (-want +got):\n%s", diff)
		}
		f.wantRequests(1)
	})

	t.Run("tool calls come back and their results go back in the next request", func(t *testing.T) {
		calls := []model.ToolCall{
			{ID: "call_paris", Name: weatherTool.Name, Arguments: `{"city":"Paris"}`},
			{ID: "call_rome", Name: weatherTool.Name, Arguments: `{"city":"Rome","days":2}`},
		}
		f := newFake(t, v,
			v.Answer(Answer{Text: "Let me check.", ToolCalls: calls, Usage: small}),
			v.Answer(Answer{Text: "Paris: 18°C. Rome: 12°C.", Usage: usage}),
		)
		c := newClient(t, f.server(), 0)
		req := model.Request{Model: Model, Tools: []model.ToolSpec{weatherTool},
			Messages: []model.Message{{Role: model.User, Content: "Weather in Paris and Rome?"}}}

		first, err := c.Complete(ctx, req)
		if err != nil {
			t.Fatalf("step 1: Complete: %v", err)
		}
		wantFirst := model.Response{Text: "Let me check.", ToolCalls: calls, StopReason: model.StopToolUse, Usage: small}
		if diff := cmp.Diff(wantFirst, first, sameArguments); diff != "" {
			t.Fatalf("step 1 response (-want +got):\n%s", diff)
		}

		// What the loop does: record the assistant turn, answer each call.
		results := []model.Message{
			{Role: model.ToolResult, ToolCallID: "call_paris", ToolName: weatherTool.Name, Content: "18°C, sunny"},
			{Role: model.ToolResult, ToolCallID: "call_rome", ToolName: weatherTool.Name, Content: "12°C, rain"},
		}
		req.Messages = append(req.Messages, model.Message{Role: model.Assistant, Content: first.Text, ToolCalls: first.ToolCalls})
		req.Messages = append(req.Messages, results...)
		second, err := c.Complete(ctx, req)
		if err != nil {
			t.Fatalf("step 2: Complete: %v", err)
		}
		wantSecond := model.Response{Text: "Paris: 18°C. Rome: 12°C.", StopReason: model.StopEnd, Usage: usage}
		if diff := cmp.Diff(wantSecond, second, sameArguments); diff != "" {
			t.Errorf("step 2 response (-want +got):\n%s", diff)
		}

		sent := f.wantRequests(2)
		wantSent := []Sent{
			{Tools: []string{weatherTool.Name}},
			{Tools: []string{weatherTool.Name}, Calls: calls, Results: []Result{
				{CallID: "call_paris", Content: "18°C, sunny"},
				{CallID: "call_rome", Content: "12°C, rain"},
			}},
		}
		if diff := cmp.Diff(wantSent, sent, sameArguments, ignoreWire, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("what the adapter sent (-want +got):\n%s", diff)
		}
	})

	t.Run("tool call arguments that are not JSON become a tool error, not a failure", func(t *testing.T) {
		bad := model.ToolCall{ID: "call_bad", Name: weatherTool.Name, Arguments: `{"city": "Par`}
		f := newFake(t, v,
			v.Answer(Answer{ToolCalls: []model.ToolCall{bad}, Usage: small}),
			v.Answer(Answer{Text: "Sorry, which city?", Usage: small}),
		)
		c := newClient(t, f.server(), 0)
		req := model.Request{Model: Model, Tools: []model.ToolSpec{weatherTool},
			Messages: []model.Message{{Role: model.User, Content: "Weather?"}}}

		first, err := c.Complete(ctx, req)
		if err != nil {
			t.Fatalf("step 1: Complete failed on a call with bad arguments: %v", err)
		}
		wantFirst := model.Response{ToolCalls: []model.ToolCall{bad}, StopReason: model.StopToolUse, Usage: small}
		if diff := cmp.Diff(wantFirst, first, ignoreArguments); diff != "" {
			t.Fatalf("step 1 response (-want +got):\n%s", diff)
		}
		// agent.Loop answers a call whose arguments are not a JSON object
		// with an error result instead of running the tool.
		if args := first.ToolCalls[0].Arguments; isObject(args) {
			t.Fatalf("step 1 arguments = %s: a JSON object, which the loop would run the tool with", args)
		}

		req.Messages = append(req.Messages,
			model.Message{Role: model.Assistant, Content: first.Text, ToolCalls: first.ToolCalls},
			model.Message{Role: model.ToolResult, ToolCallID: bad.ID, ToolName: bad.Name, IsError: true,
				Content: "the arguments are not a valid JSON object"},
		)
		second, err := c.Complete(ctx, req)
		if err != nil {
			t.Fatalf("step 2: Complete failed on a history with bad arguments: %v", err)
		}
		wantSecond := model.Response{Text: "Sorry, which city?", StopReason: model.StopEnd, Usage: small}
		if diff := cmp.Diff(wantSecond, second); diff != "" {
			t.Errorf("step 2 response (-want +got):\n%s", diff)
		}

		sent := f.wantRequests(2)
		wantSent := Sent{Tools: []string{weatherTool.Name}, Calls: []model.ToolCall{bad}, Results: []Result{
			{CallID: bad.ID, Content: "the arguments are not a valid JSON object", IsError: true},
		}}
		// The history may carry the bad arguments verbatim or replaced
		// (an API that wants an object gets {}): only the pairing matters.
		if diff := cmp.Diff(wantSent, sent[1], ignoreArguments, ignoreWire, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("step 2 request (-want +got):\n%s", diff)
		}
	})

	t.Run("a broken tool pairing is repaired before it is sent", func(t *testing.T) {
		testBrokenPairing(t, v, newClient)
	})

	t.Run("error answers are classified", func(t *testing.T) {
		tests := []struct {
			failure       Failure
			wantCode      fault.Code
			wantRetryable bool
			wantOverflow  bool
		}{
			{failure: RateLimited, wantCode: fault.RateLimited, wantRetryable: true},
			{failure: ServerError, wantCode: fault.Unavailable, wantRetryable: true},
			{failure: Unauthorized, wantCode: fault.Unauthorized, wantRetryable: false},
			{failure: ContextOverflow, wantCode: fault.Invalid, wantRetryable: false, wantOverflow: true},
		}
		for _, tc := range tests {
			t.Run(string(tc.failure), func(t *testing.T) {
				f := newFake(t, v, v.Fail(tc.failure))
				resp, err := newClient(t, f.server(), 0).Complete(ctx, model.Request{
					Model: Model, Messages: []model.Message{{Role: model.User, Content: "hi"}},
				})
				if err == nil {
					t.Fatalf("Complete = %+v, want an error", resp)
				}
				got := class{fault.CodeOf(err), fault.Retryable(err), errors.Is(err, model.ErrContextOverflow)}
				want := class{tc.wantCode, tc.wantRetryable, tc.wantOverflow}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("error %v (-want +got):\n%s", err, diff)
				}
				if fault.Message(err) == "" {
					t.Errorf("error %v has no user message", err)
				}
				f.wantRequests(1)
			})
		}
	})

	t.Run("a cancelled call stops promptly and its request is abandoned", func(t *testing.T) {
		f := newFake(t, v)
		f.hang = true
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		type result struct {
			resp model.Response
			err  error
		}
		done := make(chan result, 1)
		c := newClient(t, f.server(), 0)
		go func() {
			resp, err := c.Complete(ctx, model.Request{Model: Model, Messages: []model.Message{{Role: model.User, Content: "hi"}}})
			done <- result{resp, err}
		}()
		select {
		case <-f.arrived:
		case r := <-done:
			t.Fatalf("Complete returned %+v, %v before the server saw the request", r.resp, r.err)
		case <-time.After(10 * time.Second):
			t.Fatal("the request never reached the server")
		}

		cancel() // what /stop does to an in-flight model call
		cancelled := time.Now()
		select {
		case r := <-done:
			if r.err == nil {
				t.Fatalf("Complete = %+v, nil after cancellation; want an error", r.resp)
			}
			if !errors.Is(r.err, context.Canceled) {
				t.Errorf("Complete error = %v; want it to wrap context.Canceled", r.err)
			}
		case <-time.After(CancelWithin):
			t.Fatalf("Complete still running %v after its context was cancelled", CancelWithin)
		}
		select {
		case <-f.abandoned:
		case <-time.After(CancelWithin - time.Since(cancelled)):
			t.Errorf("the server's request was still open %v after the cancellation: it did not reach the HTTP request", CancelWithin)
		}
		f.wantRequests(1)
	})

	t.Run("a cancelled call stops promptly while it waits to retry", func(t *testing.T) {
		// A 429 that asks for a 30 s wait, on every attempt: a client that
		// waits out a retry delay after /stop holds the run for as long.
		slow := v.Fail(RateLimited)
		slow.Header = slow.Header.Clone()
		if slow.Header == nil {
			slow.Header = http.Header{}
		}
		slow.Header.Set("Retry-After", "30")
		slow.Header.Del("Retry-After-Ms")
		f := newFake(t, v, slow)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		done := make(chan error, 1)
		c := newClient(t, f.server(), 5)
		go func() {
			_, err := c.Complete(ctx, model.Request{Model: Model, Messages: []model.Message{{Role: model.User, Content: "hi"}}})
			done <- err
		}()
		select {
		case <-f.arrived:
		case err := <-done:
			t.Fatalf("Complete returned %v before the server saw the request", err)
		case <-time.After(10 * time.Second):
			t.Fatal("the request never reached the server")
		}
		time.Sleep(100 * time.Millisecond) // the client is now waiting to retry

		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Complete error = %v; want it to wrap context.Canceled", err)
			}
		case <-time.After(CancelWithin):
			t.Fatalf("Complete still running %v after its context was cancelled", CancelWithin)
		}
	})

	t.Run("an already cancelled context sends nothing", func(t *testing.T) {
		f := newFake(t, v, v.Answer(Answer{Text: "too late", Usage: small}))
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		resp, err := newClient(t, f.server(), 0).Complete(ctx, model.Request{Model: Model, Messages: []model.Message{{Role: model.User, Content: "hi"}}})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Complete = %+v, %v; want an error wrapping context.Canceled", resp, err)
		}
		f.wantRequests(0)
	})
}

// class is how an error is classified, for one diff of all three.
type class struct {
	Code      fault.Code
	Retryable bool // fault.Retryable
	Overflow  bool // errors.Is(err, model.ErrContextOverflow)
}

// sameArguments compares tool call arguments as JSON values when both are
// JSON (an adapter may re-encode them: key order and spacing may change),
// else as text.
var sameArguments = cmp.FilterPath(func(p cmp.Path) bool {
	sf, ok := p.Last().(cmp.StructField)
	return ok && sf.Name() == "Arguments"
}, cmp.Comparer(func(a, b string) bool {
	var va, vb any
	if json.Unmarshal([]byte(a), &va) != nil || json.Unmarshal([]byte(b), &vb) != nil {
		return a == b
	}
	return cmp.Equal(va, vb)
}))

// ignoreArguments leaves tool call arguments out of a comparison.
var ignoreArguments = cmpopts.IgnoreFields(model.ToolCall{}, "Arguments")

// ignoreWire leaves Sent.Wire, checked by the fake itself, out of a
// comparison.
var ignoreWire = cmpopts.IgnoreFields(Sent{}, "Wire")

// isObject reports whether args decode as a JSON object, the rule by which
// agent.Loop runs a call ("" counts as {}).
func isObject(args string) bool {
	if args == "" {
		return true
	}
	var obj map[string]json.RawMessage
	return json.Unmarshal([]byte(args), &obj) == nil
}

// fake is one subtest's provider: it answers with its replies in order
// (the last one repeats) and records what every request carried.
type fake struct {
	t       *testing.T
	v       Vendor
	srv     *httptest.Server
	replies []Reply

	// arrived is signalled when a request arrives. hang makes the server
	// answer nothing: it waits for the request's context to end and
	// signals abandoned (or gives up when the subtest ends).
	hang      bool
	arrived   chan struct{}
	abandoned chan struct{}
	done      chan struct{} // closed when the subtest ends
	// gate, when set, holds a streamed reply at its middle until it is
	// closed (see write).
	gate <-chan struct{}

	mu   sync.Mutex
	sent []Sent
}

func newFake(t *testing.T, v Vendor, replies ...Reply) *fake {
	t.Helper()
	f := &fake{t: t, v: v, replies: replies,
		arrived: make(chan struct{}, 1), abandoned: make(chan struct{}, 1), done: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	t.Cleanup(func() { close(f.done) }) // runs first: a hanging handler lets Close finish
	return f
}

func (f *fake) server() Server { return Server{URL: f.srv.URL, Client: f.srv.Client()} }

// serve runs on the server's goroutine: it reports with Errorf, never
// Fatal.
func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("fake provider: reading the request body: %v", err)
	}
	sent, refusal, refused, err := f.v.Check(body)
	if err != nil {
		f.t.Errorf("fake provider: the request is not in the vendor's format: %v\n%s", err, body)
	}
	f.mu.Lock()
	f.sent = append(f.sent, sent)
	n := len(f.sent)
	f.mu.Unlock()

	select {
	case f.arrived <- struct{}{}:
	default: // an earlier request's arrival is still unread
	}
	if refused {
		write(w, refusal, nil)
		return
	}
	if f.hang {
		select {
		case <-r.Context().Done():
			f.abandoned <- struct{}{}
		case <-f.done:
		}
		return
	}
	if len(f.replies) == 0 {
		f.t.Errorf("fake provider: request %d, but the subtest scripted no answer", n)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	write(w, f.replies[min(n, len(f.replies))-1], f.gate)
}

// write sends rep, as application/json unless its header says otherwise.
func write(w http.ResponseWriter, rep Reply, gate <-chan struct{}) {
	for k, vs := range rep.Header {
		w.Header()[k] = vs
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(rep.Status)
	if rep.Parts == nil {
		_, _ = io.WriteString(w, rep.Body)
		return
	}
	flusher, _ := w.(http.Flusher)
	for i, part := range rep.Parts {
		if i == len(rep.Parts)/2 && gate != nil {
			// Half the answer is out: hold the rest until the client has
			// shown a delta, so a client that buffers the whole stream
			// before it reports anything is caught.
			select {
			case <-gate:
			case <-time.After(liveWait):
			}
		}
		_, _ = io.WriteString(w, part)
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// wantRequests checks that the server got n requests and returns what
// they carried.
func (f *fake) wantRequests(n int) []Sent {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.sent) != n {
		f.t.Fatalf("the server got %d requests, want %d", len(f.sent), n)
	}
	return append([]Sent(nil), f.sent...)
}

// testBrokenPairing sends a history with all three pairing faults and
// checks that the fake accepted it and what went out, then that the fake
// refuses what was wrong and the adapter classifies that refusal.
func testBrokenPairing(t *testing.T, v Vendor, newClient func(t *testing.T, s Server, retries int) model.Client) {
	ctx := context.Background()
	small := model.Usage{Input: 10, Output: 5, Total: 15}
	calls := []model.ToolCall{
		{ID: "call_paris", Name: weatherTool.Name, Arguments: `{"city":"Paris"}`},
		{ID: "call_rome", Name: weatherTool.Name, Arguments: `{"city":"Rome"}`},
	}
	f := newFake(t, v, v.Answer(Answer{Text: "Rome: 12°C.", Usage: small}))
	got, err := newClient(t, f.server(), 0).Complete(ctx, model.Request{Model: Model, Tools: []model.ToolSpec{weatherTool},
		Messages: []model.Message{
			{Role: model.User, Content: "Weather in Paris and Rome?"},
			// An orphan: it answers no call (left from a compacted turn).
			{Role: model.ToolResult, ToolCallID: "call_stale", ToolName: weatherTool.Name, Content: "stale forecast"},
			{Role: model.Assistant, Content: "Let me check.", ToolCalls: calls},
			// Arrived while the tools ran: the result after it is out of place.
			{Role: model.User, Content: "Quickly, please."},
			{Role: model.ToolResult, ToolCallID: "call_rome", ToolName: weatherTool.Name, Content: "12°C, rain"},
			// call_paris has no result: the run was stopped.
		}})
	if err != nil {
		t.Fatalf("Complete: %v (did the adapter send the broken pairing as is?)", err)
	}
	if diff := cmp.Diff(model.Response{Text: "Rome: 12°C.", StopReason: model.StopEnd, Usage: small}, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}

	sent := f.wantRequests(1)[0]
	want := Sent{Tools: []string{weatherTool.Name}, Calls: calls, Results: []Result{
		{CallID: "call_rome", Content: "12°C, rain"},
		{CallID: "call_paris", Content: model.MissingToolResult, IsError: true},
	}}
	if diff := cmp.Diff(want, sent, sameArguments, ignoreWire, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("what the adapter sent (-want +got):\n%s", diff)
	}
	if !wireSays(sent.Wire, "stale forecast") {
		t.Errorf("the orphan result's text was not sent: wire %+v", sent.Wire)
	}
	checkRefusal(t, v, newClient, sent.Wire)
}

// checkRefusal checks that the fake would refuse wire with its results
// taken out, and that the adapter classifies the vendor's refusal as
// fault.Invalid, neither retryable nor an overflow.
func checkRefusal(t *testing.T, v Vendor, newClient func(t *testing.T, s Server, retries int) model.Client, wire []WireMessage) {
	t.Helper()
	var stripped []WireMessage
	for _, m := range wire {
		m.Results = nil
		if m.Role != "tool" {
			stripped = append(stripped, m)
		}
	}
	u, bad := CheckPairing(stripped)
	if !bad || u.Orphan || len(u.IDs) != 2 {
		t.Fatalf("CheckPairing(the request without its results) = %+v, %v; want its two calls unanswered\nwire: %+v", u, bad, stripped)
	}
	f := newFake(t, v, v.Refuse(u))
	_, err := newClient(t, f.server(), 0).Complete(context.Background(), model.Request{
		Model: Model, Messages: []model.Message{{Role: model.User, Content: "hi"}},
	})
	got := class{fault.CodeOf(err), fault.Retryable(err), errors.Is(err, model.ErrContextOverflow)}
	if diff := cmp.Diff(class{Code: fault.Invalid}, got); diff != "" || fault.Message(err) == "" {
		t.Errorf("the provider's pairing refusal: error %v (-want +got):\n%s", err, diff)
	}
}

// wireSays reports whether a message of wire has text containing s.
func wireSays(wire []WireMessage, s string) bool {
	for _, m := range wire {
		if strings.Contains(m.Text, s) {
			return true
		}
	}
	return false
}
