// Package contextstore keeps a session's model context — every message the
// model sees, from the session's start or its last compaction — at any size
// a model window allows, while a short conversation still lives whole
// inside the session store's context item.
//
// A context is stored as a Split: an optional base, one immutable object
// named from its content (a SHA-256 of its bytes), holding the first
// BaseLen messages, and an inline tail of the messages after it, which the
// session store keeps beside the entry. Fold moves the whole context into a
// new base when the tail outgrows InlineBytes, so the store item stays far
// below DynamoDB's 400 KB and a turn's transactional write stays small
// however long the conversation grows; nothing is ever dropped to make it
// fit.
//
// Crash safety: a base is written (create-only) before the commit that
// names it, and never changed after. A turn killed after the write leaves an
// unreferenced object (swept by the bucket's lifecycle rule); its retry
// still loads the Split the last commit stored, so it reads the context it
// started from, and writes the same content under the same name.
package contextstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// InlineBytes bounds the encoded tail kept inline in the session's context
// item. Below it a conversation costs no object call at all; above it a
// turn reads its base (one GET) and, when the tail would pass it again,
// writes a new one (one PUT). 16 KiB keeps the context item at 32 write
// units or less in a transaction.
const InlineBytes = 16 << 10

// Prefix is the folder of every base object; the bucket's lifecycle rule
// expires objects under it (template.yaml), and the runner's role may read
// and write only there.
const Prefix = "contexts/"

// Objects is the object storage bases live on (a transcript.Bucket:
// shared/s3store, transcripttest.MemBucket).
type Objects interface {
	// Create stores data under key only if key does not exist yet; an
	// existing key is a fault.Conflict error.
	Create(ctx context.Context, key string, data []byte) error
	// Get returns the object, or a fault.NotFound error.
	Get(ctx context.Context, key string) ([]byte, error)
}

// Split is a context as the session store keeps it.
type Split struct {
	Base    string          // key of the base object; "" when there is none
	BaseLen int             // messages in the base
	Tail    []model.Message // the messages after the base
}

// Len is the number of messages in the whole context.
func (s Split) Len() int { return s.BaseLen + len(s.Tail) }

// Store reads and writes bases on its Objects. Safe for concurrent use.
type Store struct {
	objects Objects
	inline  int
}

// New returns a Store keeping tails up to InlineBytes.
func New(objects Objects) *Store { return &Store{objects: objects, inline: InlineBytes} }

// WithInline returns a copy of s that keeps tails up to n bytes (tests use
// a small n to fold early).
func (s *Store) WithInline(n int) *Store { c := *s; c.inline = n; return &c }

// Expand returns the whole context of sp: its base's messages, then its
// tail. A split without a base costs no call. A missing base is a
// fault.NotFound error (the caller rebuilds the context from the
// transcript, its source of truth); a base that does not decode to BaseLen
// messages is fault.Internal.
func (s *Store) Expand(ctx context.Context, sp Split) ([]model.Message, error) {
	if sp.Base == "" {
		return sp.Tail, nil
	}
	data, err := s.objects.Get(ctx, sp.Base)
	if err != nil {
		return nil, fmt.Errorf("read context base %s: %w", sp.Base, err)
	}
	var base []model.Message
	if err := json.Unmarshal(data, &base); err != nil {
		return nil, fault.Wrap(fault.Internal, err, "decode context base %s", sp.Base)
	}
	if len(base) != sp.BaseLen {
		return nil, fault.New(fault.Internal, "context base %s holds %d messages, the session says %d", sp.Base, len(base), sp.BaseLen)
	}
	return append(base, sp.Tail...), nil
}

// Fold returns how to store msgs, the context after a turn, given prev,
// the split the turn loaded. prev must describe a prefix of msgs (pass a
// zero Split when the turn replaced the context, as a compaction does).
// The result keeps prev's base when the messages after it fit inline;
// else it is msgs whole when they fit inline; else a new base holding
// msgs, written under folder (one create-only write; an object already
// there has the same content, by its name, and is reused).
//
// Idempotent: the same msgs give the same split and the same object.
func (s *Store) Fold(ctx context.Context, folder string, prev Split, msgs []model.Message) (Split, error) {
	based := prev.Base != "" && prev.BaseLen <= len(msgs)
	if based {
		if tail := msgs[prev.BaseLen:]; EncodedSize(tail) <= s.inline {
			return Split{Base: prev.Base, BaseLen: prev.BaseLen, Tail: tail}, nil
		}
	}
	// Encoded once: its size decides, and it is the base's content.
	data, err := Encode(msgs)
	if err != nil {
		return Split{}, fault.Wrap(fault.Internal, err, "encode context")
	}
	if !based && len(data) <= s.inline {
		return Split{Tail: msgs}, nil
	}
	sum := sha256.Sum256(data)
	key := Prefix + folder + "/" + hex.EncodeToString(sum[:]) + ".json"
	if err := s.objects.Create(ctx, key, data); err != nil && !fault.Is(err, fault.Conflict) {
		return Split{}, fmt.Errorf("write context base %s: %w", key, err)
	}
	return Split{Base: key, BaseLen: len(msgs)}, nil
}

// Folder is the folder of a session's bases under Prefix.
func Folder(agentID, sessionID string) string { return agentID + "/" + sessionID }

// Encode is the stored form of msgs: a JSON array, HTML characters left
// as they are ("<" stays one byte).
func Encode(msgs []model.Message) ([]byte, error) {
	if msgs == nil {
		msgs = []model.Message{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msgs); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// EncodedSize is len(Encode(msgs)), or a size above any budget when msgs
// do not encode.
func EncodedSize(msgs []model.Message) int {
	data, err := Encode(msgs)
	if err != nil {
		return int(^uint(0) >> 1)
	}
	return len(data)
}
