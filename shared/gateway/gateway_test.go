package gateway

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
)

func TestAuth(t *testing.T) {
	body := []byte(`{"method":"config.schema","params":{}}`)
	tests := []struct {
		name   string
		token  string // the gateway's
		auth   string // the request's
		status int
	}{
		{"missing header", testToken, "", http.StatusUnauthorized},
		{"wrong token", testToken, "Bearer nope", http.StatusUnauthorized},
		{"token prefix", testToken, "Bearer " + testToken[:4], http.StatusUnauthorized},
		{"other scheme", testToken, "Basic " + testToken, http.StatusUnauthorized},
		{"bare token", testToken, testToken, http.StatusUnauthorized},
		{"right token", testToken, "Bearer " + testToken, http.StatusOK},
		{"scheme is case-insensitive", testToken, "bearer " + testToken, http.StatusOK},
		{"no token configured refuses all", "", "Bearer ", http.StatusUnauthorized},
		{"a blank token is no token", " \n", "Bearer  ", http.StatusUnauthorized},
		{"the configured token is trimmed", testToken + "\n", "Bearer " + testToken, http.StatusOK},
		{"no token configured refuses a guess", "", "Bearer " + testToken, http.StatusUnauthorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", func(d *Deps) { d.Token = tc.token })
			r := f.do(http.MethodPost, tc.auth, body)
			if r.status != tc.status {
				t.Fatalf("status %d; want %d (%+v)", r.status, tc.status, r.Error)
			}
			if tc.status == http.StatusUnauthorized && (r.Error == nil || r.Error.Code != fault.Unauthorized) {
				t.Fatalf("error %+v; want code unauthorized", r.Error)
			}
		})
	}
}

func TestRequestErrors(t *testing.T) {
	auth := "Bearer " + testToken
	tests := []struct {
		name    string
		method  string
		body    string
		status  int
		message string
	}{
		{"GET", http.MethodGet, "", http.StatusMethodNotAllowed, "use POST"},
		{"PUT", http.MethodPut, `{"method":"status"}`, http.StatusMethodNotAllowed, "use POST"},
		{"malformed JSON", http.MethodPost, `{"method":`, http.StatusBadRequest, ""},
		{"not an object", http.MethodPost, `[1]`, http.StatusBadRequest, ""},
		{"trailing data", http.MethodPost, `{"method":"status"} {}`, http.StatusBadRequest, ""},
		{"no method", http.MethodPost, `{"params":{}}`, http.StatusBadRequest, "method: required"},
		{"unknown method", http.MethodPost, `{"method":"x"}`, http.StatusBadRequest, `unknown method "x"`},
		{"unknown params field", http.MethodPost, `{"method":"sessions.list","params":{"bogus":1}}`, http.StatusBadRequest, "params.bogus: unknown field"},
		{"wrong params type", http.MethodPost, `{"method":"sessions.list","params":{"limit":"ten"}}`, http.StatusBadRequest, "params.limit: must be an integer, got string"},
		{"params not an object", http.MethodPost, `{"method":"sessions.list","params":[1]}`, http.StatusBadRequest, "params: must be a JSON object"},
		{"body too big", http.MethodPost, `{"method":"status","params":{},"pad":"` + strings.Repeat("x", MaxBodyBytes) + `"}`, http.StatusRequestEntityTooLarge, ""},
		{"absent params read as {}", http.MethodPost, `{"method":"config.schema"}`, http.StatusOK, ""},
		{"extra top-level fields are ignored", http.MethodPost, `{"id":7,"method":"config.schema","params":null}`, http.StatusOK, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "")
			r := f.do(tc.method, auth, []byte(tc.body))
			if r.status != tc.status {
				t.Fatalf("status %d; want %d (%+v)", r.status, tc.status, r.Error)
			}
			if tc.status == http.StatusOK {
				return
			}
			if r.OK || r.Error == nil {
				t.Fatalf("answer %+v; want an error", r)
			}
			if tc.message != "" && r.Error.Message != tc.message {
				t.Fatalf("message %q; want %q", r.Error.Message, tc.message)
			}
		})
	}
}

