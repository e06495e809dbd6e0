// Package sessiontest holds the conformance suite every session.Store
// implementation runs.
package sessiontest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
)

// Harness is one store under test and what the suite needs besides the
// session.Store port, which has no way to create an entry.
type Harness struct {
	Store session.Store
	// Seed creates the entry of key as e (e.Version is 1; key has no
	// entry), with a stored model context beside it, through the
	// implementation's own write path, e.g. a turn.Store.Commit. An
	// existing entry must make it fail with fault.Conflict.
	Seed func(ctx context.Context, key string, e session.Entry) error
	// HasContext reports whether key has a stored model context. Optional:
	// without it the suite does not check that Delete removes the context.
	HasContext func(ctx context.Context, key string) (bool, error)
}

// Eventually is how long the suite waits for Lookup and List to reflect a
// write, since a store may serve them from an eventually consistent index.
const Eventually = 5 * time.Second

// TestStore checks the session.Store contract, and session.Deleter when
// the store implements it. Every subtest uses its own agent id, keys and
// session ids (random, so reruns on a kept table do not collide), so
// newStore may return the same backing store every time.
func TestStore(t *testing.T, newStore func(t *testing.T) Harness) {
	ctx := context.Background()

	t.Run("get of a missing key is not found", func(t *testing.T) {
		h := newStore(t)
		n := names(t)
		if _, err := h.Store.Get(ctx, n.key("missing")); !fault.Is(err, fault.NotFound) {
			t.Fatalf("Get = %v; want fault.NotFound", err)
		}
	})

	t.Run("every field round-trips through get, lookup and list", func(t *testing.T) {
		h := newStore(t)
		n := names(t)
		e := fullEntry(n)
		key := n.key("full")
		seed(t, h, key, e)
		got, err := h.Store.Get(ctx, key)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if !reflect.DeepEqual(got, e) {
			t.Fatalf("Get = %+v\nwant  %+v", got, e)
		}
		// Lookup and List return whole entries too.
		eventually(t, "Lookup", func() error {
			gotKey, got, err := h.Store.Lookup(ctx, e.SessionID)
			if err == nil && (gotKey != key || !reflect.DeepEqual(got, e)) {
				err = fmt.Errorf("Lookup = %q, %+v\nwant %q, %+v", gotKey, got, key, e)
			}
			return err
		})
		eventually(t, "List", func() error {
			rows, err := h.Store.List(ctx, session.ListQuery{AgentID: e.AgentID})
			if err == nil && (len(rows) != 1 || rows[0].Key != key || !reflect.DeepEqual(rows[0].Entry, e)) {
				err = fmt.Errorf("List = %+v\nwant one row %q, %+v", rows, key, e)
			}
			return err
		})
	})

	t.Run("lookup", func(t *testing.T) {
		h := newStore(t)
		n := names(t)
		key, sid := n.key("a"), n.sessionID("a")
		seed(t, h, key, entry(n, sid, 1000))
		// A second session of the same agent must not be confused with it.
		seed(t, h, n.key("b"), entry(n, n.sessionID("b"), 2000))

		eventually(t, "Lookup of a seeded session", func() error {
			gotKey, got, err := h.Store.Lookup(ctx, sid)
			switch {
			case err != nil:
				return err
			case gotKey != key || got.SessionID != sid || got.Version != 1:
				return fmt.Errorf("Lookup = %q, %+v; want %q with session %s at version 1", gotKey, got, key, sid)
			}
			return nil
		})
		if _, _, err := h.Store.Lookup(ctx, n.sessionID("unknown")); !fault.Is(err, fault.NotFound) {
			t.Errorf("Lookup of an unknown id = %v; want fault.NotFound", err)
		}

		// A reset gives the key a new session id: the old one must stop
		// resolving at once (Lookup checks the current entry), the new one
		// resolves once the store has caught up.
		reset := n.sessionID("reset")
		if _, err := h.Store.Update(ctx, key, func(e *session.Entry) error { *e = e.Reset(reset); return nil }); err != nil {
			t.Fatalf("Update (reset): %v", err)
		}
		if _, _, err := h.Store.Lookup(ctx, sid); !fault.Is(err, fault.NotFound) {
			t.Errorf("Lookup of the id a reset replaced = %v; want fault.NotFound", err)
		}
		eventually(t, "Lookup of the id after a reset", func() error {
			gotKey, got, err := h.Store.Lookup(ctx, reset)
			switch {
			case err != nil:
				return err
			case gotKey != key || got.SessionID != reset || got.Version != 2:
				return fmt.Errorf("Lookup = %q, %+v; want %q with session %s at version 2", gotKey, got, key, reset)
			}
			return nil
		})
	})

	t.Run("list", func(t *testing.T) {
		h := newStore(t)
		n, other := names(t), names(t)
		for _, s := range []struct {
			name    string
			updated int64
		}{{"old", 1000}, {"new", 3000}, {"mid", 2000}} {
			seed(t, h, n.key(s.name), entry(n, n.sessionID(s.name), s.updated))
		}
		seed(t, h, other.key("x"), entry(other, other.sessionID("x"), 2500))

		tests := []struct {
			name string
			q    session.ListQuery
			want []string // key suffixes, in order
		}{
			{"newest first, other agents left out", session.ListQuery{AgentID: n.agent}, []string{"new", "mid", "old"}},
			{"active since is inclusive", session.ListQuery{AgentID: n.agent, ActiveSince: 2000}, []string{"new", "mid"}},
			{"active since after every entry", session.ListQuery{AgentID: n.agent, ActiveSince: 3001}, nil},
			{"limit keeps the newest", session.ListQuery{AgentID: n.agent, Limit: 2}, []string{"new", "mid"}},
			{"the other agent", session.ListQuery{AgentID: other.agent}, []string{"x"}},
			{"an agent with no sessions", session.ListQuery{AgentID: names(t).agent}, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				owner := n
				if tc.q.AgentID == other.agent {
					owner = other
				}
				var want []string
				for _, s := range tc.want {
					want = append(want, owner.key(s))
				}
				eventually(t, "List", func() error {
					rows, err := h.Store.List(ctx, tc.q)
					if err != nil {
						return err
					}
					if got := keysOf(rows); !slices.Equal(got, want) {
						return fmt.Errorf("List(%+v) = %q; want %q", tc.q, got, want)
					}
					for _, r := range rows {
						if r.Entry.AgentID != tc.q.AgentID || !strings.HasSuffix(r.Key, strings.TrimPrefix(r.Entry.SessionID, owner.prefix)) {
							return fmt.Errorf("List row %q carries entry %+v", r.Key, r.Entry)
						}
					}
					return nil
				})
			})
		}
		if _, err := h.Store.List(ctx, session.ListQuery{}); !fault.Is(err, fault.Invalid) {
			t.Errorf("List without agent id = %v; want fault.Invalid", err)
		}
	})

	t.Run("list limits default and cap", func(t *testing.T) {
		h := newStore(t)
		n := names(t)
		total := session.MaxListLimit + 1
		for i := range total {
			seed(t, h, n.key(fmt.Sprintf("s%04d", i)), entry(n, n.sessionID(fmt.Sprint(i)), int64(10_000+i)))
		}
		tests := []struct {
			name  string
			limit int
			want  int
		}{
			{"zero is the default", 0, session.DefaultListLimit},
			{"negative is the default", -1, session.DefaultListLimit},
			{"above the cap is the cap", session.MaxListLimit + 50, session.MaxListLimit},
			{"the cap", session.MaxListLimit, session.MaxListLimit},
			{"one", 1, 1},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				eventually(t, "List", func() error {
					rows, err := h.Store.List(ctx, session.ListQuery{AgentID: n.agent, Limit: tc.limit})
					if err != nil {
						return err
					}
					if len(rows) != tc.want {
						return fmt.Errorf("List(limit %d) returned %d rows; want %d", tc.limit, len(rows), tc.want)
					}
					for i, r := range rows {
						if want := n.key(fmt.Sprintf("s%04d", total-1-i)); r.Key != want {
							return fmt.Errorf("row %d = %q; want %q (newest first)", i, r.Key, want)
						}
					}
					return nil
				})
			})
		}
	})

	t.Run("reserved keys are never listed", func(t *testing.T) {
		h := newStore(t)
		n := names(t)
		seed(t, h, n.key("visible"), entry(n, n.sessionID("visible"), 1000))
		// The reserved keys are one per store, maybe already there from
		// another run: then take them over for this agent.
		for i, key := range []string{session.KeyGlobal, session.KeyUnknown} {
			e := entry(n, n.sessionID(key), int64(2000+i))
			err := h.Seed(ctx, key, e)
			if fault.Is(err, fault.Conflict) {
				_, err = h.Store.Update(ctx, key, func(stored *session.Entry) error {
					stored.AgentID, stored.SessionID, stored.UpdatedAt = e.AgentID, e.SessionID, time.Now().UnixMilli()
					return nil
				})
			}
			if err != nil {
				t.Fatalf("seed %s: %v", key, err)
			}
			if _, err := h.Store.Get(ctx, key); err != nil {
				t.Fatalf("Get %s: %v; reserved keys are stored like any other", key, err)
			}
		}
		// Without a limit, then with a limit the reserved keys would fill.
		for _, limit := range []int{0, 1} {
			eventually(t, "List", func() error {
				rows, err := h.Store.List(ctx, session.ListQuery{AgentID: n.agent, Limit: limit})
				if err != nil {
					return err
				}
				if got, want := keysOf(rows), []string{n.key("visible")}; !slices.Equal(got, want) {
					return fmt.Errorf("List(limit %d) = %q; want %q", limit, got, want)
				}
				return nil
			})
		}
	})

	t.Run("update", func(t *testing.T) {
		h := newStore(t)
		n := names(t)
		key := n.key("u")
		seed(t, h, key, entry(n, n.sessionID("u"), 5000))
		errRefused := errors.New("refused by fn")
		tests := []struct {
			name        string
			fn          func(*session.Entry) error
			wantErr     error // matched with errors.Is
			wantLabel   string
			wantUpdated int64
			wantVersion int64
		}{
			{"applies fn and increments the version", func(e *session.Entry) error {
				e.Label, e.UpdatedAt = "first", 6000
				return nil
			}, nil, "first", 6000, 2},
			{"never moves updatedAt back", func(e *session.Entry) error {
				e.Label, e.UpdatedAt = "second", 1
				return nil
			}, nil, "second", 6000, 3},
			{"fn error aborts without writing", func(e *session.Entry) error {
				e.Label = "never stored"
				return errRefused
			}, errRefused, "second", 6000, 3},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got, err := h.Store.Update(ctx, key, tc.fn)
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Update = %v; want %v", err, tc.wantErr)
				}
				stored, gerr := h.Store.Get(ctx, key)
				if gerr != nil {
					t.Fatalf("Get: %v", gerr)
				}
				if err == nil && !reflect.DeepEqual(got, stored) {
					t.Errorf("Update returned %+v; Get has %+v", got, stored)
				}
				if stored.Label != tc.wantLabel || stored.UpdatedAt != tc.wantUpdated || stored.Version != tc.wantVersion {
					t.Errorf("stored label %q updatedAt %d version %d; want %q %d %d",
						stored.Label, stored.UpdatedAt, stored.Version, tc.wantLabel, tc.wantUpdated, tc.wantVersion)
				}
			})
		}
		t.Run("missing key is not found and fn is not called", func(t *testing.T) {
			called := false
			_, err := h.Store.Update(ctx, n.key("missing"), func(*session.Entry) error { called = true; return nil })
			if !fault.Is(err, fault.NotFound) || called {
				t.Fatalf("Update of a missing key = %v (fn called: %v); want fault.NotFound without calling fn", err, called)
			}
			if _, err := h.Store.Get(ctx, n.key("missing")); !fault.Is(err, fault.NotFound) {
				t.Fatalf("Update of a missing key created it: Get = %v", err)
			}
		})
	})

	t.Run("concurrent updates lose no field", func(t *testing.T) {
		h := newStore(t)
		n := names(t)
		raceUpdates(t, h, n, "c")
	})

	t.Run("delete", func(t *testing.T) {
		h := newStore(t)
		d, ok := h.Store.(session.Deleter)
		if !ok {
			t.Skip("the store does not implement session.Deleter")
		}
		n := names(t)
		key, sid := n.key("d"), n.sessionID("d")
		seed(t, h, key, entry(n, sid, 1000))
		keep := n.key("keep")
		seed(t, h, keep, entry(n, n.sessionID("keep"), 2000))
		if h.HasContext != nil {
			if has, err := h.HasContext(ctx, key); err != nil || !has {
				t.Fatalf("HasContext before Delete = %v, %v; Seed must store a context", has, err)
			}
		}
		if err := d.Delete(ctx, key); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if _, err := h.Store.Get(ctx, key); !fault.Is(err, fault.NotFound) {
			t.Errorf("Get after Delete = %v; want fault.NotFound", err)
		}
		if _, _, err := h.Store.Lookup(ctx, sid); !fault.Is(err, fault.NotFound) {
			t.Errorf("Lookup after Delete = %v; want fault.NotFound", err)
		}
		if _, err := h.Store.Update(ctx, key, func(*session.Entry) error { return nil }); !fault.Is(err, fault.NotFound) {
			t.Errorf("Update after Delete = %v; want fault.NotFound", err)
		}
		if h.HasContext != nil {
			if has, err := h.HasContext(ctx, key); err != nil || has {
				t.Errorf("HasContext after Delete = %v, %v; want false", has, err)
			}
		}
		if _, err := h.Store.Get(ctx, keep); err != nil {
			t.Errorf("Delete touched another key: Get = %v", err)
		}
		eventually(t, "List after Delete", func() error {
			rows, err := h.Store.List(ctx, session.ListQuery{AgentID: n.agent})
			if err != nil {
				return err
			}
			if got := keysOf(rows); !slices.Equal(got, []string{keep}) {
				return fmt.Errorf("List = %q; want only %q", got, keep)
			}
			return nil
		})
		for i := range 2 {
			if err := d.Delete(ctx, key); err != nil {
				t.Errorf("Delete of a deleted key (#%d) = %v; want nil", i+1, err)
			}
		}
		if err := d.Delete(ctx, n.key("never")); err != nil {
			t.Errorf("Delete of a key that never existed = %v; want nil", err)
		}
		// The key can start over: a new session under the same key.
		if err := h.Seed(ctx, key, entry(n, n.sessionID("again"), 3000)); err != nil {
			t.Errorf("Seed after Delete: %v", err)
		}
	})
}

