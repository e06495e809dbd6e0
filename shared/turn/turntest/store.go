// Package turntest holds the conformance suite every turn.Store
// implementation runs, and an in-memory Store for unit tests of the core.
package turntest

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run/runtest"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/steer"
	"github.com/zero-gateway/zero/shared/stopmark"
	"github.com/zero-gateway/zero/shared/turn"
)

// TestStore checks the turn.Store contract. Keys and message ids are unique
// per subtest, so newStore may return the same backing store every time.
func TestStore(t *testing.T, newStore func(t *testing.T) turn.Store) {
	ctx := context.Background()
	ids := func(t *testing.T) (key, msg string) {
		n := strings.ReplaceAll(t.Name(), "/", "_")
		return "agent:main:suite:" + strings.ToLower(n), "suite:" + n
	}
	entry := func(version int64) session.Entry {
		return session.Entry{
			SessionID: "3f1c2d4e-0000-4000-8000-000000000001", UpdatedAt: 1700000000000 + version,
			DisplayName: "Family", Channel: "telegram", ChatType: "group", GroupID: "-100", Subject: "Family",
			Origin:          session.Origin{Label: "Family", Provider: "telegram", From: "telegram:1", To: "-100", ThreadID: "7"},
			DeliveryContext: session.DeliveryContext{Channel: "telegram", To: "-100", ThreadID: "7"},
			LastChannel:     "telegram", LastTo: "-100", LastThreadID: "7",
			Model: "echo", ModelProvider: "zero", InputTokens: 10 * version, OutputTokens: 5, TotalTokens: 15, ContextTokens: 15,
			AgentID: "main", TranscriptSeq: version, LastEntryID: "a1b2c3d4", Version: version,
		}
	}
	context1 := sessionstate.ModelContext{SessionID: "3f1c2d4e-0000-4000-8000-000000000001", Messages: []model.Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello"}}}
	record := func(key, msg string) receipt.Receipt {
		return receipt.Receipt{MessageID: msg, SessionKey: key, State: receipt.Committed, Reply: "hello", Delivery: session.DeliveryContext{Channel: "telegram", To: "-100", ThreadID: "7"},
			Streamed: "hel", StreamedParts: 1} // a reply partly sent in blocks
	}

	t.Run("load of unknown key is empty", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		snap, err := s.Load(ctx, key, msg)
		if err != nil || snap.Entry != nil || snap.Context != nil || snap.Receipt != nil {
			t.Fatalf("Load = %+v, %v; want empty snapshot", snap, err)
		}
	})
	t.Run("commit then load round-trips every field", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		e, r := entry(1), record(key, msg)
		if err := s.Commit(ctx, key, e, context1, r); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		snap, err := s.Load(ctx, key, msg)
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if snap.Entry == nil || !reflect.DeepEqual(*snap.Entry, e) {
			t.Fatalf("entry = %+v\nwant    %+v", snap.Entry, e)
		}
		if snap.Context == nil || !reflect.DeepEqual(*snap.Context, context1) {
			t.Fatalf("context = %+v; want %+v", snap.Context, context1)
		}
		if snap.Receipt == nil || !reflect.DeepEqual(*snap.Receipt, r) {
			t.Fatalf("record = %+v; want %+v", snap.Receipt, r)
		}
	})
	t.Run("empty fields round-trip as empty", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		e := session.Entry{SessionID: "s", UpdatedAt: 1, Version: 1}
		if err := s.Commit(ctx, key, e, sessionstate.ModelContext{SessionID: "s"}, receipt.Receipt{MessageID: msg, SessionKey: key, State: receipt.Committed}); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		snap, err := s.Load(ctx, key, msg)
		if err != nil || snap.Entry == nil || !reflect.DeepEqual(*snap.Entry, e) {
			t.Fatalf("entry = %+v, %v; want %+v", snap.Entry, err, e)
		}
		if snap.Context == nil || snap.Context.SessionID != "s" || len(snap.Context.Messages) != 0 {
			t.Fatalf("context = %+v; want empty context of s", snap.Context)
		}
	})
	t.Run("first commit conflicts when the entry exists", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		if err := s.Commit(ctx, key, entry(1), context1, record(key, msg+"a")); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		other := entry(1)
		other.SessionID = "other"
		err := s.Commit(ctx, key, other, sessionstate.ModelContext{SessionID: "other"}, record(key, msg+"b"))
		if !fault.Is(err, fault.Conflict) {
			t.Fatalf("second version-1 Commit = %v; want fault.Conflict", err)
		}
		snap, _ := s.Load(ctx, key, msg+"b")
		if snap.Entry == nil || snap.Entry.SessionID != entry(1).SessionID || snap.Receipt != nil || snap.Context.SessionID != context1.SessionID {
			t.Fatalf("a failed Commit changed state: %+v", snap)
		}
	})
	t.Run("version check rejects a stale writer", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		for v := int64(1); v <= 3; v++ {
			if err := s.Commit(ctx, key, entry(v), context1, record(key, fmt.Sprint(msg, v))); err != nil {
				t.Fatalf("Commit v%d: %v", v, err)
			}
		}
		if err := s.Commit(ctx, key, entry(3), context1, record(key, msg+"stale")); !fault.Is(err, fault.Conflict) {
			t.Fatalf("stale Commit = %v; want fault.Conflict", err)
		}
		snap, _ := s.Load(ctx, key, msg+"stale")
		if snap.Entry.Version != 3 || snap.Receipt != nil {
			t.Fatalf("after stale Commit: version %d record %+v; want 3 and none", snap.Entry.Version, snap.Receipt)
		}
	})
	t.Run("a committed message cannot commit twice", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		if err := s.Commit(ctx, key, entry(1), context1, record(key, msg)); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		if err := s.Commit(ctx, key, entry(2), context1, record(key, msg)); !fault.Is(err, fault.Conflict) {
			t.Fatalf("Commit of a recorded message = %v; want fault.Conflict", err)
		}
		snap, _ := s.Load(ctx, key, msg)
		if snap.Entry.Version != 1 {
			t.Fatalf("entry version = %d after a rejected Commit; want 1 (atomic)", snap.Entry.Version)
		}
	})
	t.Run("version below 1 is invalid and writes nothing", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		if err := s.Commit(ctx, key, entry(0), context1, record(key, msg)); !fault.Is(err, fault.Invalid) {
			t.Fatalf("Commit of version 0 = %v; want fault.Invalid", err)
		}
		if snap, _ := s.Load(ctx, key, msg); snap.Entry != nil || snap.Receipt != nil {
			t.Fatalf("an invalid Commit wrote %+v", snap)
		}
	})
	t.Run("commit stores the record as committed", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		r := record(key, msg)
		r.State = receipt.Done
		if err := s.Commit(ctx, key, entry(1), context1, r); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		if snap, _ := s.Load(ctx, key, msg); snap.Receipt == nil || snap.Receipt.State != receipt.Committed {
			t.Fatalf("record = %+v; want state committed whatever the caller passed", snap.Receipt)
		}
	})
	t.Run("finish marks done and is idempotent", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		if err := s.Commit(ctx, key, entry(1), context1, record(key, msg)); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		for i := 0; i < 2; i++ {
			if err := s.Finish(ctx, key, msg); err != nil {
				t.Fatalf("Finish #%d: %v", i+1, err)
			}
		}
		snap, _ := s.Load(ctx, key, msg)
		if snap.Receipt == nil || snap.Receipt.State != receipt.Done || snap.Receipt.Reply != "" {
			t.Fatalf("record after Finish = %+v; want done without reply", snap.Receipt)
		}
		if snap.Entry == nil || snap.Entry.Version != 1 {
			t.Fatalf("Finish changed the entry: %+v", snap.Entry)
		}
	})
	t.Run("progress counts delivered messages until finish", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		if err := s.Commit(ctx, key, entry(1), context1, record(key, msg)); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		for sent := 1; sent <= 2; sent++ {
			if err := s.Progress(ctx, key, msg, sent); err != nil {
				t.Fatalf("Progress %d: %v", sent, err)
			}
			snap, _ := s.Load(ctx, key, msg)
			if snap.Receipt == nil || snap.Receipt.Sent != sent || snap.Receipt.State != receipt.Committed || snap.Receipt.Reply != "hello" {
				t.Fatalf("record after Progress %d = %+v", sent, snap.Receipt)
			}
		}
		if err := s.Finish(ctx, key, msg); err != nil {
			t.Fatalf("Finish: %v", err)
		}
		if err := s.Progress(ctx, key, msg, 3); !fault.Is(err, fault.Conflict) {
			t.Fatalf("Progress after Finish = %v; want fault.Conflict", err)
		}
		if err := s.Progress(ctx, key, msg+"-unknown", 1); !fault.Is(err, fault.NotFound) {
			t.Fatalf("Progress of an unknown message = %v; want fault.NotFound", err)
		}
	})
	t.Run("finish of an unknown message is not found", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		if err := s.Finish(ctx, key, msg); !fault.Is(err, fault.NotFound) {
			t.Fatalf("Finish unknown = %v; want fault.NotFound", err)
		}
	})
	t.Run("keys are isolated", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		if err := s.Commit(ctx, key+":a", entry(1), context1, record(key+":a", msg)); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		snap, err := s.Load(ctx, key+":b", msg+"other")
		if err != nil || snap.Entry != nil || snap.Context != nil || snap.Receipt != nil {
			t.Fatalf("Load of another key = %+v, %v; want empty", snap, err)
		}
	})
	t.Run("large context round-trips", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		big := sessionstate.ModelContext{SessionID: "s"}
		for i := 0; i < 200; i++ {
			big.Messages = append(big.Messages, model.Message{Role: "user", Content: strings.Repeat(fmt.Sprint(i%10), 1000)})
		}
		if err := s.Commit(ctx, key, entry(1), big, record(key, msg)); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		snap, err := s.Load(ctx, key, msg)
		if err != nil || snap.Context == nil || !reflect.DeepEqual(*snap.Context, big) {
			t.Fatalf("large context did not round-trip (err %v)", err)
		}
	})
	t.Run("a context with a base object round-trips", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		c := sessionstate.ModelContext{SessionID: "s", Base: "contexts/main/s/0a1b.json", BaseLen: 42, Messages: []model.Message{{Role: "user", Content: "after the base"}}}
		if err := s.Commit(ctx, key, entry(1), c, record(key, msg)); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		snap, err := s.Load(ctx, key, msg)
		if err != nil || snap.Context == nil {
			t.Fatalf("Load: %+v, %v", snap.Context, err)
		}
		if diff := cmp.Diff(c, *snap.Context); diff != "" {
			t.Errorf("context (-committed +loaded):\n%s", diff)
		}
	})
	t.Run("collected messages are recorded done with the turn", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		r := record(key, msg)
		r.Collected = []string{msg + "-b", msg + "-c"}
		if err := s.Commit(ctx, key, entry(1), context1, r); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		for _, id := range r.Collected {
			snap, err := s.Load(ctx, key, id)
			if err != nil || snap.Receipt == nil || snap.Receipt.State != receipt.Done || snap.Receipt.CollectedInto != msg {
				t.Fatalf("record of collected %s = %+v, %v; want done, into %s", id, snap.Receipt, err, msg)
			}
		}
		snap, _ := s.Load(ctx, key, msg)
		if snap.Receipt == nil || !reflect.DeepEqual(snap.Receipt.Collected, r.Collected) {
			t.Fatalf("the turn's record %+v does not list what it collected", snap.Receipt)
		}
	})
	t.Run("a collected message with a record conflicts and nothing is written", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		if err := s.Commit(ctx, key+":other", entry(1), context1, record(key+":other", msg+"-b")); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		r := record(key, msg)
		r.Collected = []string{msg + "-b"}
		if err := s.Commit(ctx, key, entry(1), context1, r); !fault.Is(err, fault.Conflict) {
			t.Fatalf("Commit = %v; want fault.Conflict", err)
		}
		if snap, _ := s.Load(ctx, key, msg); snap.Entry != nil || snap.Receipt != nil {
			t.Fatalf("a failed Commit wrote %+v", snap)
		}
	})
	t.Run("concurrent commits: exactly one wins", func(t *testing.T) {
		s := newStore(t)
		key, msg := ids(t)
		if err := s.Commit(ctx, key, entry(1), context1, record(key, msg)); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.Commit(ctx, key, entry(2), context1, record(key, fmt.Sprint(msg, "-", i)))
			}()
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			switch {
			case err == nil:
				wins++
			case !fault.Is(err, fault.Conflict):
				t.Errorf("concurrent Commit: %v; want nil or fault.Conflict", err)
			}
		}
		if wins != 1 {
			t.Fatalf("%d concurrent commits won; want exactly 1", wins)
		}
	})
	t.Run("move", func(t *testing.T) {
		if _, ok := newStore(t).(turn.Mover); !ok {
			t.Skip("the store does not implement turn.Mover")
		}
		testMove(t, newStore, ids, entry, record)
	})
}

