package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
)

// Bucket is the object storage a transcript lives on. Implementations:
// shared/s3store (S3) and transcripttest.MemBucket; both pass
// transcripttest.TestBucket.
type Bucket interface {
	// Create stores data under key only if key does not exist yet; it
	// returns a fault.Conflict error when it does (whatever its content).
	Create(ctx context.Context, key string, data []byte) error
	// Get returns the object, or a fault.NotFound error.
	Get(ctx context.Context, key string) ([]byte, error)
	// List returns every key with the prefix, in lexical order.
	List(ctx context.Context, prefix string) ([]string, error)
}

// Path returns the logical transcript path of a session, as the seed lays it
// out; Telegram forum topics get their own "-topic-<threadId>" file.
func Path(agentID, sessionID, threadID string) string {
	name := sessionID
	if threadID != "" {
		name += "-topic-" + threadID
	}
	return "agents/" + agentID + "/sessions/" + name + ".jsonl"
}

// PartKey is the object key of part seq (1-based) of the transcript at path.
func PartKey(path string, seq int64) string {
	return fmt.Sprintf("%s.d/%010d.jsonl", path, seq)
}

// Log reads and writes transcripts on a Bucket.
type Log struct{ bucket Bucket }

// NewLog returns a Log over bucket.
func NewLog(bucket Bucket) *Log { return &Log{bucket: bucket} }

// WritePart stores one turn's lines as part seq. It is idempotent per
// (path, seq): when the part exists it returns a fault.Conflict error and
// leaves it unchanged, so the caller can read it back and adopt it.
func (l *Log) WritePart(ctx context.Context, path string, seq int64, lines []any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, line := range lines {
		if err := enc.Encode(line); err != nil {
			return fault.Wrap(fault.Internal, err, "encode transcript line")
		}
	}
	return l.bucket.Create(ctx, PartKey(path, seq), buf.Bytes())
}

// Part returns the lines of part seq (the header excluded), or a
// fault.NotFound error.
func (l *Log) Part(ctx context.Context, path string, seq int64) ([]Line, error) {
	data, err := l.bucket.Get(ctx, PartKey(path, seq))
	if err != nil {
		return nil, err
	}
	return parseLines(data)
}

// Read returns the whole transcript as one JSONL stream: the parts in order.
// A missing transcript reads as empty.
func (l *Log) Read(ctx context.Context, path string) ([]byte, error) {
	keys, err := l.bucket.List(ctx, path+".d/")
	if err != nil {
		return nil, err
	}
	sort.Strings(keys) // zero-padded seq: lexical order is turn order
	var out bytes.Buffer
	for _, k := range keys {
		data, err := l.bucket.Get(ctx, k)
		if err != nil {
			return nil, err
		}
		out.Write(data)
	}
	return out.Bytes(), nil
}

// Lines parses a JSONL stream into its message lines, skipping the header
// and any line it cannot parse (upstream files may carry types ZERO does
// not know yet).
func Lines(stream []byte) []Line {
	lines, _ := parseLines(stream)
	return lines
}

func parseLines(data []byte) ([]Line, error) {
	var out []Line
	for _, raw := range strings.Split(string(data), "\n") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		var l Line
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			return out, fault.Wrap(fault.Invalid, err, "transcript line is not JSON")
		}
		if l.Type == "session" {
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

// Remover is the optional Bucket capability to delete an object; deleting
// a missing object succeeds.
type Remover interface {
	Remove(ctx context.Context, key string) error
}

// Delete removes the transcript at path, part by part (a List and one
// delete per part). It is idempotent: a missing transcript is deleted
// already. A bucket that cannot delete is fault.Internal.
func (l *Log) Delete(ctx context.Context, path string) error {
	r, ok := l.bucket.(Remover)
	if !ok {
		return fault.New(fault.Internal, "this transcript store cannot delete")
	}
	keys, err := l.bucket.List(ctx, path+".d/")
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := r.Remove(ctx, k); err != nil {
			return err
		}
	}
	return nil
}
