// Package gateway is ZERO's gateway API: one JSON-RPC-style endpoint,
// `POST /rpc` with `{"method": "...", "params": {...}}` and
// `Authorization: Bearer <token>`, answering
// `{"ok":true,"result":...}` or `{"ok":false,"error":{"code","message"}}`.
//
// It is core: the standard library and ZERO's core packages only. The
// Lambda main wires the adapters (DynamoDB session and run stores, the S3
// transcript log, the SQS queue, the SSM config parameter) into Deps.
//
// Every method it serves is in one table, methods.go, with its name (an
// exported Method* constant) and its handler, whose doc comment states
// the method's contract and costs. Their params and results, and Request
// and Response, are exported (wire.go, cron_wire.go) so that clients use
// the same types; testdata/wire pins their JSON. Client (client.go) is
// the typed Go client of the API.
package gateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
)

// MaxWait bounds agent.wait: API Gateway's HTTP API answers 503 after 30 s,
// so a wait must end (and its answer be written) well before that.
const MaxWait = 25 * time.Second

// MaxBodyBytes bounds a request body; a bigger one is refused with 413.
const MaxBodyBytes = 1 << 20

// Settings is the parsed configuration (config.Cache is one).
type Settings interface {
	Current(ctx context.Context) (*config.Config, error)
}

// ConfigStore is the stored zero.json document (shared/ssmparam.Parameter
// is one). Fetch of a missing document is fault.NotFound; version is an
// opaque string that changes on every Put.
type ConfigStore interface {
	Fetch(ctx context.Context) (data []byte, version string, err error)
	Put(ctx context.Context, data []byte) (version string, err error)
}

// TranscriptReader reads a logical transcript path as one JSONL stream
// (transcript.Log is one); a missing transcript reads as empty.
type TranscriptReader interface {
	Read(ctx context.Context, path string) ([]byte, error)
}

// Enqueuer puts an inbound message on the work queue (shared/sqsqueue's
// sender is one). It must deduplicate on the message ID (the FIFO
// queue's MessageDeduplicationId is inbound.Message.QueueDedup).
type Enqueuer interface {
	Enqueue(ctx context.Context, m inbound.Message) error
}

// Deps is what the gateway needs. Every field but Now and Log is required
// for the methods that use it; a nil one makes those methods fail with
// "internal" (and a log line) rather than panic.
type Deps struct {
	// Token is the API bearer token (surrounding blanks ignored). Empty:
	// every call is refused 401 (and that is logged once), so a
	// deployment without a token is closed, never open.
	Token       string
	Settings    Settings
	Config      ConfigStore
	Sessions    session.Store // may also implement session.Deleter
	Runs        run.Getter
	Transcripts TranscriptReader
	Queue       Enqueuer
	// Stops writes a session's stop mark when agent or chat.send carries
	// a /stop (or any message in queue mode interrupt), as the channel
	// webhooks do (shared/dynamo's Store is one). Optional: nil queues
	// such a message without a mark, so it waits its turn.
	Stops ingest.StopMarker
	Cron  *CronDeps // optional: nil answers the cron.* methods 501 (cron.go)
	// Outbox is the announce outbox for outbox.list and outbox.retry
	// (outbox.go; outbox.retry queues on Queue). Optional: nil answers
	// them 501.
	Outbox OutboxStore
	// DeadLetters are the dead-letter queues whose depth status reports
	// (deadletters.go), in order. Optional: none leaves it out.
	DeadLetters []DeadLetterQueue
	// Store names where the state lives, for status (e.g. "dynamodb
	// table zero-sessions, s3 bucket zero-transcripts"); "" leaves it out.
	Store string
	Now   func() time.Time // nil: time.Now
	Log   *slog.Logger     // nil: slog.Default()
}

// New returns the gateway's HTTP handler. It answers every path (the main
// mounts it at /rpc) and is safe for concurrent use.
func New(d Deps) http.Handler {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	// A token read from a file or a secret often ends in a newline; the
	// header's token is trimmed too.
	d.Token = strings.TrimSpace(d.Token)
	g := &gateway{Deps: d}
	if d.Token != "" {
		sum := sha256.Sum256([]byte(d.Token))
		g.tokenSum = sum[:]
	}
	return g
}

type gateway struct {
	Deps
	tokenSum   []byte // sha256 of Token; nil when there is none
	noTokenLog sync.Once
}