// suite names one subtest's agent, keys and session ids.
type suite struct {
	agent  string // a valid agent id, unique to the subtest and the run
	prefix string // of every session id of the subtest
}

func names(t *testing.T) suite {
	b := make([]byte, 4)
	rand.Read(b)
	suffix := hex.EncodeToString(b)
	// Agent ids are [a-z0-9][a-z0-9_-]{0,63}: keep the end of the test
	// name (the distinctive part) and the random suffix.
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return '-'
	}, t.Name())
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	name = strings.Trim(name, "-_")
	return suite{agent: "t" + suffix + "-" + name, prefix: suffix + "-"}
}

func (s suite) key(name string) string { return "agent:" + s.agent + ":suite:" + name }

// sessionID is a unique session id ending in name, so List rows can be
// matched to their keys.
func (s suite) sessionID(name string) string { return s.prefix + name }

func entry(s suite, sessionID string, updatedAt int64) session.Entry {
	return session.Entry{SessionID: sessionID, UpdatedAt: updatedAt, AgentID: s.agent, Channel: "telegram", Version: 1}
}

// fullEntry sets every field of session.Entry, which it checks, so a new
// field cannot go untested.
func fullEntry(s suite) session.Entry {
	e := session.Entry{
		SessionID: s.sessionID("full"), UpdatedAt: 1_700_000_000_123,
		DisplayName: "Family", Channel: "telegram", ChatType: "group", GroupID: "-100123", Subject: "Family chat",
		GroupChannel: "#family", Space: "home", Room: "kitchen",
		Origin: session.Origin{
			Label: "Family", Provider: "telegram", From: "telegram:42", To: "telegram:-100123",
			AccountID: "bot1", ThreadID: "7",
		},
		DeliveryContext: session.DeliveryContext{Channel: "telegram", To: "-100123", AccountID: "bot1", ThreadID: "7"},
		LastChannel:     "telegram", LastTo: "-100123", LastAccountID: "bot1", LastThreadID: "7",
		Model: "gpt-test", ModelProvider: "openai",
		InputTokens: 11, OutputTokens: 22, TotalTokens: 33, ContextTokens: 44,
		LastInputTokens: 45, LastOutputTokens: 46, InfraCostUSD: 0.000047, LastInfraCostUSD: 0.000048,
		ModelOverride: "claude-test", ProviderOverride: "anthropic",
		ThinkingLevel: "high", VerboseLevel: "on", ReasoningLevel: "stream", SendPolicy: "deny", QueueMode: "followup",
		SystemSent: true, AbortedLastRun: true, Label: "family", SpawnedBy: "agent:" + s.agent + ":main",
		CompactionCount: 3,
		AgentID:         s.agent, TranscriptSeq: 9, LastEntryID: "a1b2c3d4",
		ArchiveAt: 9_999_999_999_000, // far ahead: archived entries read as absent
		Version:   1,
		Extra:     map[string]json.RawMessage{"skillsSnapshot": json.RawMessage(`{"prompt":"x","n":[1,2]}`), "future": json.RawMessage(`7`)},
	}
	v := reflect.ValueOf(e)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			panic("sessiontest: fullEntry leaves session.Entry." + v.Type().Field(i).Name + " empty; set it")
		}
	}
	return e
}

