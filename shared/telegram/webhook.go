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
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/turn"
)

// SecretHeader carries the setWebhook secret_token on every webhook call.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// MaxUpdateBytes bounds a webhook body; real updates are a few KiB.
const MaxUpdateBytes = 1 << 20

// Enqueuer accepts a message for the runner. A nil error means the message
// is durably queued.
type Enqueuer interface {
	Enqueue(ctx context.Context, m inbound.Message) error
}

// Settings supplies the configuration in force (a config.Cache).
type Settings interface {
	Current(ctx context.Context) (*config.Config, error)
}

// StopMarker records a /stop the moment it arrives (shared/dynamo's Store),
// because the run it stops holds the session's queue group.
type StopMarker interface {
	MarkStop(ctx context.Context, key string, s turn.Stop) error
}

// WebhookConfig configures NewWebhook.
type WebhookConfig struct {
	// Secret is the setWebhook secret_token. When empty the webhook
	// refuses every request: it never runs unauthenticated.
	Secret   string
	BotID    string       // the numeric id from the bot token (see BotID)
	Settings Settings     // nil means config.Default(): nobody is admitted
	Stops    StopMarker   // nil: /stop waits its turn in the queue like any message
	Queue    Enqueuer     // required
	Log      *slog.Logger // nil means slog.Default()
}

type webhook struct {
	secretSum [sha256.Size]byte // compared in constant time, whatever the length
	hasSecret bool
	botID     string
	settings  Settings
	stops     StopMarker
	queue     Enqueuer
	log       *slog.Logger
}

// NewWebhook returns the handler for Telegram's webhook calls. It answers
//
//	405 to anything but POST;
//	401 when the secret header is missing or wrong (nothing is queued);
//	400 for a body that is not an Update, 413 for one over MaxUpdateBytes;
//	200 for an update ZERO does not handle, so Telegram stops resending it;
//	200 for a message from a sender channels.telegram.allowFrom does not
//	    admit (logged; no turn, nothing queued);
//	200 {"ok":true} once a handled update is queued;
//	500 when the config cannot be read or queueing fails, so Telegram
//	    delivers the update again.
//
// It panics if cfg.Queue is nil.
func NewWebhook(cfg WebhookConfig) http.Handler {
	if cfg.Queue == nil {
		panic("telegram.NewWebhook: Queue is required")
	}
	w := &webhook{
		secretSum: sha256.Sum256([]byte(cfg.Secret)),
		hasSecret: cfg.Secret != "",
		botID:     cfg.BotID,
		settings:  cfg.Settings,
		stops:     cfg.Stops,
		queue:     cfg.Queue,
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
	cfg := config.Default()
	if h.settings != nil {
		if cfg, err = h.settings.Current(ctx); err != nil {
			h.log.ErrorContext(ctx, "telegram webhook: config unavailable", "update_id", *u.UpdateID, "error", err)
			reply(w, http.StatusInternalServerError, "not queued")
			return
		}
	}
	m, skip := u.toMessage(h.botID, cfg)
	if skip == "" && m.Kind == "" && !admitted(cfg, m) {
		skip = "sender not admitted"
		h.log.WarnContext(ctx, "telegram webhook: sender not in channels.telegram.allowFrom; no turn",
			"update_id", *u.UpdateID, "from", m.From, "chat", m.To,
			"hint", "add the user id (or the group's chat id, or \"*\") to channels.telegram.allowFrom in zero.json")
	}
	if skip != "" {
		h.log.InfoContext(ctx, "telegram webhook: update ignored",
			"update_id", *u.UpdateID, "type", u.kind, "reason", skip)
		reply(w, http.StatusOK, "")
		return
	}
	if h.stops != nil && m.Kind == "" && (turn.IsStop(m.Text) || cfg.QueueMode(Channel, "") == config.QueueInterrupt) {
		// A /stop, or any message in queue mode interrupt: the session's
		// running turn ends at its next step, and what queued behind it
		// is dropped.
		// Marked before queueing: if queueing fails, Telegram resends
		// and the mark is simply written again.
		if err := h.stops.MarkStop(ctx, m.SessionKey, turn.Stop{MessageID: m.ID, At: time.Now().UnixMilli(), Pending: true}); err != nil {
			h.log.ErrorContext(ctx, "telegram webhook: stop not marked", "update_id", *u.UpdateID, "session_key", m.SessionKey, "error", err)
			reply(w, http.StatusInternalServerError, "not queued")
			return
		}
	}
	if err := h.queue.Enqueue(ctx, m); err != nil {
		h.log.ErrorContext(ctx, "telegram webhook: enqueue failed",
			"update_id", *u.UpdateID, "type", u.kind, "session_key", m.SessionKey,
			"code", fault.CodeOf(err), "error", err)
		reply(w, http.StatusInternalServerError, "not queued")
		return
	}
	h.log.InfoContext(ctx, "telegram webhook: update queued",
		"update_id", *u.UpdateID, "type", u.kind, "session_key", m.SessionKey, "chat_type", m.ChatType)
	reply(w, http.StatusOK, "")
}

// admitted reports whether channels.telegram.allowFrom lets m start a turn:
// it lists the sender, or the chat (admitting everyone in a group), or "*".
func admitted(cfg *config.Config, m inbound.Message) bool {
	return cfg.Admits(Channel, m.From) || (m.ChatType != inbound.Direct && cfg.Admits(Channel, m.To))
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