// testMove checks turn.Mover: the migration of a session to a new key.
func testMove(t *testing.T, newStore func(t *testing.T) turn.Store, ids func(*testing.T) (string, string),
	entry func(int64) session.Entry, record func(key, msg string) receipt.Receipt) {
	ctx := context.Background()
	// moved is what a move writes: the entry at version 1 under the new key.
	moved := func(e session.Entry) session.Entry {
		e.Version, e.ChatType = 1, "supergroup"
		return e
	}
	// state is everything a move may touch: both keys' entries and
	// contexts, and the move's record.
	state := func(t *testing.T, s turn.Store, from, to, msg string) [2]sessionstate.Snapshot {
		t.Helper()
		a, err := s.Load(ctx, from, msg)
		if err != nil {
			t.Fatalf("Load %s: %v", from, err)
		}
		b, err := s.Load(ctx, to, msg)
		if err != nil {
			t.Fatalf("Load %s: %v", to, err)
		}
		return [2]sessionstate.Snapshot{a, b}
	}

	t.Run("carries the session to the new key", func(t *testing.T) {
		s := newStore(t)
		mv := s.(turn.Mover)
		key, msg := ids(t)
		from, to := key+":group", key+":supergroup"
		for v := int64(1); v <= 2; v++ {
			if err := s.Commit(ctx, from, entry(v), context1Of(entry(v)), record(from, fmt.Sprint(msg, v))); err != nil {
				t.Fatalf("Commit v%d: %v", v, err)
			}
		}
		e, r := moved(entry(2)), record(to, msg+"move")
		r.State = receipt.Done // Move stores Committed whatever it is given
		if err := mv.Move(ctx, from, 2, to, e, r); err != nil {
			t.Fatalf("Move: %v", err)
		}
		got := state(t, s, from, to, msg+"move")
		if got[0].Entry != nil || got[0].Context != nil {
			t.Errorf("old key after Move: entry %+v context %+v; want both gone", got[0].Entry, got[0].Context)
		}
		if got[1].Entry == nil || !reflect.DeepEqual(*got[1].Entry, e) {
			t.Errorf("new key's entry = %+v\nwant %+v", got[1].Entry, e)
		}
		if got[1].Entry != nil && got[1].Entry.SessionID != entry(2).SessionID {
			t.Errorf("Move changed the session id")
		}
		r.State = receipt.Committed
		if got[1].Receipt == nil || !reflect.DeepEqual(*got[1].Receipt, r) {
			t.Errorf("record = %+v; want %+v", got[1].Receipt, r)
		}
		// The moved session goes on at version 2 under its new key.
		next := e
		next.Version = 2
		if err := s.Commit(ctx, to, next, context1Of(next), record(to, msg+"next")); err != nil {
			t.Errorf("Commit after Move: %v", err)
		}

		before := state(t, s, from, to, msg+"again")
		if err := mv.Move(ctx, from, 2, to, e, record(to, msg+"again")); !fault.Is(err, fault.Conflict) {
			t.Fatalf("second Move = %v; want fault.Conflict", err)
		}
		if after := state(t, s, from, to, msg+"again"); !reflect.DeepEqual(after, before) {
			t.Fatalf("a failed Move changed state:\n%+v\nwant %+v", after, before)
		}
	})

	tests := []struct {
		name string
		// setup prepares from and to; the move then goes from at version 1.
		setup   func(t *testing.T, s turn.Store, from, to, msg string)
		version int64 // of the moved entry
		want    fault.Code
	}{
		{"target exists", func(t *testing.T, s turn.Store, from, to, msg string) {
			commitAt(t, s, from, entry(1), record(from, msg+"1"))
			other := entry(1)
			other.SessionID = "other"
			commitAt(t, s, to, other, record(to, msg+"2"))
		}, 1, fault.Conflict},
		{"source version changed", func(t *testing.T, s turn.Store, from, to, msg string) {
			commitAt(t, s, from, entry(1), record(from, msg+"1"))
			commitAt(t, s, from, entry(2), record(from, msg+"2"))
		}, 1, fault.Conflict},
		{"source missing", func(*testing.T, turn.Store, string, string, string) {}, 1, fault.Conflict},
		{"message already committed", func(t *testing.T, s turn.Store, from, to, msg string) {
			commitAt(t, s, from, entry(1), record(from, msg+"move"))
		}, 1, fault.Conflict},
		{"moved entry not at version 1", func(t *testing.T, s turn.Store, from, to, msg string) {
			commitAt(t, s, from, entry(1), record(from, msg+"1"))
		}, 2, fault.Invalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			key, msg := ids(t)
			from, to := key+":group", key+":supergroup"
			tc.setup(t, s, from, to, msg)
			before := state(t, s, from, to, msg+"move")
			e := moved(entry(1))
			e.Version = tc.version
			err := s.(turn.Mover).Move(ctx, from, 1, to, e, record(to, msg+"move"))
			if !fault.Is(err, tc.want) {
				t.Fatalf("Move = %v; want fault.%s", err, tc.want)
			}
			if after := state(t, s, from, to, msg+"move"); !reflect.DeepEqual(after, before) {
				t.Fatalf("a failed Move changed state:\n%+v\nwant %+v", after, before)
			}
		})
	}
}

