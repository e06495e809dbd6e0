package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/transcript"
)

var update = flag.Bool("update", false, "rewrite testdata/wire/*.json from the gateway's answers")

// wireCase is one recorded call: the params sent and the golden answer
// in testdata/wire/<name>.json (indented there; compared compact, byte
// for byte, with what the handler writes).
type wireCase struct {
	name   string
	method string
	params string // the request's params, as a client sends them
	status int    // 0: 200
}

func (tc wireCase) wantStatus() int {
	if tc.status == 0 {
		return http.StatusOK
	}
	return tc.status
}

// wireType makes a method's exported params and result, to decode into.
type wireType struct{ params, result func() any }

func typesOf[P, R any]() wireType {
	return wireType{func() any { return new(P) }, func() any { return new(R) }}
}

// wireCases run in order against one fixture (wireFixture): later calls
// see what earlier ones changed.
var wireCases = []wireCase{
	{name: "status", method: "status", params: `{}`},
	{name: "config.get", method: "config.get", params: `{}`},
	{name: "sessions.list", method: "sessions.list",
		params: `{"agentId":"main","kinds":["main","group"],"limit":2,"activeMinutes":60,"messageLimit":1,"includeGlobal":true,"includeUnknown":true}`},
	{name: "sessions.resolve", method: "sessions.resolve", params: `{"label":"home","agentId":"main"}`},
	{name: "chat.history", method: "chat.history", params: `{"sessionKey":"main","limit":3,"includeTools":true}`},
	{name: "chat.history.html", method: "chat.history", params: `{"sessionId":"h1"}`},
	{name: "chat.transcript", method: "chat.transcript", params: `{"sessionKey":"main","parts":2}`},
	{name: "chat.transcript.cost", method: "chat.transcript", params: `{"sessionKey":"agent:main:runs","parts":2}`},
	{name: "sessions.runs", method: "sessions.runs", params: `{"sessionKey":"agent:main:runs","limit":5}`},
	{name: "agent", method: "agent",
		params: `{"message":"hi <there> & you","sessionKey":"main","channel":"telegram","to":"42","accountId":"bot","threadId":"7","deliver":true,` +
			`"thinking":"low","timeout":60,"extraSystemPrompt":"be brief","label":"Home","spawnedBy":"agent:main:main","idempotencyKey":"wire-1"}`},
	{name: "chat.send", method: "chat.send", params: `{"message":"hello","sessionId":"` + mainSID + `","idempotencyKey":"wire-2"}`},
	{name: "agent.wait", method: "agent.wait", params: `{"runId":"` + wireRunID + `","timeoutMs":0}`},
	{name: "agent.events", method: "agent.events", params: `{"runId":"` + wireRunID + `","afterSeq":1,"limit":10}`},
	{name: "sessions.patch", method: "sessions.patch",
		params: `{"key":"` + groupKey + `","label":"Kin","sendPolicy":"allow","model":"openai/gpt-5","thinkingLevel":"high","verboseLevel":"on","reasoningLevel":"stream","queueMode":"steer"}`},
	{name: "config.patch", method: "config.patch", params: `{"patch":{"session":{"sendPolicy":{"default":"allow"}}}}`},
	{name: "config.patch.raw", method: "config.patch", params: `{"raw":"{agents: {defaults: {timeoutSeconds: 600}}} // <b> & c\n"}`},
	{name: "sessions.delete", method: "sessions.delete", params: `{"key":"` + topicKey + `","deleteTranscript":true}`},
	{name: "error.invalid", method: "agent", params: `{"sessionKey":"main"}`, status: http.StatusBadRequest},
	{name: "error.params", method: "sessions.list", params: `{"limit":"ten"}`, status: http.StatusBadRequest},
	{name: "error.notFound", method: "sessions.patch", params: `{"key":"nobody","label":"x"}`, status: http.StatusNotFound},
}

