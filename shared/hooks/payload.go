package hooks

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/session"
)

// Wake modes. There is no heartbeat runner yet, so NextHeartbeat is
// queued like Now: the event is the next turn of the main session. When
// heartbeats come, next-heartbeat will wait for the next one instead.
const (
	WakeNow           = "now"
	WakeNextHeartbeat = "next-heartbeat"
)

// Limits of the payload's fields.
const (
	maxIdempotencyKey = 256
	maxName           = 200
	maxSessionKey     = 512
)

// thinkingLevels are the values of thinking, as upstream names them.
var thinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh"}

// WakePayload is the body of POST /hooks/wake.
type WakePayload struct {
	Text           string `json:"text"`           // required: the system event
	Mode           string `json:"mode,omitempty"` // "now" (default) or "next-heartbeat"
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
}

// AgentPayload is the body of POST /hooks/agent.
type AgentPayload struct {
	Message    string `json:"message"`              // required
	Name       string `json:"name,omitempty"`       // who sends it ("GitHub"), shown in the envelope
	SessionKey string `json:"sessionKey,omitempty"` // default hook:<uuid>; a named key continues that session
	// WakeMode is "now" (default) or "next-heartbeat"; validated, no
	// effect until a heartbeat runner exists.
	WakeMode string `json:"wakeMode,omitempty"`
	// Deliver sends the reply to Channel/To (both required then, and
	// session.sendPolicy must allow it); false (default) keeps the reply
	// in the transcript only.
	Deliver bool   `json:"deliver,omitempty"`
	Channel string `json:"channel,omitempty"`
	To      string `json:"to,omitempty"`
	// Model ("provider/model") is the model of the session the run
	// starts (inbound.Message.Model; a continued session keeps its own).
	// Thinking is the run's thinking level (inbound.Message.Thinking).
	Model          string `json:"model,omitempty"`
	Thinking       string `json:"thinking,omitempty"`
	TimeoutSeconds *int64 `json:"timeoutSeconds,omitempty"` // tighter than agents.defaults.timeoutSeconds
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
}

// hookRequest is a validated hook, ready for the door.
type hookRequest struct {
	route  string // "wake" or "agent"
	mode   string // wake only
	ingest ingest.Request
}

// readBody reads r's body up to MaxBodyBytes; the status is 413 for a
// longer one, 400 for an unreadable one.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, int, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err == nil {
		return body, 0, nil
	}
	if errors.As(err, new(*http.MaxBytesError)) {
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("body over %d bytes", MaxBodyBytes)
	}
	return nil, http.StatusBadRequest, errors.New("unreadable body")
}

// decodeJSON parses body into v; the error names a mistyped field.
func decodeJSON(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return invalidf("%s: must be a %s", typeErr.Field, typeErr.Type)
		}
		return invalidf("malformed JSON body: %v", err)
	}
	if dec.More() {
		return invalidf("malformed JSON body: more than one value")
	}
	return nil
}

func decodeWake(body []byte) (WakePayload, error) {
	var p WakePayload
	if err := decodeJSON(body, &p); err != nil {
		return p, err
	}
	if p.Mode == "" {
		p.Mode = WakeNow
	}
	switch {
	case strings.TrimSpace(p.Text) == "":
		return p, invalidf("text: required")
	case p.Mode != WakeNow && p.Mode != WakeNextHeartbeat:
		return p, invalidf("mode: must be %q or %q, got %q", WakeNow, WakeNextHeartbeat, p.Mode)
	case len(p.IdempotencyKey) > maxIdempotencyKey:
		return p, invalidf("idempotencyKey: over %d bytes", maxIdempotencyKey)
	}
	return p, nil
}

func decodeAgent(body []byte) (AgentPayload, error) {
	var p AgentPayload
	if err := decodeJSON(body, &p); err != nil {
		return p, err
	}
	switch {
	case strings.TrimSpace(p.Message) == "":
		return p, invalidf("message: required")
	case len(p.Name) > maxName:
		return p, invalidf("name: over %d bytes", maxName)
	case len(p.SessionKey) > maxSessionKey:
		return p, invalidf("sessionKey: over %d bytes", maxSessionKey)
	case p.WakeMode != "" && p.WakeMode != WakeNow && p.WakeMode != WakeNextHeartbeat:
		return p, invalidf("wakeMode: must be %q or %q, got %q", WakeNow, WakeNextHeartbeat, p.WakeMode)
	case p.Deliver && strings.TrimSpace(p.Channel) == "":
		return p, invalidf("channel: required when deliver is true")
	case p.Deliver && strings.TrimSpace(p.To) == "":
		return p, invalidf("to: required when deliver is true")
	case p.Model != "" && !strings.Contains(strings.Trim(p.Model, "/"), "/"):
		return p, invalidf("model: must be provider/model, got %q", p.Model)
	case p.Thinking != "" && !slices.Contains(thinkingLevels, p.Thinking):
		return p, invalidf("thinking: must be one of %s, got %q", strings.Join(thinkingLevels, ", "), p.Thinking)
	case p.TimeoutSeconds != nil && *p.TimeoutSeconds < 0:
		return p, invalidf("timeoutSeconds: must be >= 0, got %d", *p.TimeoutSeconds)
	case len(p.IdempotencyKey) > maxIdempotencyKey:
		return p, invalidf("idempotencyKey: over %d bytes", maxIdempotencyKey)
	}
	return p, nil
}

