package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"
)

// Recorder numbers the events of one run and keeps the ones not yet
// persisted, so its owner flushes them where it chooses (Store.Start,
// Append, Finish) and a failed flush loses nothing:
//
//	evs := rec.Pending()
//	if err := store.Append(ctx, rec.RunID(), evs); err == nil {
//		rec.MarkFlushed(len(evs))
//	}
//
// Seqs count from 1 (or from Continue's point) without gaps. Emitting
// never fails: data that does not encode or is over MaxDataBytes is
// replaced by a marker (see Emit), so the run goes on and every event is
// storable. Safe for concurrent use (parallel tool calls).
type Recorder struct {
	runID string
	now   func() time.Time

	mu      sync.Mutex
	seq     int64   // the last seq handed out
	pending []Event // emitted, not yet marked flushed, in seq order
}

// NewRecorder returns the Recorder of runID. now is its clock (time.Now
// when nil).
func NewRecorder(runID string, now func() time.Time) *Recorder {
	if now == nil {
		now = time.Now
	}
	return &Recorder{runID: runID, now: now}
}

// RunID is the run the events belong to.
func (r *Recorder) RunID() string { return r.runID }

// Seq is the seq of the last event emitted, 0 before the first.
func (r *Recorder) Seq() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

// Continue makes the next event afterSeq+1, for an attempt that resumes a
// run an earlier attempt had begun (afterSeq from Store.LastSeq), so its
// events follow the stored ones instead of replacing them. Call it before
// the first event; it never moves the numbering back.
func (r *Recorder) Continue(afterSeq int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq = max(r.seq, afterSeq)
}

// Pending returns the events not yet marked flushed, in seq order.
func (r *Recorder) Pending() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.pending...)
}

// MarkFlushed forgets the first n pending events: those a Pending call
// returned and the store has since accepted. Events emitted meanwhile
// stay pending.
func (r *Recorder) MarkFlushed(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n = min(max(n, 0), len(r.pending))
	r.pending = append(r.pending[:0:0], r.pending[n:]...)
}

// Emit appends an event on stream with data encoded as JSON (nil: no
// data) and returns it. Data that does not encode becomes
// {"error":"unencodable event data: …"}; data over MaxDataBytes becomes
// {"truncated":true,"bytes":<its size>}. The helpers below keep their
// identifying fields (phase, name, toolCallId) in both cases.
func (r *Recorder) Emit(stream string, data any) Event {
	return r.emit(stream, nil, data)
}

// Lifecycle emits a lifecycle event {"phase": phase, ...extra}: start,
// end or error (upstream adds startedAt, endedAt, error in extra).
func (r *Recorder) Lifecycle(phase string, extra map[string]any) Event {
	var data any
	if len(extra) > 0 {
		data = extra
	}
	return r.emit(StreamLifecycle, map[string]any{"phase": phase}, data)
}

// Assistant emits an assistant event {"text": text}. Text too long for
// MaxDataBytes is cut (at a character boundary) and marked
// "truncated": true.
func (r *Recorder) Assistant(text string) Event {
	data, err := encode(map[string]string{"text": text})
	for err == nil && len(data) > MaxDataBytes {
		// Escaping makes the encoding longer than the text: scale the text
		// down by the overshoot until it fits (two rounds at most, in
		// practice).
		keep := int(int64(len(text)) * (MaxDataBytes - 64) / int64(len(data)))
		for keep > 0 && !utf8.RuneStart(text[keep]) {
			keep--
		}
		text = text[:keep]
		data, err = encode(map[string]any{"text": text, "truncated": true})
	}
	if err != nil { // a string always encodes; kept for safety
		return r.emit(StreamAssistant, nil, map[string]string{"error": err.Error()})
	}
	return r.append(StreamAssistant, data)
}

// Tool emits a tool event {"phase", "name", "toolCallId", ...}: phase
// start (data: the arguments), update or result. When data encodes as a
// JSON object its fields are merged in (the three above win), any other
// value is added as "data", nil adds nothing. Upstream's fields are args,
// partialResult, result, isError, meta.
func (r *Recorder) Tool(phase, name, callID string, data any) Event {
	return r.emit(StreamTool, map[string]any{"phase": phase, "name": name, "toolCallId": callID}, data)
}

// Compaction emits a compaction event {"phase": phase, ...data}, data
// merged as in Tool.
func (r *Recorder) Compaction(phase string, data any) Event {
	return r.emit(StreamCompaction, map[string]any{"phase": phase}, data)
}

// emit encodes fixed merged with data (see Tool) and appends the event.
func (r *Recorder) emit(stream string, fixed map[string]any, data any) Event {
	encoded, err := merge(fixed, data)
	if err != nil {
		encoded, _ = merge(fixed, map[string]string{"error": "unencodable event data: " + err.Error()})
	}
	if len(encoded) > MaxDataBytes {
		encoded, _ = merge(fixed, map[string]any{"truncated": true, "bytes": len(encoded)})
	}
	return r.append(stream, encoded)
}

func (r *Recorder) append(stream string, data json.RawMessage) Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	e := Event{RunID: r.runID, Seq: r.seq, Stream: stream, TS: r.now().UnixMilli(), Data: data}
	r.pending = append(r.pending, e)
	return e
}

// merge encodes data, adding fixed's fields when there are any: an object
// is merged field by field (fixed wins), another value goes under "data".
// Map keys encode sorted, so equal input gives equal bytes (a replayed
// event is the same event).
func merge(fixed map[string]any, data any) (json.RawMessage, error) {
	var raw json.RawMessage
	if data != nil {
		b, err := encode(data)
		if err != nil {
			return nil, err
		}
		if string(b) != "null" {
			raw = b
		}
	}
	if len(fixed) == 0 {
		return raw, nil
	}
	fields := map[string]json.RawMessage{}
	if len(raw) > 0 && raw[0] == '{' {
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, fmt.Errorf("merge event data: %w", err)
		}
	} else if len(raw) > 0 {
		fields["data"] = raw
	}
	for k, v := range fixed {
		b, err := encode(v)
		if err != nil {
			return nil, err
		}
		fields[k] = b
	}
	return encode(fields)
}

// encode is json.Marshal without HTML escaping: "<" in a reply stays one
// byte instead of six, which matters against MaxDataBytes.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Rewind forgets the pending events after seq and numbers the next event
// seq+1, for an owner whose write of those events failed as a whole and
// that will write other ones in their place (a turn whose commit was
// refused by a /stop records the run as aborted instead of ok). Events
// already marked flushed are never forgotten: the numbering goes back at
// most to the last of them.
func (r *Recorder) Rewind(seq int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Pending events are the last ones handed out, without gaps.
	flushed := r.seq - int64(len(r.pending))
	r.seq = min(max(seq, flushed), r.seq)
	r.pending = r.pending[:r.seq-flushed]
}