func TestAgent(t *testing.T) {
	const denyAll = `{session: {sendPolicy: {default: "deny"}}}`
	tests := []struct {
		name   string
		doc    string
		seed   map[string]session.Entry
		params map[string]any
		// want is the queued message (ID checked apart); zero: nothing queued
		want    inbound.Message
		wantKey string // the answer's sessionKey
		status  int
		message string
	}{
		{
			name:   "default session, not delivered",
			params: map[string]any{"message": "hi", "idempotencyKey": "k1"},
			want: inbound.Message{Provenance: inbound.Owner, ID: "api:k1", AgentID: "main", SessionKey: "agent:main:main", Channel: "internal",
				ChatType: "direct", To: "api", Text: "hi", ReceivedAt: testNow.UnixMilli()},
			wantKey: "agent:main:main", status: http.StatusOK,
		},
		{
			name:   "agent from the key",
			params: map[string]any{"message": "hi", "idempotencyKey": "k1", "sessionKey": "agent:Work:main"},
			want: inbound.Message{Provenance: inbound.Owner, ID: "api:k1", AgentID: "work", SessionKey: "agent:work:main", Channel: "internal",
				ChatType: "direct", To: "api", Text: "hi", ReceivedAt: testNow.UnixMilli()},
			wantKey: "agent:work:main", status: http.StatusOK,
		},
		{
			name:   "agentId and the main alias",
			doc:    `{agents: {list: [{id: "main"}, {id: "ops"}]}}`,
			params: map[string]any{"message": "hi", "idempotencyKey": "k1", "agentId": "ops", "sessionKey": "main"},
			want: inbound.Message{Provenance: inbound.Owner, ID: "api:k1", AgentID: "ops", SessionKey: "agent:ops:main", Channel: "internal",
				ChatType: "direct", To: "api", Text: "hi", ReceivedAt: testNow.UnixMilli()},
			wantKey: "agent:ops:main", status: http.StatusOK,
		},
		{
			name:   "global scope shows main",
			doc:    `{session: {scope: "global"}}`,
			params: map[string]any{"message": "hi", "idempotencyKey": "k1"},
			want: inbound.Message{Provenance: inbound.Owner, ID: "api:k1", AgentID: "main", SessionKey: "global", Channel: "internal",
				ChatType: "direct", To: "api", Text: "hi", ReceivedAt: testNow.UnixMilli()},
			wantKey: "main", status: http.StatusOK,
		},
		{
			name:   "by sessionId",
			seed:   map[string]session.Entry{"agent:main:telegram:group:-5": {SessionID: "sid-5", AgentID: "main", UpdatedAt: 1}},
			params: map[string]any{"message": "hi", "idempotencyKey": "k1", "sessionId": "sid-5"},
			want: inbound.Message{Provenance: inbound.Owner, ID: "api:k1", AgentID: "main", SessionKey: "agent:main:telegram:group:-5", Channel: "internal",
				ChatType: "direct", To: "api", Text: "hi", ReceivedAt: testNow.UnixMilli()},
			wantKey: "agent:main:telegram:group:-5", status: http.StatusOK,
		},
		{
			name:   "delivered when the policy allows",
			params: map[string]any{"message": "hi", "idempotencyKey": "k1", "deliver": true, "channel": "Telegram", "to": "42", "accountId": "bot", "threadId": "7"},
			want: inbound.Message{Provenance: inbound.Owner, ID: "api:k1", AgentID: "main", SessionKey: "agent:main:main", Channel: "telegram", AccountID: "bot",
				ChatType: "direct", To: "42", ThreadID: "7", Text: "hi", ReceivedAt: testNow.UnixMilli()},
			wantKey: "agent:main:main", status: http.StatusOK,
		},
		{
			name:   "the entry's allow overrides a deny config",
			doc:    denyAll,
			seed:   map[string]session.Entry{"agent:main:main": {SessionID: "s1", AgentID: "main", SendPolicy: "allow", UpdatedAt: 1}},
			params: map[string]any{"message": "hi", "idempotencyKey": "k1", "deliver": true, "channel": "telegram", "to": "42"},
			want: inbound.Message{Provenance: inbound.Owner, ID: "api:k1", AgentID: "main", SessionKey: "agent:main:main", Channel: "telegram",
				ChatType: "direct", To: "42", Text: "hi", ReceivedAt: testNow.UnixMilli()},
			wantKey: "agent:main:main", status: http.StatusOK,
		},
		{
			name:    "config denies sending",
			doc:     denyAll,
			params:  map[string]any{"message": "hi", "deliver": true, "channel": "telegram", "to": "42"},
			status:  http.StatusBadRequest,
			message: "sending is denied for this session by session.sendPolicy",
		},
		{
			name:    "a rule denies the channel",
			doc:     `{session: {sendPolicy: {rules: [{action: "deny", match: {channel: "telegram", chatType: "direct"}}]}}}`,
			params:  map[string]any{"message": "hi", "deliver": true, "channel": "telegram", "to": "42"},
			status:  http.StatusBadRequest,
			message: "sending is denied for this session by session.sendPolicy",
		},
		{
			name:    "the entry's deny override",
			seed:    map[string]session.Entry{"agent:main:main": {SessionID: "s1", AgentID: "main", SendPolicy: "deny", UpdatedAt: 1}},
			params:  map[string]any{"message": "hi", "deliver": true, "channel": "telegram", "to": "42"},
			status:  http.StatusBadRequest,
			message: "sending is denied for this session by session.sendPolicy",
		},
		{name: "no message", params: map[string]any{"sessionKey": "main"}, status: http.StatusBadRequest, message: "params.message: required"},
		{name: "blank message", params: map[string]any{"message": "  "}, status: http.StatusBadRequest, message: "params.message: required"},
		{name: "deliver without channel", params: map[string]any{"message": "hi", "deliver": true, "to": "42"}, status: http.StatusBadRequest, message: "params.channel: required when deliver is true"},
		{name: "deliver without to", params: map[string]any{"message": "hi", "deliver": true, "channel": "telegram"}, status: http.StatusBadRequest, message: "params.to: required when deliver is true"},
		{name: "bad thinking", params: map[string]any{"message": "hi", "thinking": "max"}, status: http.StatusBadRequest},
		{name: "negative timeout", params: map[string]any{"message": "hi", "timeout": -1}, status: http.StatusBadRequest, message: "params.timeout: must be a number of seconds >= 0, got -1"},
		{name: "deliver is a boolean", params: map[string]any{"message": "hi", "deliver": "yes"}, status: http.StatusBadRequest, message: "params.deliver: must be a boolean, got string"},
		{name: "unknown sessionId", params: map[string]any{"message": "hi", "sessionId": "nope"}, status: http.StatusNotFound, message: `params.sessionId: no session has id "nope"`},
		{name: "agentId contradicts the key", params: map[string]any{"message": "hi", "agentId": "ops", "sessionKey": "agent:work:main"}, status: http.StatusBadRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.doc)
			for k, e := range tc.seed {
				f.seed(k, e)
			}
			r := f.call("agent", tc.params)
			if tc.status != http.StatusOK {
				r.wantError(t, tc.status, codeFor(tc.status), tc.message)
				if n := len(f.queue.messages()); n != 0 {
					t.Fatalf("%d messages queued; want none", n)
				}
				return
			}
			var got AgentAccepted
			r.decode(t, &got)
			if got.Status != "accepted" || got.AcceptedAt != testNow.UnixMilli() || got.SessionKey != tc.wantKey || got.RunID != run.NewID(tc.want.ID) {
				t.Fatalf("answer %+v; want accepted at %d, key %s, run %s", got, testNow.UnixMilli(), tc.wantKey, run.NewID(tc.want.ID))
			}
			msgs := f.queue.messages()
			if len(msgs) != 1 || !cmp.Equal(msgs[0], tc.want) {
				t.Fatalf("queued %+v; want %+v", msgs, tc.want)
			}
		})
	}
}

