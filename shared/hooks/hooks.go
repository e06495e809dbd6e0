// Package hooks is the handler of ZERO's webhook hooks: POST /hooks/wake
// and POST /hooks/agent, the way an outside system (a CI job, a mail
// filter, a home automation) starts the assistant. It is core: the hook's
// message goes through the ingest door like a channel's, and the Lambda
// main (functions/hooks) wires the door, the settings and the token.
//
// The contract (docs/gateway.md, Webhook hooks):
//
//   - Both routes take POST with a JSON body of at most MaxBodyBytes and
//     the header "Authorization: Bearer <token>", compared in constant
//     time with the hooks-token secret.
//   - Answers: 405 to anything but POST, 404 to another path, 401 to a
//     missing or wrong token (or when no token is configured), 413 to a
//     body over MaxBodyBytes, 400 to malformed JSON or a bad field (the
//     message names the field), 200 (wake) or 202 (agent) once queued,
//     500 when the door fails (nothing is queued; a retry with the same
//     idempotency key is safe). Every error answer queues nothing.
//   - Idempotency: idempotencyKey in the body (or the Idempotency-Key
//     header) makes the message id "hook:<route>:<key>", so a retry gets
//     the same runId and session key and the queue (5 minutes) and the
//     runner's message record (30 days) run it once.
//   - External content is untrusted: the text the caller sends reaches
//     the model inside an envelope (Envelope) that says so, and the run's
//     extra system prompt repeats it. A hook message therefore never
//     starts with "/" and never runs a session command.
package hooks

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/ingest"
)

// Routes served by the handler.
const (
	WakePath  = "/hooks/wake"
	AgentPath = "/hooks/agent"
)

// MaxBodyBytes bounds a hook's body (64 KiB): a hook carries a message,
// not a file, and the queued message stays far inside SQS's 256 KiB.
const MaxBodyBytes = 64 << 10

// IdempotencyHeader is the header that may carry the idempotency key.
const IdempotencyHeader = "Idempotency-Key"

// Door is the ingest door (*ingest.Door is one).
type Door interface {
	Accept(ctx context.Context, r ingest.Request) (ingest.Outcome, error)
}

// Config configures New.
type Config struct {
	// Token is the bearer token. Empty: every request is refused (401);
	// hooks never run unauthenticated.
	Token string
	// Door is required.
	Door Door
	// Settings supplies zero.json (default agent, main key, send policy);
	// nil means config.Default().
	Settings ingest.Settings
	// NewUUID returns a random UUID (nil: crypto/rand).
	NewUUID func() string
	// Now stamps the messages (nil: time.Now).
	Now func() time.Time
	// Log: nil means slog.Default(). The token and the hook's text are
	// never logged.
	Log *slog.Logger
}

type handler struct {
	tokenSum [sha256.Size]byte
	hasToken bool
	cfg      Config
}

