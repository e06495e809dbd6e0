package sessions_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/transcript"
	"github.com/zero-gateway/zero/shared/transcript/transcripttest"
)

const (
	groupKey = "agent:main:telegram:group:-100"
	workKey  = "agent:work:main"
	mainKey  = "agent:main:main"
	// callerTurn is the id of the caller's message, the turn whose model
	// calls the tools.
	callerTurn = "telegram:42:1001"
)

// sessionsConfig has two agents; Telegram admits everyone.
const sessionsConfig = `{agents: {list: [{id: "main", default: true}, {id: "work", name: "Work bot"}]}, channels: {telegram: {allowFrom: ["*"]}}}`

// memStore is a session store in memory, with the session.Store
// contract's List: an agent's entries newest first (equal updatedAt in key
// order), never a reserved key.
type memStore struct {
	mu      sync.Mutex
	entries map[string]session.Entry
}

func (m *memStore) Get(_ context.Context, key string) (session.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	if !ok {
		return session.Entry{}, fault.New(fault.NotFound, "no session %s", key)
	}
	return e, nil
}

func (m *memStore) Lookup(_ context.Context, sessionID string) (string, session.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, e := range m.entries {
		if e.SessionID == sessionID {
			return key, e, nil
		}
	}
	return "", session.Entry{}, fault.New(fault.NotFound, "no session has id %s", sessionID)
}

func (m *memStore) List(_ context.Context, q session.ListQuery) ([]session.Listed, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var rows []session.Listed
	for key, e := range m.entries {
		if e.AgentID == q.AgentID && e.UpdatedAt >= q.ActiveSince && !session.Reserved(key) {
			rows = append(rows, session.Listed{Key: key, Entry: e})
		}
	}
	slices.SortFunc(rows, func(a, b session.Listed) int {
		return cmp.Or(cmp.Compare(b.Entry.UpdatedAt, a.Entry.UpdatedAt), cmp.Compare(a.Key, b.Key))
	})
	limit := q.Limit
	if limit <= 0 {
		limit = session.DefaultListLimit
	}
	return rows[:min(len(rows), limit, session.MaxListLimit)], nil
}

func (m *memStore) Update(_ context.Context, key string, fn func(*session.Entry) error) (session.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	stored, ok := m.entries[key]
	if !ok {
		return session.Entry{}, fault.New(fault.NotFound, "no session %s", key)
	}
	next, err := session.Apply(stored, fn)
	if err == nil {
		m.entries[key] = next
	}
	return next, err
}

// memQueue is the ingest door as the tools see it: it keeps what it was
// given, once per message id, and answers the run id the door would.
type memQueue struct {
	mu     sync.Mutex
	queued []inbound.Message
}

func (q *memQueue) Queue(_ context.Context, m inbound.Message) (string, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !slices.ContainsFunc(q.queued, func(old inbound.Message) bool { return old.ID == m.ID }) {
		q.queued = append(q.queued, m)
	}
	return run.NewID(m.ID), nil
}

// messages are the queued messages without their receive and start
// times.
func (q *memQueue) messages() []inbound.Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []inbound.Message
	for _, m := range q.queued {
		m.ReceivedAt = 0
		if m.Flow != nil {
			f := *m.Flow
			f.StartedAt = 0
			m.Flow = &f
		}
		out = append(out, m)
	}
	return out
}

// rig is a run of the caller's session (agent:main:main on Telegram, chat
// 7, unless caller is changed) under a configuration, over a session
// store and transcripts in memory; the caller's session has had one turn.
type rig struct {
	cfg        *config.Config
	store      *memStore
	bucket     *transcripttest.MemBucket
	queue      *memQueue
	clock      time.Time // the seeds' clock; the tools run a second later
	caller     inbound.Message
	visibility string             // tools.Run.SessionVisibility
	provenance inbound.Provenance // tools.Run.Provenance; "": as the owner's
}

