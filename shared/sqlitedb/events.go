package sqlitedb

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/zero-gateway/zero/shared/upstream"
)

// maxEventBytes bounds one decoded event: a frame claiming more is refused
// before it is decoded (a transcript event is a message, not a file).
const maxEventBytes = 64 << 20

// event is one row of transcript_events.
type event struct {
	seq  int64
	json sql.NullString
	zstd []byte
	size sql.NullInt64 // event_utf8_bytes
}

// decodeEvent returns the event's JSON, compacted: event_json when set,
// else event_zstd decoded (a standard zstd frame) and checked against
// event_utf8_bytes. An event with neither, a frame that does not decode,
// a decoded length other than event_utf8_bytes, or text that is not a
// JSON value is an error; nothing is guessed.
func decodeEvent(ev event) ([]byte, error) {
	raw := []byte(ev.json.String)
	switch {
	case ev.json.Valid:
	case ev.zstd != nil:
		var err error
		if raw, err = unzstd(ev.zstd, ev.size); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("event has neither event_json nor event_zstd")
	}
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	return out.Bytes(), nil
}

// decoder is the one zstd decoder every Read shares (DecodeAll is safe
// for concurrent use), its memory bounded by maxEventBytes.
var decoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxEventBytes))
})

// unzstd decodes one zstd frame whose decoded length must be size.
func unzstd(frame []byte, size sql.NullInt64) ([]byte, error) {
	if !size.Valid || size.Int64 < 0 || size.Int64 > maxEventBytes {
		return nil, fmt.Errorf("event_zstd without a usable event_utf8_bytes (%v)", size)
	}
	dec, err := decoder()
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	out, err := dec.DecodeAll(frame, make([]byte, 0, size.Int64))
	if err != nil {
		return nil, fmt.Errorf("event_zstd does not decode: %v", err)
	}
	if int64(len(out)) != size.Int64 {
		return nil, fmt.Errorf("event_zstd decodes to %d bytes, event_utf8_bytes says %d", len(out), size.Int64)
	}
	return out, nil
}

// transcriptOf reads, decodes and checks the transcript events of
// sessionID in seq order; cols are transcript_events' session id, seq,
// JSON, zstd and size columns (the last two "" when absent). A missing or
// bad transcript is a Problem naming the first bad event's seq; a failed
// query an error.
func transcriptOf(ctx context.Context, db *sql.DB, path string, cols []string, sessionID, key string) (upstream.Transcript, *upstream.Problem, error) {
	where := &upstream.Problem{Path: path + "#transcript_events", Key: key}
	evs, err := readEvents(ctx, db, cols, sessionID)
	var bad *badRow
	if errors.As(err, &bad) {
		where.Err = bad.Error()
		return upstream.Transcript{}, where, nil
	}
	if err != nil {
		return upstream.Transcript{}, nil, fmt.Errorf("%s: read transcript_events of %s: %w", path, sessionID, err)
	}
	if len(evs) == 0 {
		where.Err = "session " + sessionID + " has no transcript events"
		return upstream.Transcript{}, where, nil
	}
	var stream bytes.Buffer
	for _, ev := range evs {
		line, err := decodeEvent(ev)
		if err != nil {
			where.Line, where.Err = int(ev.seq), fmt.Sprintf("seq %d: %v", ev.seq, err)
			return upstream.Transcript{}, where, nil
		}
		stream.Write(line)
		stream.WriteByte('\n')
	}
	t, err := upstream.ParseTranscript(stream.Bytes())
	if le, ok := err.(*upstream.LineError); ok {
		seq := evs[min(le.Line, len(evs))-1].seq
		where.Line, where.Err = int(seq), fmt.Sprintf("seq %d: %s", seq, le.Msg)
		return upstream.Transcript{}, where, nil
	}
	return t, nil, err
}

// readEvents reads sessionID's rows of transcript_events in seq order.
func readEvents(ctx context.Context, db *sql.DB, cols []string, sessionID string) ([]event, error) {
	col := func(name string) string {
		if name == "" {
			return "NULL"
		}
		return fmt.Sprintf("%q", name)
	}
	q := fmt.Sprintf(`SELECT %s, %s, %s, %s FROM transcript_events WHERE %s = ? ORDER BY %s`,
		col(cols[1]), col(cols[2]), col(cols[3]), col(cols[4]), col(cols[0]), col(cols[1]))
	rows, err := db.QueryContext(ctx, q, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var evs []event
	for rows.Next() {
		var ev event
		if err := rows.Scan(&ev.seq, &ev.json, &ev.zstd, &ev.size); err != nil {
			return nil, &badRow{after: evs, err: err}
		}
		evs = append(evs, ev)
	}
	return evs, rows.Err()
}

// badRow is a transcript_events row whose columns have types the store's
// schema does not allow (its session is a Problem, not a failed import).
type badRow struct {
	after []event // the rows read before it
	err   error
}

func (b *badRow) Error() string {
	if len(b.after) == 0 {
		return fmt.Sprintf("the first event cannot be read: %v", b.err)
	}
	return fmt.Sprintf("the event after seq %d cannot be read: %v", b.after[len(b.after)-1].seq, b.err)
}
