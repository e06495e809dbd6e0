package discord

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/ingest"
)

// MaxInteractionBytes bounds an interaction body; real ones are a few KiB.
const MaxInteractionBytes = 1 << 20

// Door is the ingest door that routes, admits, marks and queues what the
// endpoint receives (*ingest.Door is one).
type Door interface {
	Accept(ctx context.Context, r ingest.Request) (ingest.Outcome, error)
}

// InteractionsConfig configures NewInteractions.
type InteractionsConfig struct {
	// PublicKey is the application's public key, hex. When it is not a
	// valid key the endpoint refuses every request.
	PublicKey string
	Door      Door             // required
	Log       *slog.Logger     // nil means slog.Default()
	Now       func() time.Time // nil means time.Now
}

type interactions struct {
	verifier *Verifier
	door     Door
	log      *slog.Logger
	now      func() time.Time
}

// NewInteractions returns the handler of Discord's interactions endpoint.
// It answers
//
//	405 to anything but POST;
//	401 when the signature headers are missing or wrong, or the timestamp
//	    is more than MaxSkew away (nothing is queued);
//	400 for a body that is not an interaction, 413 for one over
//	    MaxInteractionBytes;
//	{"type":1} to a PING;
//	{"type":5} (deferred) once the door has queued an application command;
//	    the runner edits that response with the reply;
//	an ephemeral message (type 4) for a command ZERO does not know, a
//	    sender channels.discord.allowFrom does not admit, or a command with
//	    nothing to answer (nothing queued);
//	500 when the door fails (config unreadable, stop mark or enqueue
//	    failed): Discord shows the interaction as failed.
//
// It panics if cfg.Door is nil.
func NewInteractions(cfg InteractionsConfig) http.Handler {
	if cfg.Door == nil {
		panic("discord.NewInteractions: Door is required")
	}
	h := &interactions{door: cfg.Door, log: cfg.Log, now: cfg.Now}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.now == nil {
		h.now = time.Now
	}
	v, err := NewVerifier(cfg.PublicKey, h.now)
	if err != nil {
		h.log.Error("discord interactions: no valid public key configured; refusing all requests", "error", err.Error())
	}
	h.verifier = v
	return h
}

func (h *interactions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxInteractionBytes))
	if err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			writeError(w, http.StatusRequestEntityTooLarge, "interaction too large")
			return
		}
		writeError(w, http.StatusBadRequest, "unreadable body")
		return
	}
	why := "no public key configured"
	if h.verifier != nil {
		why = h.verifier.Verify(r.Header.Get(SignatureHeader), r.Header.Get(TimestampHeader), body)
	}
	if why != "" {
		h.log.WarnContext(ctx, "discord interactions: rejected unverified request", "reason", why, "remote", r.RemoteAddr)
		writeError(w, http.StatusUnauthorized, "invalid request signature")
		return
	}
	in, err := decodeInteraction(body)
	if err != nil {
		h.log.WarnContext(ctx, "discord interactions: malformed interaction", "error", err)
		writeError(w, http.StatusBadRequest, fault.Message(err))
		return
	}
	if in.Type == TypePing {
		writeJSON(w, http.StatusOK, response{Type: ResponsePong})
		return
	}
	req, skip := in.toRequest()
	if skip != "" {
		h.log.InfoContext(ctx, "discord interactions: interaction ignored", "id", in.ID, "type", in.Type, "reason", skip)
		writeJSON(w, http.StatusOK, ephemeral("ZERO does not handle this interaction."))
		return
	}
	if req.Message.ReceivedAt == 0 {
		req.Message.ReceivedAt = h.now().UnixMilli()
	}
	out, err := h.door.Accept(ctx, req)
	if err != nil {
		h.log.ErrorContext(ctx, "discord interactions: not queued", "id", in.ID, "code", fault.CodeOf(err), "error", err)
		writeError(w, http.StatusInternalServerError, "not queued")
		return
	}
	h.answer(ctx, w, in, out)
}

// answer maps the door's outcome to the interaction response: a deferred
// message for a queued turn (the runner edits it), an ephemeral notice
// otherwise.
func (h *interactions) answer(ctx context.Context, w http.ResponseWriter, in interaction, out ingest.Outcome) {
	switch o := out.(type) {
	case ingest.Queued:
		h.log.InfoContext(ctx, "discord interactions: command queued", "id", in.ID, "command", in.Data.Name,
			"session_key", o.Message.SessionKey, "chat_type", o.Message.ChatType, "stopping", o.Stopping)
		writeJSON(w, http.StatusOK, response{Type: ResponseDeferredChannelMessage})
	case ingest.Refused:
		h.log.WarnContext(ctx, "discord interactions: command refused; no turn", "id", in.ID,
			"reason", o.Reason, "from", o.Message.From, "channel", o.Message.To, "hint", o.Hint)
		writeJSON(w, http.StatusOK, ephemeral("You are not allowed to talk to this assistant here."))
	case ingest.Ignored:
		h.log.InfoContext(ctx, "discord interactions: command ignored", "id", in.ID, "reason", o.Reason)
		writeJSON(w, http.StatusOK, ephemeral("Nothing to answer: give /ask a message."))
	default:
		writeError(w, http.StatusInternalServerError, "unexpected outcome")
	}
}

// response is an interaction response.
type response struct {
	Type int           `json:"type"`
	Data *responseData `json:"data,omitempty"`
}

type responseData struct {
	Content         string          `json:"content"`
	Flags           int             `json:"flags,omitempty"`
	AllowedMentions allowedMentions `json:"allowed_mentions"`
}

// allowedMentions with an empty parse list pings nobody, whatever the
// content says (@everyone, @here, roles, users).
type allowedMentions struct {
	Parse []string `json:"parse"`
}

func noMentions() allowedMentions { return allowedMentions{Parse: []string{}} }

func ephemeral(text string) response {
	return response{Type: ResponseChannelMessage, Data: &responseData{Content: text, Flags: flagEphemeral, AllowedMentions: noMentions()}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, struct {
		Error string `json:"error"`
	}{msg})
}