// wireTypes are the exported params and result types of every method.
var wireTypes = map[string]wireType{
	"status":           typesOf[struct{}, StatusResult](),
	"config.get":       typesOf[struct{}, ConfigGetResult](),
	"config.patch":     typesOf[ConfigPatchParams, ConfigPatchResult](),
	"sessions.list":    typesOf[ListParams, ListResult](),
	"sessions.resolve": typesOf[ResolveParams, ResolveResult](),
	"sessions.patch":   typesOf[PatchParams, PatchResult](),
	"sessions.delete":  typesOf[DeleteParams, DeleteResult](),
	"chat.history":     typesOf[HistoryParams, HistoryResult](),
	"chat.transcript":  typesOf[TranscriptParams, TranscriptResult](),
	"sessions.runs":    typesOf[SessionRunsParams, SessionRunsResult](),
	"chat.send":        typesOf[ChatSendParams, AgentAccepted](),
	"agent":            typesOf[AgentParams, AgentAccepted](),
	"agent.wait":       typesOf[WaitParams, WaitResult](),
	"agent.events":     typesOf[EventsParams, EventsResult](),
	"config.schema":    typesOf[struct{}, ConfigSchemaResult](),
	"outbox.list":      typesOf[OutboxListParams, OutboxListResult](),
	"outbox.retry":     typesOf[OutboxRetryParams, OutboxRetryResult](),
	"cron.status":      typesOf[struct{}, CronStatusResult](),
	"cron.list":        typesOf[CronListParams, CronListResult](),
	"cron.add":         typesOf[CronAddParams, cron.Job](),
	"cron.update":      typesOf[CronUpdateParams, cron.Job](),
	"cron.remove":      typesOf[CronIDParams, CronRemoveResult](),
	"cron.run":         typesOf[CronIDParams, CronRunResult](),
	"cron.runs":        typesOf[CronRunsParams, CronRunsResult](),
}

// wireRunID is the finished run agent.wait and agent.events read.
var wireRunID = run.NewID("api:wire-run")

// htmlKey is a session whose transcript has <, > and & in a message.
const htmlKey = "agent:main:html"

// wireFixture is seedSessions and seedRuns plus a stored config (with <,
// > and & in a comment, and openai/gpt-5 priced), a store name, two
// dead-letter queues (one unreadable), a session whose transcript has
// <, > and & too and a run that failed after a tool call.
func wireFixture(t *testing.T) *fixture {
	t.Helper()
	dlqs := []DeadLetterQueue{{"work", fakeDLQ{visible: 2, inFlight: 1}}, {"subagent", fakeDLQ{err: fault.New(fault.Unavailable, "read the depth of the subagent DLQ")}}}
	f := newFixture(t, "{agents: {defaults: {timeoutSeconds: 600}}, models: {providers: {openai: {models: [{id: \"gpt-5\", cost: {input: 1.25, output: 10}}]}}}} // <b> & c\n",
		func(d *Deps) { d.Store, d.DeadLetters = "memory", dlqs })
	seedSessions(f)
	seedRuns(f)
	f.seed(htmlKey, session.Entry{SessionID: "h1", AgentID: "main", UpdatedAt: nowMS - 120*minuteMS, TranscriptSeq: 1})
	f.writeTranscript(transcript.Path("main", "h1", ""), 1, textLine("h1", "assistant", "a <b> & c"))
	ctx := context.Background()
	rec := run.NewRecorder(wireRunID, func() time.Time { return testNow })
	rec.Lifecycle(run.PhaseStart, nil)
	rec.Tool(run.PhaseStart, "session_status", "c1", map[string]any{"args": map[string]any{}})
	rec.Assistant("a <b> & c")
	if err := f.runs.Start(ctx, run.Record{RunID: wireRunID, SessionKey: mainKey, Status: run.StatusRunning, StartedAt: nowMS - 2000}, rec.Pending()); err != nil {
		t.Fatal(err)
	}
	rec.MarkFlushed(len(rec.Pending()))
	rec.Lifecycle(run.PhaseError, map[string]any{"error": "model refused"})
	if err := f.runs.Finish(ctx, run.Record{RunID: wireRunID, Status: run.StatusError, EndedAt: nowMS - 1000, Error: "model refused"}, rec.Pending()); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestWireGolden pins the bytes the gateway writes for every method and
// for its error answers; `go test -run TestWireGolden -update` rewrites
// the golden files (review the diff: it is a change of the API).
func TestWireGolden(t *testing.T) {
	checkWireGolden(t, wireFixture(t).handler, wireCases)
}

// checkWireGolden posts each case to h and compares the answer with its
// golden file (-update rewrites them).
func checkWireGolden(t *testing.T, h http.Handler, cases []wireCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(`{"method":"` + tc.method + `","params":` + tc.params + `}`)
			req := httptest.NewRequest(http.MethodPost, "/rpc", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+testToken)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.wantStatus() {
				t.Fatalf("status %d; want %d: %s", rec.Code, tc.wantStatus(), rec.Body)
			}
			checkGolden(t, goldenPath(tc.name), bytes.TrimSuffix(rec.Body.Bytes(), []byte("\n")))
		})
	}
}

func goldenPath(name string) string { return filepath.Join("testdata", "wire", name+".json") }

