package telegram

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/ingest"
)

// SecretHeader carries the setWebhook secret_token on every webhook call.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// MaxUpdateBytes bounds a webhook body; real updates are a few KiB.
const MaxUpdateBytes = 1 << 20

// Door is the ingest door that routes, admits, marks and queues what the
// webhook receives (*ingest.Door is one).
type Door interface {
	Accept(ctx context.Context, r ingest.Request) (ingest.Outcome, error)
}

// WebhookConfig configures NewWebhook.
type WebhookConfig struct {
	// Secret is the setWebhook secret_token. When empty the webhook
	// refuses every request: it never runs unauthenticated.
	Secret string
	BotID  string       // the numeric id from the bot token (see BotID)
	Door   Door         // required
	Log    *slog.Logger // nil means slog.Default()
}

type webhook struct {
	secretSum [sha256.Size]byte // compared in constant time, whatever the length
	hasSecret bool
	botID     string
	door      Door
	log       *slog.Logger
}

// NewWebhook returns the handler for Telegram's webhook calls. It answers
//
//	405 to anything but POST;
//	401 when the secret header is missing or wrong (nothing is queued);
//	400 for a body that is not an Update, 413 for one over MaxUpdateBytes;
//	200 for an update ZERO does not handle, so Telegram stops resending it;
//	200 for a message the door refuses or ignores (a sender
//	    channels.telegram.allowFrom does not admit: logged with the hint;
//	    no turn, nothing queued);
//	200 {"ok":true} once the door has queued a handled update;
//	500 when the door fails (config unreadable, stop mark or enqueue
//	    failed), so Telegram delivers the update again.
//
// It panics if cfg.Door is nil.
func NewWebhook(cfg WebhookConfig) http.Handler {
	if cfg.Door == nil {
		panic("telegram.NewWebhook: Door is required")
	}
	w := &webhook{
		secretSum: sha256.Sum256([]byte(cfg.Secret)),
		hasSecret: cfg.Secret != "",
		botID:     cfg.BotID,
		door:      cfg.Door,
		log:       cfg.Log,
	}
	if w.log == nil {
		w.log = slog.Default()
	}
	if !w.hasSecret {
		w.log.Error("telegram webhook: no secret configured; refusing all requests")
	}
	return w
}

func (h *webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		reply(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	if !h.authentic(r.Header.Get(SecretHeader)) {
		h.log.WarnContext(ctx, "telegram webhook: rejected request with a missing or wrong secret token",
			"remote", r.RemoteAddr)
		reply(w, http.StatusUnauthorized, "unauthorized")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxUpdateBytes))
	if err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			reply(w, http.StatusRequestEntityTooLarge, "update too large")
			return
		}
		h.log.WarnContext(ctx, "telegram webhook: reading body failed", "error", err)
		reply(w, http.StatusBadRequest, "unreadable body")
		return
	}
	u, err := decodeUpdate(body)
	if err != nil {
		h.log.WarnContext(ctx, "telegram webhook: malformed update", "error", err)
		reply(w, http.StatusBadRequest, fault.Message(err))
		return
	}
	req, skip := u.toRequest(h.botID)
	if skip != "" {
		h.ignored(ctx, u, skip)
		reply(w, http.StatusOK, "")
		return
	}
	out, err := h.door.Accept(ctx, req)
	if err != nil {
		h.log.ErrorContext(ctx, "telegram webhook: not queued",
			"update_id", *u.UpdateID, "type", u.kind, "code", fault.CodeOf(err), "error", err)
		reply(w, http.StatusInternalServerError, "not queued")
		return
	}
	h.answered(ctx, u, out)
	reply(w, http.StatusOK, "")
}

// answered logs what the door did with update u; every outcome is a 200.
func (h *webhook) answered(ctx context.Context, u update, out ingest.Outcome) {
	switch o := out.(type) {
	case ingest.Queued:
		h.log.InfoContext(ctx, "telegram webhook: update queued",
			"update_id", *u.UpdateID, "type", u.kind, "session_key", o.Message.SessionKey,
			"chat_type", o.Message.ChatType, "stopping", o.Stopping)
	case ingest.Refused:
		h.log.WarnContext(ctx, "telegram webhook: message refused; no turn",
			"update_id", *u.UpdateID, "reason", o.Reason, "from", o.Message.From, "chat", o.Message.To, "hint", o.Hint)
		h.ignored(ctx, u, string(o.Reason))
	case ingest.Ignored:
		h.ignored(ctx, u, string(o.Reason))
	}
}

// ignored logs that update u runs no turn, and why.
func (h *webhook) ignored(ctx context.Context, u update, reason string) {
	h.log.InfoContext(ctx, "telegram webhook: update ignored",
		"update_id", *u.UpdateID, "type", u.kind, "reason", reason)
}

// authentic compares the header with the secret in constant time. Hashing
// both first keeps the comparison from revealing the secret's length.
func (h *webhook) authentic(got string) bool {
	sum := sha256.Sum256([]byte(got))
	return h.hasSecret && got != "" && subtle.ConstantTimeCompare(sum[:], h.secretSum[:]) == 1
}

// reply writes {"ok":true} for 2xx, else {"ok":false,"error":msg}.
func reply(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if status < 300 {
		_, _ = io.WriteString(w, `{"ok":true}`)
		return
	}
	b, _ := json.Marshal(struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}{false, msg})
	_, _ = w.Write(b)
}