func seed(t *testing.T, h Harness, key string, e session.Entry) {
	t.Helper()
	if err := h.Seed(context.Background(), key, e); err != nil {
		t.Fatalf("Seed %s: %v", key, err)
	}
}

func keysOf(rows []session.Listed) []string {
	var keys []string
	for _, r := range rows {
		keys = append(keys, r.Key)
	}
	return keys
}

// eventually retries check until it returns nil or Eventually has passed,
// then fails the test with its last error.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(Eventually)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s (still after %v): %v", what, Eventually, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// raceUpdates runs two writers of different fields concurrently on one
// entry and checks that no update was lost and updatedAt never moved
// back. Two writes acknowledged at one version mean the store's condition
// did not hold.
func raceUpdates(t *testing.T, h Harness, n suite, suffix string) {
	t.Helper()
	ctx := context.Background()
	key := n.key(suffix)
	start := entry(n, n.sessionID(suffix), 1000)
	seed(t, h, key, start)
	const rounds = 10
	// Each writer increments its own counter field; a lost update would
	// leave one short. Both also try to move updatedAt back.
	writers := []func(*session.Entry){
		func(e *session.Entry) { e.InputTokens++; e.UpdatedAt = 0 },
		func(e *session.Entry) { e.OutputTokens++; e.UpdatedAt = 0 },
	}
	var mu sync.Mutex
	written := map[int64]int{} // version -> updates that returned it
	var wg sync.WaitGroup
	errs := make(chan error, len(writers))
	for _, w := range writers {
		wg.Go(func() {
			for range rounds {
				got, err := h.Store.Update(ctx, key, func(e *session.Entry) error { w(e); return nil })
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				written[got.Version]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent Update: %v", err)
	}
	for v, count := range written {
		if count > 1 {
			t.Fatalf("%d concurrent updates were acknowledged at version %d; the version check must let one win", count, v)
		}
	}
	got, err := h.Store.Get(ctx, key)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	want := start
	want.InputTokens += rounds
	want.OutputTokens += rounds
	want.Version += int64(len(writers) * rounds)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after %d×%d concurrent updates: %+v\nwant %+v", len(writers), rounds, got, want)
	}
}