// TestWireTypes: the exported types hold every field of the recorded
// calls. Each request's params and each golden answer decode strictly
// (an unknown field fails) into the method's types, and encode back to
// the same JSON: the params to the same value, the answer to the same
// bytes, key order included.
func TestWireTypes(t *testing.T) {
	for _, tc := range wireCases {
		t.Run(tc.name, func(t *testing.T) {
			types, ok := wireTypes[tc.method]
			if !ok {
				t.Fatalf("no wire types for %s", tc.method)
			}
			if tc.status == 0 { // an error case may send bad params on purpose
				roundTrip(t, []byte(tc.params), types.params())
			}
			golden, err := os.ReadFile(goldenPath(tc.name))
			if err != nil {
				t.Fatal(err)
			}
			var answer bytes.Buffer
			if err := json.Compact(&answer, golden); err != nil {
				t.Fatal(err)
			}
			var resp Response
			if got := roundTrip(t, answer.Bytes(), &resp); !bytes.Equal(got, answer.Bytes()) {
				t.Errorf("Response encodes as\n%s\nwant\n%s", got, answer.Bytes())
			}
			if resp.OK != (resp.Error == nil) || resp.OK != (tc.status == 0) {
				t.Fatalf("ok %v with error %+v", resp.OK, resp.Error)
			}
			if !resp.OK {
				return
			}
			if got := roundTrip(t, resp.Result, types.result()); !bytes.Equal(got, resp.Result) {
				t.Errorf("result encodes as\n%s\nwant\n%s", got, resp.Result)
			}
		})
	}
}

// roundTrip decodes data strictly into dst, encodes dst again as the
// gateway does, fails t unless that is the same JSON value, and returns
// it.
func roundTrip(t *testing.T, data []byte, dst any) []byte {
	t.Helper()
	if err := decodeStrict(data, dst, true); err != nil {
		t.Fatalf("decode into %T: %v\n%s", dst, err, data)
	}
	got, err := encodeJSON(dst)
	if err != nil {
		t.Fatalf("encode %T: %v", dst, err)
	}
	var want, back any
	json.Unmarshal(data, &want)
	json.Unmarshal(got, &back)
	if diff := cmp.Diff(want, back); diff != "" {
		t.Errorf("%T changes the JSON (-sent +encoded):\n%s", dst, diff)
	}
	return got
}

// TestWireParamsOmitZero: a client sends only the params it sets; the
// zero value of a params type encodes as its required fields alone.
func TestWireParamsOmitZero(t *testing.T) {
	tests := []struct {
		name   string
		params any
		want   string
	}{
		{"agent", AgentParams{}, `{}`},
		{"chat.send", ChatSendParams{}, `{}`},
		{"agent.wait", WaitParams{}, `{"runId":""}`},
		{"agent.events", EventsParams{}, `{"runId":""}`},
		{"sessions.list", ListParams{}, `{}`},
		{"chat.history", HistoryParams{}, `{}`},
		{"sessions.resolve", ResolveParams{}, `{}`},
		{"sessions.patch", PatchParams{}, `{"key":""}`},
		{"sessions.delete", DeleteParams{}, `{"key":""}`},
		{"config.patch", ConfigPatchParams{}, `{}`},
		{"request without params", Request{Method: "status"}, `{"method":"status"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := encodeJSON(tc.params)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("zero %T (-want +got):\n%s", tc.params, diff)
			}
		})
	}
}

// TestWireTypesCoverEveryMethod: every method has its types in
// wireTypes, and config.schema (whose keys change with the config table,
// so it has no golden file) round-trips its live answer.
func TestWireTypesCoverEveryMethod(t *testing.T) {
	for name := range methods {
		if _, ok := wireTypes[name]; !ok {
			t.Errorf("method %s has no entry in wireTypes (and no golden file)", name)
		}
	}
	r := newFixture(t, "").call("config.schema", nil)
	var got ConfigSchemaResult
	r.decode(t, &got)
	if len(got.Keys) == 0 {
		t.Fatal("config.schema answered no keys")
	}
	roundTrip(t, r.Result, &ConfigSchemaResult{})
}

// checkGolden compares got, compact JSON, byte for byte with the golden
// file at path (stored indented), or rewrites the file with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		var out bytes.Buffer
		if err := json.Indent(&out, got, "", "  "); err != nil {
			t.Fatalf("indent %s: %v", got, err)
		}
		out.WriteByte('\n')
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	golden, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to record it)", err)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, golden); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("answer differs from %s:\n got %s\nwant %s", path, got, want.Bytes())
	}
}