// codeFor is the fault code the gateway answers with status.
func codeFor(status int) fault.Code {
	switch status {
	case http.StatusNotFound:
		return fault.NotFound
	case http.StatusNotImplemented, http.StatusInternalServerError:
		return fault.Internal
	}
	return fault.Invalid
}

func TestAgentIdempotency(t *testing.T) {
	f := newFixture(t, "")
	var first, second AgentAccepted
	f.call("agent", map[string]any{"message": "hi", "idempotencyKey": "same"}).decode(t, &first)
	f.now = f.now.Add(time.Second) // a retry, a moment later
	f.call("agent", map[string]any{"message": "hi", "idempotencyKey": "same"}).decode(t, &second)
	if first.RunID != second.RunID || first.RunID != run.NewID("api:same") {
		t.Fatalf("runIds %s, %s; want both %s", first.RunID, second.RunID, run.NewID("api:same"))
	}
	if msgs := f.queue.messages(); f.queue.calls != 2 || len(msgs) != 1 || msgs[0].ID != "api:same" {
		t.Fatalf("enqueued %d times, queue holds %+v; want the same id twice, deduplicated to one", f.queue.calls, msgs)
	}

	// Without a key every call is a new message and a new run.
	var a, b AgentAccepted
	f.call("chat.send", map[string]any{"message": "hi"}).decode(t, &a)
	f.call("chat.send", map[string]any{"message": "hi"}).decode(t, &b)
	if a.RunID == b.RunID {
		t.Fatalf("two calls without idempotencyKey share run %s", a.RunID)
	}
}

