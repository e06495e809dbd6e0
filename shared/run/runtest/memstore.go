package runtest

import (
	"context"
	"slices"
	"sync"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/run"
)

var _ Store = (*MemStore)(nil)

// MemStore is an in-memory run.Store and run.Reader, for tests of the core.
// Safe for concurrent use; every method holds one lock, so each write is
// atomic.
type MemStore struct {
	mu     sync.Mutex
	runs   map[string]run.Record
	events map[string]map[int64]run.Event // runId -> seq -> event
}

// NewMemStore returns an empty store.
func NewMemStore() *MemStore {
	return &MemStore{runs: map[string]run.Record{}, events: map[string]map[int64]run.Event{}}
}

// Start implements run.Store.
func (m *MemStore) Start(_ context.Context, rec run.Record, events []run.Event) error {
	if err := rec.CheckStart(); err != nil {
		return err
	}
	if err := run.CheckEvents(rec.RunID, events); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	rec.Status = run.StatusRunning
	if stored, ok := m.runs[rec.RunID]; ok {
		rec = fill(stored, rec)
	}
	m.runs[rec.RunID] = rec
	m.put(rec.RunID, events)
	return nil
}

// Append implements run.Store.
func (m *MemStore) Append(_ context.Context, runID string, events []run.Event) error {
	if err := run.CheckEvents(runID, events); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.put(runID, events)
	return nil
}

// Finish implements run.Store.
func (m *MemStore) Finish(_ context.Context, rec run.Record, events []run.Event) error {
	if err := rec.CheckFinish(); err != nil {
		return err
	}
	if err := run.CheckEvents(rec.RunID, events); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	stored, ok := m.runs[rec.RunID]
	switch {
	case !ok:
		return fault.New(fault.NotFound, "finish run %s: no such run", rec.RunID)
	case stored.Status == rec.Status:
		m.put(rec.RunID, events) // a replay: the events again, the record as it is
		return nil
	case stored.Status != run.StatusRunning:
		return fault.New(fault.Conflict, "finish run %s as %s: already %s", rec.RunID, rec.Status, stored.Status)
	}
	m.put(rec.RunID, events)
	m.runs[rec.RunID] = ended(stored, rec)
	return nil
}

// Get implements run.Store.
func (m *MemStore) Get(_ context.Context, runID string) (run.Record, error) {
	if err := run.CheckID(runID); err != nil {
		return run.Record{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.runs[runID]
	if !ok {
		return run.Record{}, fault.New(fault.NotFound, "no run %s", runID)
	}
	return rec, nil
}

// Events implements run.Reader.
func (m *MemStore) Events(_ context.Context, runID string, afterSeq int64, limit int) ([]run.Event, error) {
	if err := run.CheckID(runID); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var seqs []int64
	for seq := range m.events[runID] {
		if seq > afterSeq {
			seqs = append(seqs, seq)
		}
	}
	slices.Sort(seqs)
	seqs = seqs[:min(len(seqs), run.ClampLimit(limit))]
	var out []run.Event
	for _, seq := range seqs {
		out = append(out, m.events[runID][seq])
	}
	return out, nil
}

// LastSeq implements run.Store.
func (m *MemStore) LastSeq(_ context.Context, runID string) (int64, error) {
	if err := run.CheckID(runID); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var last int64
	for seq := range m.events[runID] {
		last = max(last, seq)
	}
	return last, nil
}

// put stores events under runID, replacing any with the same seq. The
// caller holds the lock.
func (m *MemStore) put(runID string, events []run.Event) {
	if len(events) == 0 {
		return
	}
	if m.events[runID] == nil {
		m.events[runID] = map[int64]run.Event{}
	}
	for _, e := range events {
		e.RunID = runID
		if len(e.Data) == 0 {
			e.Data = nil
		} else {
			e.Data = slices.Clone(e.Data) // the caller may reuse its buffer
		}
		m.events[runID][e.Seq] = e
	}
}

// ended is stored after Finish (or Settle) with rec: the terminal fields
// from rec, the others kept where stored has them.
func ended(stored, rec run.Record) run.Record {
	next := stored
	next.Status, next.EndedAt = rec.Status, rec.EndedAt
	for _, f := range []struct{ dst, src *string }{{&next.Error, &rec.Error}, {&next.Model, &rec.Model}, {&next.Reply, &rec.Reply}} {
		if *f.src != "" {
			*f.dst = *f.src
		}
	}
	if rec.Usage != (run.Usage{}) {
		next.Usage = rec.Usage
	}
	return fill(next, rec)
}

// fill returns stored with its empty fields taken from rec: what a write
// that keeps the stored values (DynamoDB's if_not_exists) does.
func fill(stored, rec run.Record) run.Record {
	for _, f := range []struct{ dst, src *string }{
		{&stored.SessionKey, &rec.SessionKey}, {&stored.SessionID, &rec.SessionID},
		{&stored.MessageID, &rec.MessageID}, {&stored.Error, &rec.Error}, {&stored.Model, &rec.Model},
	} {
		if *f.dst == "" {
			*f.dst = *f.src
		}
	}
	if stored.StartedAt == 0 {
		stored.StartedAt = rec.StartedAt
	}
	if stored.EndedAt == 0 {
		stored.EndedAt = rec.EndedAt
	}
	if stored.Usage == (run.Usage{}) {
		stored.Usage = rec.Usage
	}
	return stored
}

// Settle writes rec (a terminal record) and events at once, whatever the
// stored status: the write of a run outcome that rides in a turn's commit
// (sessionstate.Extra.Run), which its message receipt already makes happen once.
// Stored fields keep their values except those Finish sets; a run with no
// record gets rec as it is.
func (m *MemStore) Settle(rec run.Record, events []run.Event) error {
	if err := rec.CheckFinish(); err != nil {
		return err
	}
	if err := run.CheckEvents(rec.RunID, events); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.put(rec.RunID, events)
	stored, ok := m.runs[rec.RunID]
	if !ok {
		m.runs[rec.RunID] = rec
		return nil
	}
	m.runs[rec.RunID] = ended(stored, rec)
	return nil
}