func context1Of(e session.Entry) sessionstate.ModelContext {
	return sessionstate.ModelContext{SessionID: e.SessionID, Messages: []model.Message{{Role: "user", Content: "hi"}}}
}

func commitAt(t *testing.T, s turn.Store, key string, e session.Entry, r receipt.Receipt) {
	t.Helper()
	if err := s.Commit(context.Background(), key, e, context1Of(e), r); err != nil {
		t.Fatalf("Commit %s v%d: %v", key, e.Version, err)
	}
}

// MemStore is an in-memory turn.Store. Safe for concurrent use.
type MemStore struct {
	mu       sync.Mutex
	entries  map[string]session.Entry
	contexts map[string]sessionstate.ModelContext
	records  map[string]receipt.Receipt
	stops    map[string]stopmark.Mark
	failures map[string]Failure // by message id; see failures.go
	runs     *runtest.MemStore  // where CommitWith writes run outcomes (UseRuns)
	steers   map[string][]steer.Pending
	// Calls counts every method call.
	Calls int
}

// NewMemStore returns an empty store.
func NewMemStore() *MemStore {
	return &MemStore{entries: map[string]session.Entry{}, contexts: map[string]sessionstate.ModelContext{}, records: map[string]receipt.Receipt{}, stops: map[string]stopmark.Mark{}}
}