func TestAgentLabel(t *testing.T) {
	f := newFixture(t, "")
	f.seed("agent:main:main", session.Entry{SessionID: "s1", AgentID: "main", UpdatedAt: 1})
	var got AgentAccepted
	f.call("agent", map[string]any{"message": "hi", "label": " Research ", "spawnedBy": "agent:main:main"}).decode(t, &got)
	e, err := f.sessions.Get(context.Background(), "agent:main:main")
	if err != nil || e.Label != "Research" || e.SpawnedBy != "agent:main:main" {
		t.Fatalf("entry %+v, %v; want label and spawnedBy set", e, err)
	}
	// An absent session is not created by the label: the runner creates it.
	f.call("agent", map[string]any{"message": "hi", "sessionKey": "agent:main:dm:bob", "label": "Bob"}).decode(t, &got)
	if _, err := f.sessions.Get(context.Background(), "agent:main:dm:bob"); !fault.Is(err, fault.NotFound) {
		t.Fatalf("absent session: Get = %v; want NotFound", err)
	}
	if n := len(f.queue.messages()); n != 2 {
		t.Fatalf("%d messages queued; want 2", n)
	}
}

func TestChatSend(t *testing.T) {
	f := newFixture(t, "")
	var got AgentAccepted
	f.call("chat.send", map[string]any{"message": "hello", "sessionKey": "main", "idempotencyKey": "c1"}).decode(t, &got)
	msgs := f.queue.messages()
	if got.RunID != run.NewID("api:c1") || len(msgs) != 1 || msgs[0].Channel != "internal" || msgs[0].SessionKey != "agent:main:main" {
		t.Fatalf("answer %+v, queued %+v", got, msgs)
	}
	f.call("chat.send", map[string]any{"sessionKey": "main"}).wantError(t, http.StatusBadRequest, fault.Invalid, "params.message: required")
	f.call("chat.send", map[string]any{"message": "x", "deliver": true}).wantError(t, http.StatusBadRequest, fault.Invalid, "params.deliver: unknown field")
}