// statusError carries an HTTP status that the fault code alone does not
// imply (501 for a capability the store lacks).
type statusError struct {
	status int
	err    error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

func (g *gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	// Authenticate before anything else, so an anonymous caller learns
	// nothing about the API (not even which methods exist).
	if !g.authorized(ctx, r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="zero"`)
		g.writeError(ctx, w, "", fault.New(fault.Unauthorized, "missing or wrong bearer token"))
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		g.writeError(ctx, w, "", &statusError{http.StatusMethodNotAllowed, fault.New(fault.Invalid, "use POST")})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			g.writeError(ctx, w, "", &statusError{http.StatusRequestEntityTooLarge,
				fault.New(fault.Invalid, "request body is over %d bytes", MaxBodyBytes)})
			return
		}
		g.writeError(ctx, w, "", fault.Wrap(fault.Invalid, err, "cannot read the request body"))
		return
	}
	var req Request // other top-level fields (a client's "id") are ignored
	if err := decodeStrict(body, &req, false); err != nil {
		g.writeError(ctx, w, "", fault.Wrap(fault.Invalid, err, "malformed JSON body: want {\"method\": ..., \"params\": {...}}"))
		return
	}
	if req.Method == "" {
		g.writeError(ctx, w, "", fault.New(fault.Invalid, "method: required"))
		return
	}
	h, ok := methods[req.Method]
	if !ok {
		g.writeError(ctx, w, req.Method, fault.New(fault.Invalid, "unknown method %q", req.Method))
		return
	}
	params := req.Params
	if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
		params = json.RawMessage("{}")
	}
	result, err := h(g, ctx, params)
	if err != nil {
		g.writeError(ctx, w, req.Method, err)
		return
	}
	raw, err := encodeJSON(result)
	if err != nil {
		g.writeError(ctx, w, req.Method, fault.Wrap(fault.Internal, err, "internal error"))
		return
	}
	g.write(ctx, w, http.StatusOK, Response{OK: true, Result: raw})
}

// authorized compares the bearer token in constant time. Both sides are
// hashed first so the comparison takes the same time whatever the
// lengths.
func (g *gateway) authorized(ctx context.Context, r *http.Request) bool {
	if g.tokenSum == nil {
		g.noTokenLog.Do(func() {
			g.Log.ErrorContext(ctx, "gateway: no API token is configured; every call is refused")
		})
		return false
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(got[:], g.tokenSum) == 1
}

// httpStatus maps a fault code to its HTTP status.
func httpStatus(code fault.Code) int {
	switch code {
	case fault.Invalid:
		return http.StatusBadRequest
	case fault.Unauthorized:
		return http.StatusUnauthorized
	case fault.NotFound:
		return http.StatusNotFound
	case fault.Conflict:
		return http.StatusConflict
	case fault.RateLimited:
		return http.StatusTooManyRequests
	case fault.Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// writeError answers err with its fault code and clean message; the full
// error (with its cause) goes to the log only. Params and tokens are never
// logged.
func (g *gateway) writeError(ctx context.Context, w http.ResponseWriter, method string, err error) {
	code := fault.CodeOf(err)
	status := httpStatus(code)
	var se *statusError
	if errors.As(err, &se) {
		status = se.status
	}
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	g.Log.Log(ctx, level, "gateway call failed", "method", method, "status", status, "code", code, "err", err)
	g.write(ctx, w, status, Response{Error: &ErrorBody{Code: code, Message: fault.Message(err)}})
}

// write answers body with status, as one line of JSON.
func (g *gateway) write(ctx context.Context, w http.ResponseWriter, status int, body Response) {
	data, err := encodeJSON(body)
	if err != nil {
		g.Log.ErrorContext(ctx, "gateway: encode response", "err", err)
		status = http.StatusInternalServerError
		data = []byte(`{"error":{"code":"internal","message":"internal error"},"ok":false}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

// encodeJSON is v as compact JSON, with <, > and & left as they are.
func encodeJSON(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// decodeParams decodes params strictly into dst: unknown fields, wrong
// types and trailing data are fault.Invalid errors whose message names the
// field ("params.limit: must be a number").
func decodeParams(params json.RawMessage, dst any) error {
	return decodeStrict(params, dst, true)
}

func decodeStrict(data []byte, dst any, disallowUnknown bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if disallowUnknown {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(dst); err != nil {
		return paramsError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fault.New(fault.Invalid, "params: unexpected data after the JSON value")
	}
	return nil
}

// paramsError turns an encoding/json error into a message naming the field.
func paramsError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return fault.Wrap(fault.Invalid, err, "params: must be a JSON object")
		}
		return fault.Wrap(fault.Invalid, err, "params.%s: must be %s, got %s", typeErr.Field, typeName(typeErr.Type.String()), typeErr.Value)
	case errors.As(err, &syntaxErr), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fault.Wrap(fault.Invalid, err, "params: malformed JSON")
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fault.Wrap(fault.Invalid, err, "params.%s: unknown field", strings.Trim(name, `"`))
	}
	return fault.Wrap(fault.Invalid, err, "params: %v", err)
}

// typeName names a Go type the way a JSON caller thinks of it.
func typeName(goType string) string {
	goType = strings.TrimPrefix(goType, "*")
	switch {
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		return "an integer"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "a boolean"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "json.RawMessage"):
		return "a JSON value"
	}
	return "an object"
}

// invalidf is a bad-params error; the message starts with the field path.
func invalidf(format string, args ...any) error {
	return fault.New(fault.Invalid, format, args...)
}

// missing reports a nil dependency as an internal error (a wiring bug).
func missing(what string) error {
	return fault.Wrap(fault.Internal, fmt.Errorf("gateway: Deps.%s is nil", what), "the gateway is not configured for this method")
}

// config returns the current configuration. Without Settings the defaults
// apply (tests, tools).
func (g *gateway) config(ctx context.Context) (*config.Config, error) {
	if g.Settings == nil {
		return config.Default(), nil
	}
	cfg, err := g.Settings.Current(ctx)
	if err != nil {
		if fault.CodeOf(err) == fault.Invalid {
			// A stored document that does not validate is the operator's
			// problem, not this caller's bad input.
			return nil, fault.Wrap(fault.Unavailable, err, "the configuration cannot be loaded")
		}
		return nil, fault.Wrap(fault.CodeOf(err), err, "the configuration cannot be loaded")
	}
	return cfg, nil
}

func (g *gateway) nowMS() int64 { return g.Now().UnixMilli() }