// New returns the handler of both routes (see the package doc). It panics
// if cfg.Door is nil: a wiring bug.
func New(cfg Config) http.Handler {
	if cfg.Door == nil {
		panic("hooks.New: Door is required")
	}
	if cfg.NewUUID == nil {
		cfg.NewUUID = randomUUID
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &handler{tokenSum: sha256.Sum256([]byte(cfg.Token)), hasToken: cfg.Token != "", cfg: cfg}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if r.URL.Path != WakePath && r.URL.Path != AgentPath {
		fail(w, http.StatusNotFound, "not_found", "no hook at "+r.URL.Path+" (hooks: "+WakePath+", "+AgentPath+")")
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(w, http.StatusMethodNotAllowed, "method_not_allowed", "use POST")
		return
	}
	if !h.authentic(r.Header.Get("Authorization")) {
		h.cfg.Log.WarnContext(ctx, "hooks: missing or wrong bearer token", "path", r.URL.Path, "remote", r.RemoteAddr)
		fail(w, http.StatusUnauthorized, "unauthorized", "missing or wrong bearer token")
		return
	}
	body, status, err := readBody(w, r)
	if err != nil {
		fail(w, status, codeOf(status), err.Error())
		return
	}
	cfg, err := h.config(ctx)
	if err != nil {
		h.cfg.Log.ErrorContext(ctx, "hooks: config unreadable; nothing queued", "code", fault.CodeOf(err), "error", err)
		fail(w, http.StatusInternalServerError, "unavailable", "not queued, try again")
		return
	}
	req, err := h.request(cfg, r, body)
	if err != nil {
		fail(w, http.StatusBadRequest, "invalid_request", fault.Message(err))
		return
	}
	h.accept(ctx, w, req)
}

// request decodes and validates the body of r's route into the ingest
// request it queues.
func (h *handler) request(cfg *config.Config, r *http.Request, body []byte) (hookRequest, error) {
	nowMS, header := h.cfg.Now().UnixMilli(), strings.TrimSpace(r.Header.Get(IdempotencyHeader))
	if r.URL.Path == WakePath {
		p, err := decodeWake(body)
		if err != nil {
			return hookRequest{}, err
		}
		return p.request(cfg, header, h.cfg.NewUUID, nowMS)
	}
	p, err := decodeAgent(body)
	if err != nil {
		return hookRequest{}, err
	}
	return p.request(cfg, header, h.cfg.NewUUID, nowMS)
}

// accept hands req to the door and answers: 200 {ok, mode, runId} for a
// wake, 202 {ok, runId, sessionKey} for an agent run.
func (h *handler) accept(ctx context.Context, w http.ResponseWriter, req hookRequest) {
	out, err := h.cfg.Door.Accept(ctx, req.ingest)
	if err != nil {
		h.cfg.Log.ErrorContext(ctx, "hooks: not queued", "hook", req.route, "code", fault.CodeOf(err), "error", err)
		fail(w, http.StatusInternalServerError, "unavailable", "not queued, try again")
		return
	}
	q, ok := out.(ingest.Queued)
	if !ok {
		// Operators are never refused and the envelope is never blank:
		// the door's contract changed under this handler.
		h.cfg.Log.ErrorContext(ctx, "hooks: door did not queue", "hook", req.route, "outcome", out)
		fail(w, http.StatusInternalServerError, "internal", "not queued")
		return
	}
	h.cfg.Log.InfoContext(ctx, "hooks: queued", "hook", req.route, "run_id", q.RunID,
		"session_key", q.Message.SessionKey, "message_id", q.Message.ID, "stopping", q.Stopping)
	if req.route == "wake" {
		reply(w, http.StatusOK, map[string]any{"ok": true, "mode": req.mode, "runId": q.RunID})
		return
	}
	reply(w, http.StatusAccepted, map[string]any{"ok": true, "runId": q.RunID, "sessionKey": q.Message.SessionKey})
}

// authentic compares the bearer token with the configured one in constant
// time (hashing both first hides the token's length).
func (h *handler) authentic(authorization string) bool {
	got, ok := strings.CutPrefix(authorization, "Bearer ")
	if !ok || !h.hasToken {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
	return subtle.ConstantTimeCompare(sum[:], h.tokenSum[:]) == 1
}

// config is the configuration in force; config.Default() without Settings.
func (h *handler) config(ctx context.Context) (*config.Config, error) {
	if h.cfg.Settings == nil {
		return config.Default(), nil
	}
	return h.cfg.Settings.Current(ctx)
}

// reply writes v as JSON with status.
func reply(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"ok":false,"error":{"code":"internal","message":"internal error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}

// fail writes {"ok":false,"error":{"code","message"}} with status.
func fail(w http.ResponseWriter, status int, code, message string) {
	reply(w, status, map[string]any{"ok": false, "error": map[string]string{"code": code, "message": message}})
}

func codeOf(status int) string {
	if status == http.StatusRequestEntityTooLarge {
		return "too_large"
	}
	return "invalid_request"
}