// request is the wake's message: a system event, wrapped as untrusted,
// for the default agent's main session.
func (p WakePayload) request(cfg *config.Config, header string, newUUID func() string, nowMS int64) (hookRequest, error) {
	key, err := idempotencyKey(p.IdempotencyKey, header)
	if err != nil {
		return hookRequest{}, err
	}
	agentID := session.NormalizeAgentID(cfg.Routing().Default)
	m := inbound.Message{
		ID:         messageID("wake", key, newUUID),
		SessionKey: session.Canonical(agentID, session.DefaultMainKey, "", cfg.Keys()),
		Channel:    inbound.Internal, ChatType: inbound.Direct, To: "hook", From: "hook",
		SenderName:        "hook",
		Text:              SystemEvent(p.Text),
		ReceivedAt:        nowMS,
		ExtraSystemPrompt: UntrustedNotice,
		Provenance:        inbound.Untrusted,
	}
	return hookRequest{route: "wake", mode: p.Mode, ingest: ingest.Request{Message: m, Origin: ingest.Operator}}, nil
}

// request is the agent hook's message for its session: the named key
// (canonical, so "main" is the default agent's main key), else hook:<uuid>
// (derived from the idempotency key when there is one, so a retry lands in
// the same session).
func (p AgentPayload) request(cfg *config.Config, header string, newUUID func() string, nowMS int64) (hookRequest, error) {
	key, err := idempotencyKey(p.IdempotencyKey, header)
	if err != nil {
		return hookRequest{}, err
	}
	agentID := session.NormalizeAgentID(cfg.Routing().Default)
	channel, to := inbound.Internal, "hook"
	if p.Deliver {
		channel, to = strings.ToLower(strings.TrimSpace(p.Channel)), strings.TrimSpace(p.To)
	}
	sessionKey := session.Canonical(agentID, p.SessionKey, channel, cfg.Keys())
	id := newUUID()
	if key != "" {
		id = uuidOf("zero/hook\x00" + key)
	}
	if sessionKey == "" {
		sessionKey = "hook:" + id
	}
	if p.Deliver && !cfg.SendPolicy().Allows(sessionKey, channel, inbound.Direct, "") {
		return hookRequest{}, invalidf("deliver: sending is denied for session %q on %s by session.sendPolicy", sessionKey, channel)
	}
	m := inbound.Message{
		ID:         "hook:agent:" + id,
		SessionKey: sessionKey, Channel: channel, ChatType: inbound.Direct, To: to, From: "hook",
		SenderName:        senderName(p.Name),
		Text:              Envelope(p.Name, p.Message),
		ReceivedAt:        nowMS,
		ExtraSystemPrompt: UntrustedNotice,
		Provenance:        inbound.Untrusted,
	}
	if key != "" {
		m.ID = "hook:agent:" + key
	}
	if p.TimeoutSeconds != nil {
		m.TimeoutSeconds = *p.TimeoutSeconds
	}
	m.Model, m.Thinking = p.Model, p.Thinking
	return hookRequest{route: "agent", ingest: ingest.Request{Message: m, Origin: ingest.Operator}}, nil
}

// idempotencyKey is the body's key, else the header's; both given must
// agree.
func idempotencyKey(body, header string) (string, error) {
	body = strings.TrimSpace(body)
	switch {
	case len(header) > maxIdempotencyKey:
		return "", invalidf("%s header: over %d bytes", IdempotencyHeader, maxIdempotencyKey)
	case body != "" && header != "" && body != header:
		return "", invalidf("idempotencyKey: %q differs from the %s header %q", body, IdempotencyHeader, header)
	case body != "":
		return body, nil
	}
	return header, nil
}

// messageID is "hook:<route>:<key>", or a random one without a key.
func messageID(route, key string, newUUID func() string) string {
	if key == "" {
		key = newUUID()
	}
	return "hook:" + route + ":" + key
}

func senderName(name string) string {
	if name = strings.TrimSpace(name); name != "" {
		return name
	}
	return "hook"
}

// randomUUID is a version 4 UUID from crypto/rand.
func randomUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

// uuidOf is a name-based UUID (version 8, SHA-256 of s): the same s gives
// the same UUID.
func uuidOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	var b [16]byte
	copy(b[:], sum[:16])
	b[6] = b[6]&0x0f | 0x80
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func formatUUID(b [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func invalidf(format string, args ...any) error {
	return fault.New(fault.Invalid, format, args...)
}