func newRig(t *testing.T, doc string) *rig {
	t.Helper()
	cfg, err := config.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{cfg: cfg, store: &memStore{entries: map[string]session.Entry{}}, bucket: transcripttest.NewMemBucket(), queue: &memQueue{},
		clock: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC),
		caller: inbound.Message{ID: callerTurn, AgentID: "main", SessionKey: mainKey, Channel: "telegram", ChatType: inbound.Direct,
			From: "telegram:7", To: "7", Text: "go"}}
	r.seedCaller(t)
	return r
}

// seedCaller stores the caller's session as its first turn left it.
func (r *rig) seedCaller(t *testing.T) {
	t.Helper()
	e := session.Entry{AgentID: "main", SessionID: "s-caller", Channel: "telegram", ChatType: inbound.Direct, LastChannel: "telegram", LastTo: "7",
		DeliveryContext: session.DeliveryContext{Channel: "telegram", To: "7"}, UpdatedAt: r.ago(time.Second)}
	r.seed(t, r.caller.SessionKey, r.writeTranscript(t, r.caller.SessionKey, e, []string{"user:hi", "assistant:echo: hi (call 1)"}))
}

// seed stores e under key as a first commit would.
func (r *rig) seed(t *testing.T, key string, e session.Entry) {
	t.Helper()
	e.Version = 1
	if e.SessionID == "" {
		e.SessionID = "s-" + strings.NewReplacer(":", "-").Replace(key)
	}
	r.store.mu.Lock()
	defer r.store.mu.Unlock()
	r.store.entries[key] = e
}

// entry is key's stored entry.
func (r *rig) entry(t *testing.T, key string) session.Entry {
	t.Helper()
	e, err := r.store.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// ago is the epoch ms d before the rig's clock.
func (r *rig) ago(d time.Duration) int64 { return r.clock.Add(-d).UnixMilli() }

// run is the caller's run as the engine hands it to the tools.
func (r *rig) run(t *testing.T) tools.Run {
	t.Helper()
	e, err := r.store.Get(context.Background(), r.caller.SessionKey)
	if err != nil && !fault.Is(err, fault.NotFound) {
		t.Fatal(err)
	}
	now := r.clock.Add(time.Second)
	return tools.Run{Config: r.cfg, Message: r.caller, AgentID: session.OwnerOf(r.caller.SessionKey, e), Entry: e,
		Model: model.Ref{Provider: "zero", Name: "echo"}, Now: func() time.Time { return now }, SessionVisibility: r.visibility,
		Provenance: r.provenance, Ingress: r.queue, Models: map[string]model.Client{"zero": nil}}
}

// transcripts reads the rig's transcripts.
func (r *rig) transcripts() *transcript.Log { return transcript.NewLog(r.bucket) }

// writeTranscript writes parts (one per turn) of key's transcript, as
// message lines "role:text", and records them on its entry.
func (r *rig) writeTranscript(t *testing.T, key string, e session.Entry, parts ...[]string) session.Entry {
	t.Helper()
	for i, part := range parts {
		var lines []any
		for j, m := range part {
			role, text, _ := strings.Cut(m, ":")
			lines = append(lines, transcript.Line{Type: "message", ID: fmt.Sprintf("%d-%d", i, j),
				Message: &transcript.Message{Role: role, Content: []transcript.Content{{Type: "text", Text: text}}}})
		}
		if err := r.transcripts().WritePart(context.Background(), session.TranscriptPath(key, e), int64(i+1), lines); err != nil {
			t.Fatal(err)
		}
	}
	e.TranscriptSeq = int64(len(parts))
	return e
}

// messagesOf is "role:text" per raw transcript message.
func messagesOf(t *testing.T, raws []json.RawMessage) []string {
	t.Helper()
	if raws == nil {
		return nil
	}
	out := []string{}
	for _, raw := range raws {
		var m transcript.Message
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m.Role+":"+m.Text())
	}
	return out
}