// Load implements turn.Store.
func (m *MemStore) Load(_ context.Context, key, messageID string) (sessionstate.Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	var snap sessionstate.Snapshot
	if e, ok := m.entries[key]; ok {
		snap.Entry = &e
	}
	if c, ok := m.contexts[key]; ok {
		c.Messages = append([]model.Message(nil), c.Messages...)
		snap.Context = &c
	}
	if r, ok := m.records[messageID]; ok {
		snap.Receipt = &r
	}
	if st, ok := m.stops[key]; ok {
		snap.Stop = &st
	}
	return snap, nil
}

// Commit implements turn.Store.
func (m *MemStore) Commit(_ context.Context, key string, e session.Entry, c sessionstate.ModelContext, r receipt.Receipt) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	return m.commit(key, e, c, r)
}

// commit is Commit under m.mu.
func (m *MemStore) commit(key string, e session.Entry, c sessionstate.ModelContext, r receipt.Receipt) error {
	old, exists := m.entries[key]
	switch {
	case e.Version < 1:
		return fault.New(fault.Invalid, "session %s: entry version %d, want >= 1", key, e.Version)
	case e.Version == 1 && exists:
		return fault.New(fault.Conflict, "session %s exists", key)
	case e.Version > 1 && (!exists || old.Version != e.Version-1):
		return fault.New(fault.Conflict, "session %s version moved", key)
	}
	for _, id := range append([]string{r.MessageID}, r.Collected...) {
		if _, ok := m.records[id]; ok {
			return fault.New(fault.Conflict, "message %s already committed", id)
		}
	}
	r.State = receipt.Committed
	m.entries[key] = e
	c.Messages = append([]model.Message(nil), c.Messages...)
	m.contexts[key] = c
	r.Collected = append([]string(nil), r.Collected...)
	m.records[r.MessageID] = r
	for _, id := range r.Collected {
		m.records[id] = receipt.Receipt{MessageID: id, SessionKey: key, State: receipt.Done, CollectedInto: r.MessageID}
	}
	return nil
}

// Progress implements turn.Store.
func (m *MemStore) Progress(_ context.Context, _, messageID string, sent int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	r, ok := m.records[messageID]
	switch {
	case !ok:
		return fault.New(fault.NotFound, "message %s not committed", messageID)
	case r.State != receipt.Committed:
		return fault.New(fault.Conflict, "message %s is %s", messageID, r.State)
	}
	r.Sent = sent
	m.records[messageID] = r
	return nil
}

// Finish implements turn.Store.
func (m *MemStore) Finish(_ context.Context, _, messageID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	r, ok := m.records[messageID]
	if !ok {
		return fault.New(fault.NotFound, "message %s not committed", messageID)
	}
	r.State, r.Reply = receipt.Done, ""
	m.records[messageID] = r
	return nil
}

// DeleteSession removes the entry and context of key (as a user deleting a
// session would); records stay.
func (m *MemStore) DeleteSession(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.entries, key)
	delete(m.contexts, key)
}