func TestAgentWait(t *testing.T) {
	ctx := context.Background()
	const started, ended = 1000, 5000
	tests := []struct {
		name      string
		record    *run.Record // stored before the wait; nil: the run does not exist
		timeoutMs any
		want      WaitResult
	}{
		{"before the run exists", nil, 300, WaitResult{RunID: "run_x", Status: "timeout"}},
		{"while it runs", &run.Record{Status: run.StatusRunning}, 300, WaitResult{RunID: "run_x", Status: "timeout", StartedAt: started}},
		{"after it ended", &run.Record{Status: run.StatusOK, EndedAt: ended}, nil, WaitResult{RunID: "run_x", Status: "ok", StartedAt: started, EndedAt: ended}},
		{"after it failed", &run.Record{Status: run.StatusError, EndedAt: ended, Error: "model refused"}, 0, WaitResult{RunID: "run_x", Status: "error", StartedAt: started, EndedAt: ended, Error: "model refused"}},
		{"after it was aborted", &run.Record{Status: run.StatusAborted, EndedAt: ended}, 0, WaitResult{RunID: "run_x", Status: "error", StartedAt: started, EndedAt: ended, Error: "aborted"}},
		{"after the run timed out", &run.Record{Status: run.StatusTimeout, EndedAt: ended, Error: "run timed out"}, 0, WaitResult{RunID: "run_x", Status: "timeout", StartedAt: started, EndedAt: ended, Error: "run timed out"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "")
			if rec := tc.record; rec != nil {
				if err := f.runs.Start(ctx, run.Record{RunID: "run_x", StartedAt: started}, nil); err != nil {
					t.Fatal(err)
				}
				if run.Terminal(rec.Status) {
					rec.RunID = "run_x"
					if err := f.runs.Finish(ctx, *rec, nil); err != nil {
						t.Fatal(err)
					}
				}
			}
			params := map[string]any{"runId": "run_x"}
			if tc.timeoutMs != nil {
				params["timeoutMs"] = tc.timeoutMs
			}
			begin := time.Now()
			var got WaitResult
			f.call("agent.wait", params).decode(t, &got)
			if got != tc.want {
				t.Fatalf("got %+v; want %+v", got, tc.want)
			}
			if took := time.Since(begin); took > 5*time.Second {
				t.Fatalf("took %v", took)
			}
		})
	}

	t.Run("the run starts and ends during the wait", func(t *testing.T) {
		f := newFixture(t, "")
		go func() {
			time.Sleep(150 * time.Millisecond)
			f.runs.Start(ctx, run.Record{RunID: "run_y", StartedAt: started}, nil)
			time.Sleep(150 * time.Millisecond)
			f.runs.Finish(ctx, run.Record{RunID: "run_y", Status: run.StatusOK, EndedAt: ended}, nil)
		}()
		var got WaitResult
		f.call("agent.wait", map[string]any{"runId": "run_y", "timeoutMs": 5000}).decode(t, &got)
		if got.Status != "ok" || got.EndedAt != ended {
			t.Fatalf("got %+v; want ok", got)
		}
	})

	t.Run("bad params", func(t *testing.T) {
		f := newFixture(t, "")
		f.call("agent.wait", map[string]any{}).wantError(t, http.StatusBadRequest, fault.Invalid, "params.runId: required")
		f.call("agent.wait", map[string]any{"runId": "r", "timeoutMs": -1}).wantError(t, http.StatusBadRequest, fault.Invalid, "params.timeoutMs: must be >= 0, got -1")
	})
}

func TestWaitTimeout(t *testing.T) {
	ms := func(v int64) *int64 { return &v }
	tests := []struct {
		name string
		in   *int64
		want time.Duration
	}{
		{"default is 30 s, clamped", nil, MaxWait},
		{"zero checks now", ms(0), time.Millisecond},
		{"as asked", ms(1500), 1500 * time.Millisecond},
		{"clamped to MaxWait", ms(60_000), MaxWait},
		{"huge", ms(1 << 62), MaxWait},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := waitTimeout(tc.in); got != tc.want {
				t.Fatalf("waitTimeout = %v; want %v", got, tc.want)
			}
		})
	}
}

// TestNoSecretsInErrors: a failing store's cause goes to the log, not to
// the caller.
func TestNoSecretsInErrors(t *testing.T) {
	var logs bytes.Buffer
	f := newFixture(t, "", func(d *Deps) {
		d.Queue = failingQueue{}
		d.Log = newTestLogger(&logs)
	})
	r := f.call("agent", map[string]any{"message": "hi"})
	r.wantError(t, http.StatusServiceUnavailable, fault.Unavailable, "the queue is busy")
	if !strings.Contains(logs.String(), "AKIA-secret-detail") {
		t.Fatalf("the cause is not logged: %s", logs.String())
	}
	if strings.Contains(logs.String(), testToken) {
		t.Fatal("the token was logged")
	}
}

type failingQueue struct{}

func (failingQueue) Enqueue(context.Context, inbound.Message) error {
	return fault.Wrap(fault.Unavailable, errFake("AKIA-secret-detail"), "the queue is busy")
}

type errFake string

func (e errFake) Error() string { return string(e) }
