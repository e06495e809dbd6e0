package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run/runtest"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/transcript"
	"github.com/zero-gateway/zero/shared/transcript/transcripttest"
	"github.com/zero-gateway/zero/shared/turn/turntest"
)

const testToken = "s3cret-token"

// memConfig is an in-memory ConfigStore: versions count 1, 2, 3, ...
type memConfig struct {
	mu      sync.Mutex
	data    []byte
	version int
	puts    int
}

func (c *memConfig) Fetch(context.Context) ([]byte, string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version == 0 {
		return nil, "", fault.New(fault.NotFound, "no config parameter")
	}
	return bytes.Clone(c.data), strconv.Itoa(c.version), nil
}

func (c *memConfig) Put(_ context.Context, data []byte) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.puts++
	c.version++
	c.data = bytes.Clone(data)
	return strconv.Itoa(c.version), nil
}

// parsedSettings parses the stored document on every call (a cache with
// a zero TTL), so a config.patch applies at once in tests.
type parsedSettings struct{ store *memConfig }

func (s parsedSettings) Current(ctx context.Context) (*config.Config, error) {
	raw, _, err := s.store.Fetch(ctx)
	if fault.Is(err, fault.NotFound) {
		return config.Default(), nil
	}
	if err != nil {
		return nil, err
	}
	return config.Parse(raw)
}

// recordingQueue records what is enqueued and, as a FIFO queue does,
// drops a message whose dedup id it has seen.
type recordingQueue struct {
	mu    sync.Mutex
	calls int
	seen  map[string]bool
	msgs  []inbound.Message
}

func (q *recordingQueue) Enqueue(_ context.Context, m inbound.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.calls++
	if q.seen == nil {
		q.seen = map[string]bool{}
	}
	if q.seen[m.QueueDedup()] {
		return nil
	}
	q.seen[m.QueueDedup()] = true
	q.msgs = append(q.msgs, m)
	return nil
}

func (q *recordingQueue) messages() []inbound.Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]inbound.Message(nil), q.msgs...)
}

// fixture is a gateway over in-memory stores.
type fixture struct {
	t        *testing.T
	handler  http.Handler
	sessions *turntest.MemStore
	runs     *runtest.MemStore
	bucket   *transcripttest.MemBucket
	log      *transcript.Log
	queue    *recordingQueue
	config   *memConfig
	now      time.Time
}

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// newFixture returns a fixture whose stored config is doc ("" stores
// none); deps may change the Deps before the handler is built.
func newFixture(t *testing.T, doc string, deps ...func(*Deps)) *fixture {
	t.Helper()
	f := &fixture{
		t: t, sessions: turntest.NewMemStore(), runs: runtest.NewMemStore(),
		bucket: transcripttest.NewMemBucket(), queue: &recordingQueue{}, config: &memConfig{}, now: testNow,
	}
	f.log = transcript.NewLog(f.bucket)
	if doc != "" {
		f.config.Put(context.Background(), []byte(doc))
		f.config.puts = 0
	}
	d := Deps{
		Token: testToken, Settings: parsedSettings{f.config}, Config: f.config, Sessions: f.sessions,
		Runs: f.runs, Transcripts: f.log, Queue: f.queue, Now: func() time.Time { return f.now },
		Log: slog.New(slog.DiscardHandler),
	}
	for _, fn := range deps {
		fn(&d)
	}
	f.handler = New(d)
	return f
}

// seed stores an entry under key as the runner would (a turn commit).
func (f *fixture) seed(key string, e session.Entry) {
	f.t.Helper()
	e.Version = 1
	if err := f.sessions.Commit(context.Background(), key, e, sessionstate.ModelContext{SessionID: e.SessionID},
		receipt.Receipt{MessageID: "seed:" + key, SessionKey: key}); err != nil {
		f.t.Fatalf("seed %s: %v", key, err)
	}
}

// writeTranscript stores lines as part seq of the session's transcript.
func (f *fixture) writeTranscript(path string, seq int64, lines ...any) {
	f.t.Helper()
	if err := f.log.WritePart(context.Background(), path, seq, lines); err != nil {
		f.t.Fatalf("write transcript: %v", err)
	}
}

// response is a decoded answer.
type response struct {
	status int
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *ErrorBody      `json:"error"`
}

// call posts {method, params} with the test token.
func (f *fixture) call(method string, params any) response {
	f.t.Helper()
	body, err := json.Marshal(map[string]any{"method": method, "params": params})
	if err != nil {
		f.t.Fatal(err)
	}
	return f.do(http.MethodPost, "Bearer "+testToken, body)
}

func (f *fixture) do(httpMethod, auth string, body []byte) response {
	f.t.Helper()
	req := httptest.NewRequest(httpMethod, "/rpc", bytes.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	var r response
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
		f.t.Fatalf("%s: answer is not JSON: %v: %s", httpMethod, err, rec.Body.String())
	}
	r.status = rec.Code
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		f.t.Errorf("Content-Type %q", ct)
	}
	return r
}

// decode decodes r's result into dst, failing unless r is a success.
func (r response) decode(t *testing.T, dst any) {
	t.Helper()
	if r.status != http.StatusOK || !r.OK {
		t.Fatalf("status %d, error %+v; want success", r.status, r.Error)
	}
	if err := json.Unmarshal(r.Result, dst); err != nil {
		t.Fatalf("decode result: %v: %s", err, r.Result)
	}
}

// wantError checks r is the error status/code and its message is msg.
func (r response) wantError(t *testing.T, status int, code fault.Code, msg string) {
	t.Helper()
	if r.status != status || r.OK || r.Error == nil || r.Error.Code != code {
		t.Fatalf("got status %d ok %v error %+v; want %d %s", r.status, r.OK, r.Error, status, code)
	}
	if msg != "" && r.Error.Message != msg {
		t.Fatalf("message %q; want %q", r.Error.Message, msg)
	}
}

// textLine is a transcript message line.
func textLine(id, role, text string) transcript.Line {
	return transcript.Line{Type: "message", ID: id, Timestamp: "2026-03-01T12:00:00.000Z",
		Message: &transcript.Message{Role: role, Content: []transcript.Content{{Type: "text", Text: text}}, Timestamp: 1}}
}

func newTestLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
