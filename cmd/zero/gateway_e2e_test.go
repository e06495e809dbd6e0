package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/gateway"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/receipt"
	runrecord "github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/run/runtest"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/transcript"
	"github.com/zero-gateway/zero/shared/transcript/transcripttest"
	"github.com/zero-gateway/zero/shared/turn/turntest"
)

// fixedConfig is a stored zero.json that never changes: version "7".
type fixedConfig struct{}

func (fixedConfig) Fetch(context.Context) ([]byte, string, error) { return []byte("{}"), "7", nil }
func (fixedConfig) Put(context.Context, []byte) (string, error)   { return "7", nil }

// simulatedRunner is the gateway's queue: for every message, in order, it
// does what the runner would, a little later: it starts the run, commits
// the session entry (the next version), writes the next transcript part
// (the user's text and the reply "echo: <text>") and finishes the run ok.
type simulatedRunner struct {
	t        *testing.T
	sessions *turntest.MemStore
	runs     *runtest.MemStore
	log      *transcript.Log
	queue    chan inbound.Message
	done     chan struct{}
}

// startSimulatedRunner starts the runner's worker; t's cleanup stops it.
func startSimulatedRunner(t *testing.T) *simulatedRunner {
	r := &simulatedRunner{t: t, sessions: turntest.NewMemStore(), runs: runtest.NewMemStore(),
		log: transcript.NewLog(transcripttest.NewMemBucket()), queue: make(chan inbound.Message, 16), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for m := range r.queue {
			time.Sleep(50 * time.Millisecond)
			if err := r.turn(context.Background(), m); err != nil {
				t.Errorf("simulated runner: %v", err)
			}
		}
	}()
	t.Cleanup(func() {
		close(r.queue)
		<-r.done
	})
	return r
}

// Enqueue implements gateway.Enqueuer.
func (r *simulatedRunner) Enqueue(_ context.Context, m inbound.Message) error {
	r.queue <- m
	return nil
}

func (r *simulatedRunner) turn(ctx context.Context, m inbound.Message) error {
	runID := runrecord.NewID(m.ID)
	now := time.Now().UnixMilli()
	if err := r.runs.Start(ctx, runrecord.Record{RunID: runID, SessionKey: m.SessionKey, MessageID: m.ID, StartedAt: now}, nil); err != nil {
		return err
	}
	e := session.Entry{SessionID: session.NewID(m.ID), AgentID: m.AgentID}
	switch old, err := r.sessions.Get(ctx, m.SessionKey); {
	case err == nil:
		e = old
	case !fault.Is(err, fault.NotFound):
		return err
	}
	e.Version++
	e.TranscriptSeq++
	e.UpdatedAt, e.TotalTokens, e.ContextTokens, e.Label = now, 1500, 200000, "cli"
	sessionID := e.SessionID
	if err := r.sessions.Commit(ctx, m.SessionKey, e, sessionstate.ModelContext{SessionID: sessionID}, receipt.Receipt{MessageID: m.ID, SessionKey: m.SessionKey}); err != nil {
		return err
	}
	line := func(id, role, text string) transcript.Line {
		return transcript.Line{Type: "message", ID: id, Timestamp: time.Now().UTC().Format(time.RFC3339),
			Message: &transcript.Message{Role: role, Content: []transcript.Content{{Type: "text", Text: text}}, Timestamp: now}}
	}
	lines := []any{line("u1", "user", m.Text), line("a1", "assistant", "echo: "+m.Text)}
	if err := r.log.WritePart(ctx, transcript.Path(m.AgentID, sessionID, ""), e.TranscriptSeq, lines); err != nil {
		return err
	}
	return r.runs.Finish(ctx, runrecord.Record{RunID: runID, Status: runrecord.StatusOK, EndedAt: time.Now().UnixMilli()}, nil)
}

// startGateway serves the real gateway handler over runner's stores and
// points ZERO_GATEWAY_URL and ZERO_GATEWAY_TOKEN at it.
func startGateway(t *testing.T, runner *simulatedRunner) {
	t.Helper()
	srv := httptest.NewServer(gateway.New(gateway.Deps{
		Token: testGatewayToken, Config: fixedConfig{}, Sessions: runner.sessions, Runs: runner.runs,
		Transcripts: runner.log, Queue: runner, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}))
	t.Cleanup(srv.Close)
	t.Setenv(gatewayURLEnv, srv.URL)
	t.Setenv(gatewayTokenEnv, testGatewayToken)
}

// TestAgainstGateway runs the commands against the real gateway handler
// (shared/gateway) over in-memory stores, so the CLI's params pass the
// gateway's strict decoding and its answers decode as the CLI expects.
func TestAgainstGateway(t *testing.T) {
	startGateway(t, startSimulatedRunner(t))

	// Steps run in order: the agent turn creates the session the later
	// steps list.
	steps := []struct {
		name       string
		args       []string
		wantStdout []string // in order
		wantErr    string
	}{
		{name: "status before any session", args: []string{"status"}, wantStdout: []string{"reachable:       yes (ok)", "config version:  7", "sessions:        none"}},
		{name: "agent without wait", args: []string{"agent", "--message", "first", "--no-wait", "--idempotency-key", "cli-1"}, wantStdout: []string{"run_"}},
		{name: "agent wait", args: []string{"agent", "--message", "hello", "--wait", "--timeout", "20s"}, wantStdout: []string{"echo: hello\n"}},
		{name: "sessions table", args: []string{"sessions"}, wantStdout: []string{"KEY", "TOKENS", "LABEL", "agent:main:main", "just now", "1.5k/200k", "cli"}},
		{name: "sessions filtered", args: []string{"sessions", "--active", "5", "--limit", "1", "--agent", "main", "--json"}, wantStdout: []string{`"sessions": [`, `"key": "agent:main:main"`, `"transcriptPath"`}},
		{name: "status", args: []string{"status", "--json"}, wantStdout: []string{`"reachable": true`, `"configVersion": "7"`, `"key": "agent:main:main"`}},
		{name: "history", args: []string{"gateway", "call", "chat.history", "--params", `{"sessionKey":"main","limit":2}`}, wantStdout: []string{`"role": "user"`, `"role": "assistant"`, `"echo: hello"`}},
		{name: "unknown method", args: []string{"gateway", "call", "nope"}, wantErr: `gateway nope: invalid (HTTP 400): unknown method "nope"`},
		{name: "bad params", args: []string{"gateway", "call", "sessions.list", "--params", `{"limit":0}`}, wantErr: "invalid (HTTP 400): params.limit: must be >= 1"},
		{name: "wrong token", args: []string{"sessions", "--token", "nope"}, wantErr: "unauthorized (HTTP 401): missing or wrong bearer token; check --token or ZERO_GATEWAY_TOKEN"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			stdout, stderr, err := runCLI(t, st.args...)
			checkErr(t, err, st.wantErr)
			if err != nil {
				return
			}
			containsInOrder(t, stdout, st.wantStdout)
			if strings.Contains(stderr, "error") {
				t.Errorf("stderr = %q", stderr)
			}
			if strings.Contains(strings.Join(st.args, " "), "--json") && !json.Valid([]byte(stdout)) {
				t.Errorf("--json output is not JSON: %s", stdout)
			}
		})
	}
}
