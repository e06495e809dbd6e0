package session

import "context"

// Store is the session map as the gateway reads and patches it: the API,
// the session tools and the operator CLI. The runner's turn path uses the
// narrower turn.Store. Implementations: shared/dynamo and
// turntest.MemStore; both pass sessiontest.TestStore.
//
// Errors: a missing key or session id is fault.NotFound; a write that keeps
// losing the version race is fault.Conflict.
type Store interface {
	// Get returns the entry of key (strongly consistent).
	Get(ctx context.Context, key string) (Entry, error)
	// Lookup returns the key and entry of the session whose sessionId is
	// id, without scanning. It may lag a just-committed entry by the
	// index's replication delay.
	Lookup(ctx context.Context, sessionID string) (string, Entry, error)
	// List returns the entries of q.AgentID, newest first, without
	// scanning. Reserved keys (global, unknown) are never listed.
	List(ctx context.Context, q ListQuery) ([]Listed, error)
	// Update applies fn to the stored entry of key and writes it back with
	// a version check, re-reading and re-applying fn on a lost race, so a
	// concurrent writer never loses a field. UpdatedAt never moves back.
	// fn must be safe to call more than once. Returns the written entry.
	Update(ctx context.Context, key string, fn func(*Entry) error) (Entry, error)
}

// Deleter is the optional capability to delete a session entry (and its
// stored context). Deleting is safe: the next message recreates the entry,
// with a new sessionId.
type Deleter interface {
	Delete(ctx context.Context, key string) error
}

// ListQuery selects sessions for Store.List.
type ListQuery struct {
	AgentID     string // required
	ActiveSince int64  // epoch ms; only entries updated at or after it. 0: all
	Limit       int    // at most this many rows; <= 0 means DefaultListLimit, capped at MaxListLimit
}

// List limits.
const (
	DefaultListLimit = 50
	MaxListLimit     = 200
)

// Listed is one row of Store.List.
type Listed struct {
	Key   string
	Entry Entry
}

// Apply runs fn on a copy of stored and returns what Update writes: the
// result with Version one above stored's and UpdatedAt no earlier than
// stored's. Store implementations share it so the rules live in one place.
func Apply(stored Entry, fn func(*Entry) error) (Entry, error) {
	next := stored
	if err := fn(&next); err != nil {
		return Entry{}, err
	}
	if next.UpdatedAt < stored.UpdatedAt {
		next.UpdatedAt = stored.UpdatedAt
	}
	next.Version = stored.Version + 1
	return next, nil
}
