// Package discord is ZERO's Discord adapter.
//
// Discord delivers only interactions (slash commands, buttons, modals)
// over HTTP; ordinary channel messages need the Gateway WebSocket, which a
// Lambda cannot hold, so ZERO answers slash commands only.
//
// Inbound: NewInteractions is the HTTP handler of the interactions
// endpoint. It verifies Discord's Ed25519 signature (Verifier), answers
// PING with PONG, maps an application command to an ingest.Request (see
// ParseInteraction) and hands it to the ingest door, then answers with a
// deferred response (type 5) the runner later edits.
//
// Outbound: Client is the runner's Sender: it edits the deferred response
// with a reply's first message and adds the others as follow-ups while the
// interaction token is valid, and posts with the bot token after that.
//
// No error or log line carries the bot token or an interaction token.
package discord

import (
	"crypto/ed25519"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
)

// Channel is the channel name ZERO uses for Discord in messages and keys.
const Channel = "discord"

// Headers Discord signs every interaction request with.
const (
	SignatureHeader = "X-Signature-Ed25519"
	TimestampHeader = "X-Signature-Timestamp"
)

// MaxSkew is how far a request's timestamp may be from the clock: older
// (or that far in the future) is refused as a replay.
const MaxSkew = 5 * time.Minute

// Verifier checks Discord's request signatures with the application's
// public key.
type Verifier struct {
	key ed25519.PublicKey
	now func() time.Time
}

// NewVerifier parses the application's public key (64 hex digits, as the
// Developer Portal shows it). now nil means time.Now.
func NewVerifier(publicKeyHex string, now func() time.Time) (*Verifier, error) {
	key, err := ParsePublicKey(publicKeyHex)
	if err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	return &Verifier{key: key, now: now}, nil
}

// ParsePublicKey decodes an application public key from hex.
func ParsePublicKey(publicKeyHex string) (ed25519.PublicKey, error) {
	b, err := hex.DecodeString(strings.TrimSpace(publicKeyHex))
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fault.New(fault.Invalid, "DISCORD_PUBLIC_KEY must be the application's public key: %d hex digits", 2*ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// Verify reports why a request is not Discord's, or "" when it is: the
// signature (hex) must be a valid Ed25519 signature of timestamp+body
// under the key, and timestamp (unix seconds) within MaxSkew of the clock.
// ed25519.Verify compares in constant time; the reasons are for logs and
// say nothing about the key.
func (v *Verifier) Verify(signatureHex, timestamp string, body []byte) string {
	if signatureHex == "" || timestamp == "" {
		return "missing signature headers"
	}
	sig, err := hex.DecodeString(signatureHex)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return "malformed signature"
	}
	secs, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return "malformed timestamp"
	}
	if d := v.now().Sub(time.Unix(secs, 0)); d > MaxSkew || d < -MaxSkew {
		return "stale timestamp"
	}
	msg := make([]byte, 0, len(timestamp)+len(body))
	msg = append(append(msg, timestamp...), body...)
	if !ed25519.Verify(v.key, msg, sig) {
		return "bad signature"
	}
	return ""
}
